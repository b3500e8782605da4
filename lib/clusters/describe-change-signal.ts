// The consumer change signal of a Pulsar cluster in words, for the Clusters page: whether it runs,
// what it read last, and, when the brokers do not expose consumer-level metrics, what turning
// them on would buy, from this cluster's own figures. Pure (client-safe).

import type { ConsumerSignalStatus } from "@/lib/sources/pulsar/consumer-signal/consumer-signal-status";
import { scrapePeriodMs } from "@/lib/sources/pulsar/consumer-signal/scrape-period";

export type ChangeSignalFacts = {
  state: "on" | "not-exposed" | "disabled" | "starting" | "no-poller";
  headline: string;
  details: string[];
};

export type ChangeSignalInput = {
  status: ConsumerSignalStatus | null;
  /** The cluster's consumerSignal setting and interval. */
  setting: "auto" | "off";
  intervalMs: number;
  requestsPerSecond: number;
  /** The last full cycle's length (start to start), when one is known. */
  lastCycleMs: number | null;
};

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The time between two scrape rounds: what the running signal reports, or, before it has one (or
 * while it only checks now and then whether brokers expose consumers), what it would be for
 * scrapes of this length: a broker renders for Baton at most half of the time.
 */
function periodOf(input: ChangeSignalInput, scrapeMs: number | null): number {
  const reported = input.status?.mode === "on" ? input.status.periodMs : null;
  return reported ?? scrapePeriodMs(scrapeMs === null ? [] : [scrapeMs], input.intervalMs);
}

/** Why the period is longer than configured, when it is: "" or " (1.0 s configured, ...)". */
function whyLonger(input: ChangeSignalInput, periodMs: number, scrapeMs: number | null): string {
  if (periodMs <= input.intervalMs) return "";
  const scrapes = scrapeMs === null ? "" : `: the last scrape took ${seconds(scrapeMs)}`;
  return ` (${seconds(input.intervalMs)} configured, stretched so a broker renders for Baton at most half of the time${scrapes})`;
}

/** How soon a consumer change is re-polled with the signal: at most one period, one scrape and one request. */
function signalLatencyMs(input: ChangeSignalInput, periodMs: number, scrapeMs: number | null): number {
  return periodMs + (scrapeMs ?? 0) + 1000 / input.requestsPerSecond;
}

/**
 * What enabling the signal buys: a consumer change is re-polled within about one scrape
 * period, one scrape and one request of the budget, instead of waiting up to a full cycle.
 */
export function describeGain(input: ChangeSignalInput, scrapeMs: number | null): string {
  const periodMs = periodOf(input, scrapeMs);
  const today = input.lastCycleMs === null ? "up to one full cycle" : `up to one full cycle (${seconds(input.lastCycleMs)} now)`;
  return `With exposeConsumerLevelMetricsInPrometheus=true on the brokers, a consumer that joins, leaves or dies would be re-polled within about ${seconds(signalLatencyMs(input, periodMs, scrapeMs))} (a scrape every ${seconds(periodMs)}${whyLonger(input, periodMs, scrapeMs)} + one scrape + one request at ${input.requestsPerSecond}/s) instead of ${today}.`;
}

/** With the signal on: how soon a consumer change is re-polled, and why not sooner. */
function describeLatency(input: ChangeSignalInput, periodMs: number, scrapeMs: number | null): string {
  return `A consumer that joins, leaves or dies is re-polled within about ${seconds(signalLatencyMs(input, periodMs, scrapeMs))}: one period of ${seconds(periodMs)}${whyLonger(input, periodMs, scrapeMs)} + one scrape + one request at ${input.requestsPerSecond}/s.`;
}

export function describeChangeSignal(input: ChangeSignalInput): ChangeSignalFacts {
  const { status } = input;
  if (input.setting === "off" || status?.mode === "disabled") {
    return { state: "disabled", headline: 'off (consumerSignal: "off")', details: [describeGain(input, null)] };
  }
  if (!status) return { state: "no-poller", headline: "not started (no poller has run)", details: [] };
  const scraped = status.brokers.filter((b) => b.durationMs !== null);
  const scrapeMs = scraped.length > 0 ? Math.max(...scraped.map((b) => b.durationMs!)) : null;
  const details: string[] = [];
  for (const broker of status.brokers) {
    details.push(
      broker.error
        ? `${broker.url}: last scrape failed (${broker.error})${broker.lastScrapeAt ? `; last good ${broker.lastScrapeAt}` : ""}`
        : broker.lastScrapeAt
          ? `${broker.url}: ${size(broker.bytes ?? 0)} read in ${seconds(broker.durationMs ?? 0)}, ${broker.consumerCount ?? 0} consumers, at ${broker.lastScrapeAt}`
          : `${broker.url}: not scraped yet`,
    );
  }
  if (status.brokerListError) details.push(`broker list unavailable: ${status.brokerListError}`);
  if (status.mode === "not-exposed") {
    return { state: "not-exposed", headline: "brokers do not list their consumers: polling only", details: [describeGain(input, scrapeMs), ...details] };
  }
  if (status.mode === "starting") return { state: "starting", headline: "no scrape has answered yet: polling only", details };
  const periodMs = periodOf(input, scrapeMs);
  return {
    state: "on",
    headline: `on: ${status.brokers.length} broker${status.brokers.length === 1 ? "" : "s"} scraped every ${seconds(periodMs)}, ${status.repollCount} re-poll${status.repollCount === 1 ? "" : "s"} triggered${status.lastSignalAt ? ` (last ${status.lastSignalAt})` : ""}`,
    details: [describeLatency(input, periodMs, scrapeMs), ...details],
  };
}
