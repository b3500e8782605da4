import { z } from "zod";

import { describeConfigIssue } from "@/lib/config-files";
import { httpUrl } from "@/lib/sources/config-fields";

// The alerting settings: which rules run with which `for` durations and thresholds, and where
// notifications go. Parsed once by lib/config.ts; docs/alerts.md documents each field.

export const ALERT_RULE_NAMES = ["no-holder", "flapping", "stuck", "expired-while-held", "violations", "stale", "no-poller"] as const;
export type AlertRuleName = (typeof ALERT_RULE_NAMES)[number];

export type AlertSeverity = "critical" | "warning";

export type AlertRuleConfig = {
  name: AlertRuleName;
  isEnabled: boolean;
  /** How long the condition must hold before the alert fires (Prometheus's `for`). */
  forMs: number;
  severity: AlertSeverity;
  /** violations: more than this many violations outside deployments... */
  threshold: number;
  /** ...within this window, per service. */
  windowMs: number;
};

export type WebhookConfig = { name: string; url: string; format: "generic" | "slack"; secret: string | null; timeoutMs: number };

export type AlertsConfig = {
  rules: Record<AlertRuleName, AlertRuleConfig>;
  evaluationIntervalMs: number;
  alertmanagerUrl: string | null;
  /** A firing alert is sent to Alertmanager again this often (Prometheus's resend delay). */
  resendMs: number;
  webhooks: WebhookConfig[];
  /** Where the annotations' links and generatorURL point: Baton's address as readers reach it. */
  linkBaseUrl: string;
};

type RuleDefaults = { forSeconds: number; severity: AlertSeverity; threshold?: number; windowMinutes?: number };

export const RULE_DEFAULTS: Record<AlertRuleName, RuleDefaults> = {
  "no-holder": { forSeconds: 30, severity: "critical" },
  flapping: { forSeconds: 0, severity: "warning" },
  stuck: { forSeconds: 60, severity: "critical" },
  "expired-while-held": { forSeconds: 0, severity: "critical" },
  violations: { forSeconds: 0, severity: "critical", threshold: 0, windowMinutes: 5 },
  stale: { forSeconds: 60, severity: "warning" },
  "no-poller": { forSeconds: 30, severity: "critical" },
};

const seconds = z
  .number({ message: "must be a number of seconds" })
  .min(0, { message: "must be 0 or more seconds" })
  .max(86_400, { message: "must be at most 86400 seconds" });

const ruleOverrideSchema = z
  .object({
    enabled: z.boolean().optional(),
    forSeconds: seconds.optional(),
    severity: z.enum(["critical", "warning"]).optional(),
    threshold: z.number().int().min(0, { message: "must be 0 or more" }).optional(),
    windowMinutes: z.number().int().min(1, { message: "must be at least 1 minute" }).max(1_440).optional(),
  })
  .strict();

const rulesSchema = z.record(z.string(), ruleOverrideSchema).superRefine((rules, ctx) => {
  for (const name of Object.keys(rules)) {
    if (!(ALERT_RULE_NAMES as readonly string[]).includes(name)) {
      ctx.addIssue({ code: "custom", message: `is not a rule (rules: ${ALERT_RULE_NAMES.join(", ")})`, path: [name] });
    }
  }
  for (const [name, rule] of Object.entries(rules)) {
    if (name !== "violations" && (rule.threshold !== undefined || rule.windowMinutes !== undefined)) {
      ctx.addIssue({ code: "custom", message: "takes no threshold or windowMinutes (only violations does)", path: [name] });
    }
  }
});

const webhookSchema = z
  .object({
    name: z.string().regex(/^[\w.-]{1,63}$/, { message: "must be 1-63 letters, digits, '.', '_' or '-'" }),
    url: httpUrl,
    format: z.enum(["generic", "slack"]).default("generic"),
    secret: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(100).max(60_000).default(5_000),
  })
  .strict();

const webhooksSchema = z.array(webhookSchema).superRefine((hooks, ctx) => {
  const seen = new Set<string>();
  hooks.forEach((hook, index) => {
    if (seen.has(hook.name)) ctx.addIssue({ code: "custom", message: `duplicate webhook name "${hook.name}"`, path: [index, "name"] });
    seen.add(hook.name);
  });
});

export type AlertsInput = {
  rulesJson: unknown;
  webhooksJson: unknown;
  evaluationIntervalMs: number;
  alertmanagerUrl: string | null;
  resendSeconds: number;
  linkBaseUrl: string;
};

/** Thrown with one line naming the setting; lib/config.ts turns it into a ConfigError. */
export class AlertsConfigError extends Error {}

/** The rules with the given overrides over their defaults, and the receivers. */
export function parseAlertsConfig(input: AlertsInput): AlertsConfig {
  const rules = rulesSchema.safeParse(input.rulesJson ?? {});
  if (!rules.success) throw new AlertsConfigError(describeConfigIssue("BATON_ALERT_RULES", input.rulesJson, rules.error));
  const hooks = webhooksSchema.safeParse(input.webhooksJson ?? []);
  if (!hooks.success) throw new AlertsConfigError(describeConfigIssue("BATON_ALERT_WEBHOOKS", input.webhooksJson, hooks.error));
  const resolved = Object.fromEntries(
    ALERT_RULE_NAMES.map((name) => {
      const defaults = RULE_DEFAULTS[name];
      const override = rules.data[name] ?? {};
      const rule: AlertRuleConfig = {
        name,
        isEnabled: override.enabled ?? true,
        forMs: (override.forSeconds ?? defaults.forSeconds) * 1_000,
        severity: override.severity ?? defaults.severity,
        threshold: override.threshold ?? defaults.threshold ?? 0,
        windowMs: (override.windowMinutes ?? defaults.windowMinutes ?? 0) * 60_000,
      };
      return [name, rule];
    }),
  ) as Record<AlertRuleName, AlertRuleConfig>;
  return {
    rules: resolved,
    evaluationIntervalMs: input.evaluationIntervalMs,
    alertmanagerUrl: input.alertmanagerUrl,
    resendMs: input.resendSeconds * 1_000,
    webhooks: hooks.data.map((hook) => ({ name: hook.name, url: hook.url, format: hook.format, secret: hook.secret ?? null, timeoutMs: hook.timeoutMs })),
    linkBaseUrl: input.linkBaseUrl.replace(/\/+$/, ""),
  };
}
