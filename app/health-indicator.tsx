"use client";

import { useQuery } from "@tanstack/react-query";

import { HealthBadge } from "@/components/layout/health-badge";
import { healthQuery } from "@/lib/health/health-queries";
import type { HealthVerdict } from "@/lib/health/health-verdict";

/** The header's verdict: the health check's, and until its first answer the one the page was rendered with. */
export function HealthIndicator({ initialVerdict }: { initialVerdict: HealthVerdict | null }) {
  const { data, error } = useQuery(healthQuery());
  return <HealthBadge report={data} initialVerdict={initialVerdict} error={error ? error.message : null} />;
}
