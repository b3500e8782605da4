import "server-only";

import { z } from "zod";

import { ALERT_RULE_NAMES } from "@/lib/alerts/alert-config";
import type { AlertList } from "@/lib/alerts/list-alerts";
import { responseComponents } from "@/lib/openapi/schema-registries";
import type { SameShape } from "@/lib/openapi/responses/same-shape";
import { isoTime } from "@/lib/openapi/responses/shared-schemas";

// What GET /api/v1/alerts answers, checked against listAlerts's return type at compile time.

const alertState = z.enum(["pending", "firing", "resolved"]);

const alertSchema = z
  .object({
    id: z.string(),
    fingerprint: z.string().meta({ description: "A hash of the labels: the same place and rule, the same fingerprint." }),
    rule: z.enum(ALERT_RULE_NAMES),
    labels: z
      .object({
        alertname: z.enum(ALERT_RULE_NAMES),
        cluster: z.string().optional(),
        kind: z.string().optional(),
        resource: z.string().optional(),
        subscription: z.string().optional(),
        service: z.string().optional(),
      })
      .meta({ description: "What identifies the alert (hashed into the fingerprint)." }),
    severity: z.enum(["critical", "warning"]),
    state: alertState,
    summary: z.string(),
    description: z.string(),
    link: z.string().meta({ description: "The Baton page that explains it." }),
    activeAt: isoTime.meta({ description: "When the condition began (pending since)." }),
    firedAt: isoTime.nullable(),
    resolvedAt: isoTime.nullable(),
    history: z.array(z.object({ state: alertState, at: isoTime })).meta({ description: "Each state it entered, oldest first." }),
  })
  .register(responseComponents, { id: "Alert" });

export const alertListSchema = z
  .object({
    generatedAt: isoTime,
    alerts: z.array(alertSchema).meta({ description: "Firing first, then pending, then resolved; within each, critical before warning, then newest first." }),
  })
  .register(responseComponents, { id: "AlertList" });

true satisfies SameShape<z.output<typeof alertListSchema>, AlertList>;
