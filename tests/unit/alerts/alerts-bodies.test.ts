import { createHmac } from "node:crypto";

import { describe, expect, it } from "vitest";

import type { StoredAlert } from "@/lib/alerts/alert-types";
import { alertmanagerBody, signBody, slackBody, webhookBody } from "@/lib/alerts/notification-bodies";

const T0 = 1_700_000_000_000;
const firing: StoredAlert = {
  id: "7",
  fingerprint: "0123456789abcdef",
  labels: { alertname: "no-holder", cluster: "prod", kind: "pulsar-subscription", resource: "persistent://t/ns/orders", subscription: "billing" },
  severity: "critical",
  annotations: { summary: "No holder: billing <on> orders", description: "nobody & nothing", link: "http://baton/subscriptions?cluster=prod" },
  state: "firing",
  activeAt: T0,
  firedAt: T0 + 30_000,
  resolvedAt: null,
  lastSentAt: T0 + 30_000,
};
const resolved: StoredAlert = { ...firing, state: "resolved", resolvedAt: T0 + 90_000 };

describe("notification bodies", () => {
  it("sends Alertmanager the labels, annotations, startsAt, an endsAt ahead while firing, and generatorURL", () => {
    expect(alertmanagerBody(firing, T0 + 60_000, 240_000)).toEqual([
      {
        labels: {
          alertname: "no-holder",
          severity: "critical",
          cluster: "prod",
          kind: "pulsar-subscription",
          resource: "persistent://t/ns/orders",
          subscription: "billing",
        },
        annotations: { summary: firing.annotations.summary, description: "nobody & nothing", link: firing.annotations.link },
        startsAt: new Date(T0 + 30_000).toISOString(),
        endsAt: new Date(T0 + 300_000).toISOString(),
        generatorURL: firing.annotations.link,
      },
    ]);
  });

  it("ends a resolved alert at its resolution, whatever notification carries it", () => {
    expect((alertmanagerBody(resolved, T0 + 500_000, 240_000)[0] as { endsAt: string }).endsAt).toBe(new Date(T0 + 90_000).toISOString());
  });

  it("writes the documented webhook body", () => {
    expect(webhookBody(resolved, "resolved", "42", T0 + 91_000)).toEqual({
      version: "1",
      id: "42",
      status: "resolved",
      sentAt: new Date(T0 + 91_000).toISOString(),
      alert: {
        fingerprint: "0123456789abcdef",
        rule: "no-holder",
        severity: "critical",
        labels: expect.objectContaining({ alertname: "no-holder", subscription: "billing" }),
        summary: firing.annotations.summary,
        description: "nobody & nothing",
        link: firing.annotations.link,
        activeAt: new Date(T0).toISOString(),
        firedAt: new Date(T0 + 30_000).toISOString(),
        resolvedAt: new Date(T0 + 90_000).toISOString(),
      },
    });
  });

  it("writes Slack's incoming-webhook text with its escapes and a link", () => {
    expect(slackBody(firing, "firing")).toEqual({
      text: ":red_circle: *FIRING* [critical] No holder: billing &lt;on&gt; orders\nnobody &amp; nothing\n<http://baton/subscriptions?cluster=prod|Open in Baton>",
    });
    expect((slackBody(resolved, "resolved") as { text: string }).text.startsWith(":large_green_circle: *RESOLVED* ")).toBe(true);
  });

  it("signs the exact body bytes with HMAC-SHA256", () => {
    const body = JSON.stringify(webhookBody(firing, "firing", "1", T0));
    expect(signBody("k", body)).toBe(`sha256=${createHmac("sha256", "k").update(body).digest("hex")}`);
    expect(signBody("k", `${body} `)).not.toBe(signBody("k", body));
  });
});
