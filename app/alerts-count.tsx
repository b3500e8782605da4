"use client";

import { useQuery } from "@tanstack/react-query";

import { FiringCount } from "@/components/layout/firing-count";
import { healthQuery } from "@/lib/health/health-queries";

/** The Alerts menu item's count: the header's verdict, from the same answer (one query, one cache entry). */
export function AlertsCount() {
  const { data } = useQuery(healthQuery());
  return data ? <FiringCount firing={data.verdict.firing} /> : null;
}
