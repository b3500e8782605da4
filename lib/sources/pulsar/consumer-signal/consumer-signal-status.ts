// What the consumer change signal of one Pulsar cluster is doing, as the worker stores it on the
// cluster row and the Clusters page shows it. Plain JSON.

export type BrokerScrapeStatus = {
  /** The broker's web address, e.g. http://10.0.0.5:8080. */
  url: string;
  lastScrapeAt: string | null;
  /** Size and duration of the last successful scrape. */
  bytes: number | null;
  durationMs: number | null;
  /** Consumers the last successful scrape listed. */
  consumerCount: number | null;
  /** Why the last scrape failed (null when it succeeded). */
  error: string | null;
};

export type ConsumerSignalStatus = {
  /**
   * "on": brokers list their consumers and changes trigger re-polls. "not-exposed": the brokers
   * do not set exposeConsumerLevelMetricsInPrometheus (polls only). "disabled": the cluster's
   * consumerSignal is "off". "starting": no scrape has answered yet.
   */
  mode: "on" | "not-exposed" | "disabled" | "starting";
  intervalMs: number;
  /**
   * The time between the starts of two scrape rounds now: intervalMs, or longer while scrapes are
   * slow (a broker renders for Baton at most half of the time: scrape-period.ts). Null before the
   * first round; absent from statuses stored before it was kept.
   */
  periodMs?: number | null;
  brokers: BrokerScrapeStatus[];
  /** Why the broker list could not be read, when it could not. */
  brokerListError: string | null;
  /** Topics re-polled ahead of the cycle because a scrape showed their consumers changed. */
  repollCount: number;
  lastSignalAt: string | null;
  /** When this status was taken. */
  at: string;
};

export function disabledSignalStatus(intervalMs: number): ConsumerSignalStatus {
  return { mode: "disabled", intervalMs, periodMs: null, brokers: [], brokerListError: null, repollCount: 0, lastSignalAt: null, at: new Date().toISOString() };
}
