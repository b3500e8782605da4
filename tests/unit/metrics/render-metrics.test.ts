import { describe, expect, it } from "vitest";

import type { MetricSnapshot, SourceState } from "@/lib/metrics/metric-snapshot";
import { buildSnapshotRegistry, isSourceUp, renderHolderInfo } from "@/lib/metrics/render-metrics";

const NOW = 1_000_000;

function source(overrides: Partial<SourceState> = {}): SourceState {
  return {
    cluster: "prod",
    kind: "pulsar",
    pollIntervalMs: 5_000,
    lastPollSeconds: NOW - 2,
    lastPollErrors: 0,
    lastPollDurationMs: 250,
    pollerEpoch: 3,
    heartbeatSeconds: NOW - 1,
    staleResources: 0,
    ...overrides,
  };
}

function snapshot(overrides: Partial<MetricSnapshot> = {}): MetricSnapshot {
  return {
    nowSeconds: NOW,
    holders: [
      { cluster: "prod", kind: "PULSAR_SUBSCRIPTION_PARTITION", resource: "persistent://t/ns/orders|billing|0", holder: "w1" },
      { cluster: "prod", kind: "REDIS_LOCK", resource: 'lock:"odd"\\name', holder: "pod-7" },
    ],
    resources: [
      { cluster: "prod", kind: "PULSAR_SUBSCRIPTION_PARTITION", state: "held", count: 1 },
      { cluster: "prod", kind: "PULSAR_SUBSCRIPTION_PARTITION", state: "free", count: 2 },
      { cluster: "prod", kind: "PULSAR_SUBSCRIPTION_PARTITION", state: "stale", count: 0 },
    ],
    changes: [
      { cluster: "prod", kind: "HOLDER_CHANGED", cause: "CLIENT", count: 5, expired: 0 },
      { cluster: "prod", kind: "HOLDER_LOST", cause: "CLIENT", count: 3, expired: 2 },
      { cluster: "prod", kind: "HOLDER_CHANGED", cause: "BROKER", count: 1, expired: 1 },
    ],
    sources: [source()],
    services: [
      { service: "orders", isInsideDeployment: true, events: 100, violations: 4 },
      { service: "orders", isInsideDeployment: false, events: 900, violations: 1 },
    ],
    deadLetters: [{ source: "persistent://t/ns/ingest", count: 2 }],
    maxResourceSeries: 20_000,
    ...overrides,
  };
}

async function render(value: MetricSnapshot): Promise<string[]> {
  return `${renderHolderInfo(value)}${await buildSnapshotRegistry(value).metrics()}`.split("\n");
}

describe("buildSnapshotRegistry", () => {
  it("names each holder in an info gauge, escaping label values as the exposition format requires", async () => {
    const lines = await render(snapshot());
    expect(lines).toContain(
      'baton_resource_holder_info{cluster="prod",kind="PULSAR_SUBSCRIPTION_PARTITION",resource="persistent://t/ns/orders|billing|0",holder="w1"} 1',
    );
    expect(lines).toContain('baton_resource_holder_info{cluster="prod",kind="REDIS_LOCK",resource="lock:\\"odd\\"\\\\name",holder="pod-7"} 1');
    expect(lines).toContain("baton_metrics_resource_series_dropped 0");
    expect(lines).toContain("# TYPE baton_resource_holder_info gauge");
  });

  it("escapes a newline in a label value, and renders what prom-client renders for the same gauge", async () => {
    const { Gauge, Registry } = await import("prom-client");
    const holders = [...snapshot().holders!, { cluster: "prod", kind: "ZOOKEEPER_LOCK", resource: "/locks/a", holder: "pod\nb" }];
    const registry = new Registry();
    const gauge = new Gauge({
      name: "baton_resource_holder_info",
      help: "1 for each held resource, with its current holder as a label (absent while nobody holds it).",
      labelNames: ["cluster", "kind", "resource", "holder"],
      registers: [registry],
    });
    for (const row of holders) gauge.set(row, 1);
    expect(renderHolderInfo({ holders })).toBe(await registry.metrics());
  });

  it("leaves the per-resource series out and says so when the holders were dropped", async () => {
    const lines = await render(snapshot({ holders: null }));
    expect(lines.filter((line) => line.startsWith("baton_resource_holder_info{"))).toEqual([]);
    expect(lines).toContain("baton_metrics_resource_series_dropped 1");
    expect(lines).toContain('baton_resources{cluster="prod",kind="PULSAR_SUBSCRIPTION_PARTITION",state="free"} 2');
  });

  it("reports holder changes by kind and cause, and sums expirations per cluster, as counters", async () => {
    const lines = await render(snapshot());
    expect(lines).toContain("# TYPE baton_holder_changes_total counter");
    expect(lines).toContain('baton_holder_changes_total{cluster="prod",kind="HOLDER_CHANGED",cause="CLIENT"} 5');
    expect(lines).toContain('baton_holder_changes_total{cluster="prod",kind="HOLDER_CHANGED",cause="BROKER"} 1');
    expect(lines).toContain('baton_hold_expirations_total{cluster="prod"} 3');
  });

  it("splits events and violations by service and inside/outside a deployment", async () => {
    const lines = await render(snapshot());
    expect(lines).toContain('baton_violations_total{service="orders",deployment="inside"} 4');
    expect(lines).toContain('baton_violations_total{service="orders",deployment="outside"} 1');
    expect(lines).toContain('baton_counter_events_total{service="orders",deployment="outside"} 900');
    expect(lines).toContain('baton_ingest_dead_letters_total{source="persistent://t/ns/ingest"} 2');
  });

  it("gives each source its up state, last poll and lease, and leaves out what is not known yet", async () => {
    const lines = await render(
      snapshot({ sources: [source(), source({ cluster: "new", lastPollSeconds: null, lastPollDurationMs: null, pollerEpoch: null, heartbeatSeconds: null })] }),
    );
    expect(lines).toContain('baton_source_up{cluster="prod",kind="pulsar"} 1');
    expect(lines).toContain('baton_source_up{cluster="new",kind="pulsar"} 0');
    expect(lines).toContain('baton_source_last_poll_duration_seconds{cluster="prod",kind="pulsar"} 0.25');
    expect(lines).toContain('baton_source_poller_epoch{cluster="prod",kind="pulsar"} 3');
    expect(lines.some((line) => line.startsWith('baton_source_poller_epoch{cluster="new"'))).toBe(false);
  });
});

describe("isSourceUp", () => {
  it.each([
    ["a recent clean poll", source(), true],
    ["no poll yet", source({ lastPollSeconds: null }), false],
    ["errors in the last poll", source({ lastPollErrors: 1 }), false],
    ["the last poll 31 s ago at a 5 s interval (window 30 s)", source({ lastPollSeconds: NOW - 31 }), false],
    ["the last poll 29 s ago at a 5 s interval", source({ lastPollSeconds: NOW - 29 }), true],
    ["the last poll 170 s ago at a 60 s interval (window 180 s)", source({ pollIntervalMs: 60_000, lastPollSeconds: NOW - 170 }), true],
    ["the last poll 190 s ago at a 60 s interval", source({ pollIntervalMs: 60_000, lastPollSeconds: NOW - 190 }), false],
  ])("%s", (_, value, expected) => {
    expect(isSourceUp(value, NOW)).toBe(expected);
  });
});
