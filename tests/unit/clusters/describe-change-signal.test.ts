import { describe, expect, it } from "vitest";

import { describeChangeSignal } from "@/lib/clusters/describe-change-signal";
import type { ConsumerSignalStatus } from "@/lib/sources/pulsar/consumer-signal/consumer-signal-status";

const broker = {
  url: "http://10.0.0.5:8080",
  lastScrapeAt: "2026-01-02T03:04:05.000Z",
  bytes: 2 * 1024 * 1024,
  durationMs: 400,
  consumerCount: 20_000,
  error: null,
};

function status(overrides: Partial<ConsumerSignalStatus>): ConsumerSignalStatus {
  return {
    mode: "on",
    intervalMs: 1000,
    periodMs: 1000,
    brokers: [broker],
    brokerListError: null,
    repollCount: 7,
    lastSignalAt: null,
    at: "2026-01-02T03:04:06.000Z",
    ...overrides,
  };
}

const base = { setting: "auto" as const, intervalMs: 1000, requestsPerSecond: 50, lastCycleMs: 20_000 };

describe("describeChangeSignal", () => {
  it("says what it scraped and how many re-polls it triggered", () => {
    const facts = describeChangeSignal({ ...base, status: status({}) });
    expect(facts.state).toBe("on");
    expect(facts.headline).toBe("on: 1 broker scraped every 1.0 s, 7 re-polls triggered");
    expect(facts.details).toEqual([
      // 1000 ms period + 400 ms scrape + 20 ms for one request at 50/s.
      "A consumer that joins, leaves or dies is re-polled within about 1.4 s: one period of 1.0 s + one scrape + one request at 50/s.",
      "http://10.0.0.5:8080: 2.0 MB read in 400 ms, 20000 consumers, at 2026-01-02T03:04:05.000Z",
    ]);
  });

  it("says how often it really scrapes when slow scrapes stretch the period, and what that makes the latency", () => {
    const slow = { ...broker, bytes: 9.4 * 1024 * 1024, durationMs: 2_400 };
    const facts = describeChangeSignal({ ...base, status: status({ brokers: [slow], periodMs: 4_760 }) });
    expect(facts.headline).toBe("on: 1 broker scraped every 4.8 s, 7 re-polls triggered");
    // 4,760 ms period + 2,400 ms scrape + 20 ms.
    expect(facts.details[0]).toBe(
      "A consumer that joins, leaves or dies is re-polled within about 7.2 s: one period of 4.8 s (1.0 s configured, stretched so a broker renders for Baton at most half of the time: the last scrape took 2.4 s) + one scrape + one request at 50/s.",
    );
  });

  it("reckons the period from the last scrape for a status stored before the period was kept", () => {
    const stored = status({ brokers: [{ ...broker, durationMs: 2_000 }] });
    delete stored.periodMs;
    const facts = describeChangeSignal({ ...base, status: stored });
    expect(facts.headline).toBe("on: 1 broker scraped every 4.0 s, 7 re-polls triggered");
    expect(facts.details[0]).toContain("within about 6.0 s");
  });

  it("says what enabling the broker setting would buy, from the cluster's own cycle and budget", () => {
    const facts = describeChangeSignal({ ...base, status: status({ mode: "not-exposed", repollCount: 0 }) });
    expect(facts.state).toBe("not-exposed");
    // 1000 ms interval + 400 ms scrape + 20 ms for one request at 50/s, against the 20 s cycle.
    expect(facts.details[0]).toContain("within about 1.4 s");
    expect(facts.details[0]).toContain("instead of up to one full cycle (20.0 s now)");
  });

  it("reckons what the signal would buy from the scrape's length, not from the slow re-check of a broker that does not expose consumers", () => {
    const slow = { ...broker, durationMs: 2_500 };
    const facts = describeChangeSignal({ ...base, status: status({ mode: "not-exposed", periodMs: 60_000, brokers: [slow] }) });
    // The period a 2.5 s scrape would get (5 s), + 2.5 s + 20 ms.
    expect(facts.details[0]).toContain(
      "within about 7.5 s (a scrape every 5.0 s (1.0 s configured, stretched so a broker renders for Baton at most half of the time: the last scrape took 2.5 s)",
    );
  });

  it("tells a disabled signal, a failing scrape and a missing poller apart", () => {
    expect(describeChangeSignal({ ...base, setting: "off", status: null }).state).toBe("disabled");
    const failing = describeChangeSignal({ ...base, status: status({ mode: "starting", brokers: [{ ...broker, error: "cut after 10 bytes" }] }) });
    expect(failing.state).toBe("starting");
    expect(failing.details[0]).toContain("last scrape failed (cut after 10 bytes)");
    expect(describeChangeSignal({ ...base, status: null }).state).toBe("no-poller");
  });
});
