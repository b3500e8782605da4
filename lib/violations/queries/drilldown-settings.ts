import "server-only";

import { getConfig } from "@/lib/config";
import type { DrilldownSettings } from "@/lib/violations/queries/get-key-drilldown";

/** The drill-down's settings from the configuration (window, grace, trace links, retention, producer routing). */
export function drilldownSettings(): DrilldownSettings {
  const { drilldownWindowMs, deploymentGraceMs, traceUrlTemplate, retentionDays, producerRouting } = getConfig().violations;
  return { windowMs: drilldownWindowMs, graceMs: deploymentGraceMs, traceUrlTemplate, retentionDays, producerRouting };
}
