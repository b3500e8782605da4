import "server-only";

import { getConfig } from "@/lib/config";
import type { DrilldownSettings } from "@/lib/violations/queries/get-key-drilldown";

/** The drill-down's settings from the configuration (window, grace, trace links, retention). */
export function drilldownSettings(): DrilldownSettings {
  const { drilldownWindowMs, deploymentGraceMs, traceUrlTemplate, retentionDays } = getConfig().violations;
  return { windowMs: drilldownWindowMs, graceMs: deploymentGraceMs, traceUrlTemplate, retentionDays };
}
