import "./globals.css";

import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";

import { NavLinks } from "@/components/layout/nav-links";
import { OpenAccessNotice } from "@/components/layout/open-access-notice";
import { RefreshControl } from "@/components/layout/refresh-control";
import { SearchShortcut } from "@/components/layout/search-shortcut";
import { TimeZoneLabel } from "@/components/layout/time-zone-label";
import { ViewerMenu } from "@/components/layout/viewer-menu";
import { readViewer } from "@/lib/auth/read-viewer";
import { getConfig } from "@/lib/config";
import { readHeaderVerdict } from "@/lib/health/read-header-verdict";
import { AlertsCount } from "@/app/alerts-count";
import { HealthIndicator } from "@/app/health-indicator";
import { Providers } from "@/app/providers";

export const metadata: Metadata = {
  title: { default: "Baton", template: "%s · Baton" },
  description: "Who holds the baton, and did two hands ever hold it at once?",
};

/**
 * How long a page's render waits for the alert table before leaving the header to the browser's
 * check: a database that answers at all answers within it (a server's first query, which opens
 * the pool on a loaded machine, took over 1 s); one that is down fails at once.
 */
const HEADER_VERDICT_BOUND_MS = 5_000;

export default async function RootLayout({ children }: { children: ReactNode }) {
  const mode = getConfig().access.method.mode;
  // Reading the request (the viewer) also renders every page per request, which the
  // per-request CSP nonce of proxy.ts needs.
  const viewer = await readViewer();
  const isInside = mode === "open" || viewer !== null;
  // What fires, from the first paint (the browser's check, which also asks every cluster, takes over).
  const initialVerdict = isInside ? await readHeaderVerdict(HEADER_VERDICT_BOUND_MS) : null;
  return (
    <html lang="en">
      <body>
        <Providers>
          <a className="skip-link" href="#main">
            Skip to content
          </a>
          <header className="app-header">
            <Link href="/" className="brand">
              <span className="brand-mark" aria-hidden="true" />
              Baton
            </Link>
            {/* A signed-out visitor (on the sign-in page) gets neither: both read protected routes. */}
            {isInside ? <NavLinks badges={{ "/alerts": <AlertsCount initialVerdict={initialVerdict} /> }} /> : null}
            {isInside ? <HealthIndicator initialVerdict={initialVerdict} /> : null}
            {isInside ? <RefreshControl /> : null}
            <TimeZoneLabel />
            {viewer !== null ? <ViewerMenu viewer={viewer} canSignOut={mode === "oidc"} /> : null}
          </header>
          {mode === "open" ? <OpenAccessNotice /> : null}
          <main id="main">{children}</main>
          <SearchShortcut />
        </Providers>
      </body>
    </html>
  );
}
