import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "@/lib/config";

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("alerting configuration", () => {
  it("has every rule on with its default `for` and no receivers", () => {
    const { alerts } = loadConfig({});
    expect(alerts.rules["no-holder"]).toMatchObject({ isEnabled: true, forMs: 30_000, severity: "critical" });
    expect(alerts.rules.violations).toMatchObject({ forMs: 0, threshold: 0, windowMs: 300_000 });
    expect(alerts.rules["no-poller"].forMs).toBe(30_000);
    expect(alerts).toMatchObject({ evaluationIntervalMs: 5_000, alertmanagerUrl: null, resendMs: 60_000, webhooks: [], linkBaseUrl: "http://localhost:3000" });
  });

  it("takes overrides, receivers and the link base", () => {
    const { alerts } = loadConfig({
      BATON_ALERT_RULES: JSON.stringify({ "no-holder": { forSeconds: 5 }, violations: { threshold: 10, windowMinutes: 15 }, flapping: { enabled: false } }),
      BATON_ALERT_WEBHOOKS: JSON.stringify([
        { name: "ops", url: "http://hooks:9000/baton/", secret: "s3cret" },
        { name: "chat", url: "https://hooks.slack.com/services/x", format: "slack" },
      ]),
      BATON_ALERTMANAGER_URL: "http://am:9093/",
      BATON_ALERT_LINK_BASE_URL: "https://baton.example.com/",
    });
    expect(alerts.rules["no-holder"].forMs).toBe(5_000);
    expect(alerts.rules.violations).toMatchObject({ threshold: 10, windowMs: 900_000 });
    expect(alerts.rules.flapping.isEnabled).toBe(false);
    expect(alerts.webhooks).toEqual([
      { name: "ops", url: "http://hooks:9000/baton", format: "generic", secret: "s3cret", timeoutMs: 5_000 },
      { name: "chat", url: "https://hooks.slack.com/services/x", format: "slack", secret: null, timeoutMs: 5_000 },
    ]);
    expect(alerts.alertmanagerUrl).toBe("http://am:9093");
    expect(alerts.linkBaseUrl).toBe("https://baton.example.com");
  });

  it.each([
    [{ BATON_ALERT_RULES: '{"no-leader":{}}' }, /^Invalid configuration: BATON_ALERT_RULES\.no-leader is not a rule \(rules: no-holder, .*\)/],
    [
      { BATON_ALERT_RULES: '{"stuck":{"forSeconds":-5}}' },
      /^Invalid configuration: BATON_ALERT_RULES\.stuck\.forSeconds must be 0 or more seconds \(got -5\)$/,
    ],
    [{ BATON_ALERT_RULES: '{"stuck":{"forsecs":5}}' }, /BATON_ALERT_RULES\.stuck .*unknown key "forsecs"/],
    [{ BATON_ALERT_RULES: '{"stuck":{"threshold":5}}' }, /BATON_ALERT_RULES\.stuck takes no threshold/],
    [{ BATON_ALERT_RULES: "{nope" }, /^Invalid configuration: BATON_ALERT_RULES is not valid JSON/],
    [{ BATON_ALERT_WEBHOOKS: '[{"name":"a","url":"ftp://x"}]' }, /BATON_ALERT_WEBHOOKS\[0\]\.url must be an http:\/\/ or https:\/\/ URL/],
    [{ BATON_ALERT_WEBHOOKS: '[{"name":"a","url":"http://x"},{"name":"a","url":"http://y"}]' }, /BATON_ALERT_WEBHOOKS\[1\]\.name duplicate webhook name "a"/],
    [{ BATON_ALERTMANAGER_URL: "am:9093" }, /^Invalid configuration: BATON_ALERTMANAGER_URL must be an http:\/\/ or https:\/\/ URL/],
    [{ BATON_ALERT_EVALUATION_INTERVAL_MS: "10" }, /BATON_ALERT_EVALUATION_INTERVAL_MS/],
  ])("refuses %j with one line", (env, pattern) => {
    const message = configError(env as Record<string, string>);
    expect(message).toMatch(pattern);
    expect(message).not.toContain("\n");
  });
});
