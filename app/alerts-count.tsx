"use client";

import { useQuery } from "@tanstack/react-query";

import { FiringCount } from "@/components/layout/firing-count";
import { healthQuery } from "@/lib/health/health-queries";
import type { HealthVerdict } from "@/lib/health/health-verdict";

/**
 * The Alerts menu item's count: the header's verdict, from the same answer (one query, one cache
 * entry); until it comes, the verdict the page was rendered with.
 */
export function AlertsCount({ initialVerdict }: { initialVerdict: HealthVerdict | null }) {
  const { data } = useQuery(healthQuery());
  const verdict = data?.verdict ?? initialVerdict;
  return verdict ? <FiringCount firing={verdict.firing} /> : null;
}
