"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

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

export function NavLinks() {
  const pathname = usePathname();
  return (
    <nav className="nav" aria-label="Main">
      {NAV_ITEMS.map((item) => (
        <Link key={item.href} href={item.href} aria-current={isCurrent(pathname, item.href) ? "page" : undefined}>
          {item.label}
        </Link>
      ))}
    </nav>
  );
}
