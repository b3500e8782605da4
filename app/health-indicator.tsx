"use client";

import { useQuery } from "@tanstack/react-query";

import { HealthBadge } from "@/components/layout/health-badge";
import { healthQuery } from "@/lib/health/health-queries";

export function HealthIndicator() {
  const { data, error } = useQuery(healthQuery());
  return <HealthBadge report={data} error={error ? error.message : null} />;
}
