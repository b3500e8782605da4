"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

export const NAV_ITEMS = [
  { href: "/", label: "Leaders" },
  { href: "/locks", label: "Locks" },
  { href: "/violations", label: "Violations" },
  { href: "/deployments", label: "Deployments" },
  { href: "/alerts", label: "Alerts" },
  { href: "/settings/clusters", label: "Clusters" },
] as const;

function isCurrent(pathname: string, href: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

/** `badges`: what follows an item's label, by its href (the Alerts item's firing count). */
export function NavLinks({ badges = {} }: { badges?: Record<string, ReactNode> }) {
  const pathname = usePathname();
  return (
    <nav className="nav" aria-label="Main">
      {NAV_ITEMS.map((item) => (
        <Link key={item.href} href={item.href} aria-current={isCurrent(pathname, item.href) ? "page" : undefined}>
          {item.label}
          {badges[item.href]}
        </Link>
      ))}
    </nav>
  );
}
