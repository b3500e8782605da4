import "./globals.css";

import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";

import { NavLinks } from "@/components/layout/nav-links";
import { HealthIndicator } from "@/app/health-indicator";
import { Providers } from "@/app/providers";

export const metadata: Metadata = {
  title: { default: "Baton", template: "%s · Baton" },
  description: "Who holds the baton, and did two hands ever hold it at once?",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <a className="skip-link" href="#main">Skip to content</a>
          <header className="app-header">
            <Link href="/" className="brand">
              <span className="brand-mark" aria-hidden="true" />
              Baton
            </Link>
            <NavLinks />
            <HealthIndicator />
          </header>
          <main id="main">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
