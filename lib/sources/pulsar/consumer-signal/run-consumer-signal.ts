import "server-only";

import { sleep } from "@/lib/sleep";
import type { AdminTarget } from "@/lib/pulsar/transport";
import type { BrokerScrapeStatus, ConsumerSignalStatus } from "@/lib/sources/pulsar/consumer-signal/consumer-signal-status";
import { diffConsumerSnapshots } from "@/lib/sources/pulsar/consumer-signal/diff-consumer-snapshots";
import { listBrokerUrls } from "@/lib/sources/pulsar/consumer-signal/list-brokers";
import type { ConsumerSnapshot } from "@/lib/sources/pulsar/consumer-signal/parse-consumer-metrics";
import { scrapeConsumerMetrics } from "@/lib/sources/pulsar/consumer-signal/scrape-consumer-metrics";
import { rememberRound, scrapePeriodMs } from "@/lib/sources/pulsar/consumer-signal/scrape-period";

/**
 * A scrape of a large broker takes seconds (4-5 s for 10,000 partitions on a loaded 2-core box):
 * a timeout near that fails most scrapes, and a failed scrape finds no change. A slow scrape only
 * delays the signal; the cycle goes on regardless.
 */
const SCRAPE_TIMEOUT_MS = 30_000;

export type ConsumerSignalOptions = {
  target: AdminTarget;
  intervalMs: number;
  /** How often the broker list is read again (brokers join and leave). */
  brokerRefreshMs: number;
  /** While no broker exposes consumer-level series, look again this often only. */
  notExposedIntervalMs: number;
  /** Reads the broker list within the cluster's admin request budget. */
  runAdmin<T>(task: () => Promise<T>): Promise<T>;
  /** Topic partitions (full names) whose consumers changed since the last scrape. */
  onChanged(topics: Set<string>): void;
  log?: (line: string) => void;
};

export type ConsumerSignal = {
  /** Settles when the first round of scrapes (the baseline) has answered or failed. */
  firstRound: Promise<void>;
  status(): ConsumerSignalStatus;
  /** Counts topics re-polled because of the signal (the cycles decide what to re-poll). */
  countRepolls(count: number): void;
  stop(): Promise<void>;
};

/**
 * Scrapes every broker's /metrics/ each interval and reports the topic partitions whose consumer
 * set (name and consumer id per subscription) changed between two successful scrapes of the same
 * broker. The first scrape of a broker is the baseline; a failed or cut scrape keeps the last good
 * one, so changes in between are reported by the next good scrape. Nothing here ever changes a
 * resource's state: the signal only makes reads come sooner.
 */
export function startConsumerSignal(options: ConsumerSignalOptions): ConsumerSignal {
  const controller = new AbortController();
  const snapshots = new Map<string, ConsumerSnapshot>();
  const brokers = new Map<string, BrokerScrapeStatus>();
  let brokerListError: string | null = null;
  let brokersReadAt = Number.NEGATIVE_INFINITY;
  let isExposed: boolean | null = null;
  let repollCount = 0;
  let lastSignalAt: string | null = null;
  let recentRoundsMs: number[] = [];
  let periodMs: number | null = null;

  async function refreshBrokers(): Promise<void> {
    try {
      const urls = await options.runAdmin(() => listBrokerUrls(options.target));
      for (const url of [...brokers.keys()]) {
        if (urls.includes(url)) continue;
        brokers.delete(url);
        snapshots.delete(url);
      }
      for (const url of urls)
        if (!brokers.has(url)) brokers.set(url, { url, lastScrapeAt: null, bytes: null, durationMs: null, consumerCount: null, error: null });
      brokerListError = null;
      brokersReadAt = Date.now();
    } catch (error) {
      brokerListError = (error as Error).message;
    }
  }

  async function scrapeBroker(broker: BrokerScrapeStatus, changed: Set<string>): Promise<boolean | null> {
    try {
      const scrape = await scrapeConsumerMetrics(options.target, broker.url, Math.max(options.target.requestTimeoutMs, SCRAPE_TIMEOUT_MS));
      Object.assign(broker, {
        lastScrapeAt: new Date().toISOString(),
        bytes: scrape.bytes,
        durationMs: Math.round(scrape.durationMs),
        consumerCount: scrape.consumerSeriesCount,
        error: null,
      });
      // Consumers connected but none listed: the broker does not expose consumer-level series.
      const isBrokerExposing = scrape.consumerSeriesCount > 0 || scrape.topicConsumerCount === 0;
      if (!isBrokerExposing) {
        snapshots.delete(broker.url);
        return false;
      }
      const previous = snapshots.get(broker.url);
      if (previous) for (const topic of diffConsumerSnapshots(previous, scrape.consumers)) changed.add(topic);
      snapshots.set(broker.url, scrape.consumers);
      return scrape.consumerSeriesCount > 0 ? true : null;
    } catch (error) {
      broker.error = (error as Error).message;
      return null;
    }
  }

  let endFirstRound: () => void = () => {};
  const firstRound = new Promise<void>((resolve) => (endFirstRound = resolve));

  async function loop(): Promise<void> {
    while (!controller.signal.aborted) {
      const started = Date.now();
      if (brokers.size === 0 || started - brokersReadAt >= options.brokerRefreshMs) await refreshBrokers();
      const changed = new Set<string>();
      const exposing = await Promise.all([...brokers.values()].map((broker) => scrapeBroker(broker, changed)));
      if (exposing.includes(true)) isExposed = true;
      else if (exposing.includes(false)) isExposed = false;
      if (changed.size > 0 && !controller.signal.aborted) {
        lastSignalAt = new Date().toISOString();
        options.log?.(`consumers changed on ${changed.size} topic partitions (scrape round ${Date.now() - started} ms)`);
        options.onChanged(changed);
      }
      endFirstRound();
      // A broker spends at most half of its time rendering for Baton: at 10,000 partitions one
      // scrape is about 190 MB and 2 s of the broker's CPU (docs/kinds/pulsar.md), so slow scrapes stretch the
      // interval (by the mean of the latest rounds: scrape-period.ts).
      recentRoundsMs = rememberRound(recentRoundsMs, Date.now() - started);
      periodMs = isExposed === false ? options.notExposedIntervalMs : scrapePeriodMs(recentRoundsMs, options.intervalMs);
      await sleep(started + periodMs - Date.now(), controller.signal);
    }
  }

  const running = loop()
    .catch((error: unknown) => options.log?.(`consumer signal stopped: ${(error as Error).message}`))
    .finally(endFirstRound);

  return {
    firstRound,
    status: () => ({
      mode: isExposed === null ? "starting" : isExposed ? "on" : "not-exposed",
      intervalMs: options.intervalMs,
      periodMs: periodMs === null ? null : Math.round(periodMs),
      brokers: [...brokers.values()].map((b) => ({ ...b })),
      brokerListError,
      repollCount,
      lastSignalAt,
      at: new Date().toISOString(),
    }),
    countRepolls(count) {
      repollCount += count;
    },
    async stop() {
      controller.abort();
      await running;
    },
  };
}
