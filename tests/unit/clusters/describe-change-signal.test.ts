import { describe, expect, it } from "vitest";

import { describeChangeSignal } from "@/lib/clusters/describe-change-signal";
import type { ConsumerSignalStatus } from "@/lib/sources/pulsar/consumer-signal/consumer-signal-status";

const broker = { url: "http://10.0.0.5:8080", lastScrapeAt: "2026-01-02T03:04:05.000Z", bytes: 2 * 1024 * 1024, durationMs: 400, consumerCount: 20_000, error: null };

function status(overrides: Partial<ConsumerSignalStatus>): ConsumerSignalStatus {
  return { mode: "on", intervalMs: 1000, brokers: [broker], brokerListError: null, repollCount: 7, lastSignalAt: null, at: "2026-01-02T03:04:06.000Z", ...overrides };
}

const base = { setting: "auto" as const, intervalMs: 1000, requestsPerSecond: 50, lastCycleMs: 20_000 };

describe("describeChangeSignal", () => {
  it("says what it scraped and how many re-polls it triggered", () => {
    const facts = describeChangeSignal({ ...base, status: status({}) });
    expect(facts.state).toBe("on");
    expect(facts.headline).toBe("on: 1 broker scraped every 1.0 s, 7 re-polls triggered");
    expect(facts.details).toEqual(["http://10.0.0.5:8080: 2.0 MB read in 400 ms, 20000 consumers, at 2026-01-02T03:04:05.000Z"]);
  });

  it("says what enabling the broker setting would buy, from the cluster's own cycle and budget", () => {
    const facts = describeChangeSignal({ ...base, status: status({ mode: "not-exposed", repollCount: 0 }) });
    expect(facts.state).toBe("not-exposed");
    // 1000 ms interval + 400 ms scrape + 20 ms for one request at 50/s, against the 20 s cycle.
    expect(facts.details[0]).toContain("within about 1.4 s");
    expect(facts.details[0]).toContain("instead of up to one full cycle (20.0 s now)");
  });

  it("tells a disabled signal, a failing scrape and a missing poller apart", () => {
    expect(describeChangeSignal({ ...base, setting: "off", status: null }).state).toBe("disabled");
    const failing = describeChangeSignal({ ...base, status: status({ mode: "starting", brokers: [{ ...broker, error: "cut after 10 bytes" }] }) });
    expect(failing.state).toBe("starting");
    expect(failing.details[0]).toContain("last scrape failed (cut after 10 bytes)");
    expect(describeChangeSignal({ ...base, status: null }).state).toBe("no-poller");
  });
});
