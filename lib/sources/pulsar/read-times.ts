// When each topic partition was last read by the sweep and by a re-poll, so that an older read
// never overwrites a newer one already applied: the sweep's read of a topic may come back after a
// re-poll of it (the sweep queued it earlier), and a re-poll may be older than the sweep's read.

import type { TopicFetchResult } from "@/lib/sources/pulsar/fetch-topic-observations";

type OkResult = TopicFetchResult & { isOk: true };

/** The partitions a read answered for: its own list, every partition, or -1 for a non-partitioned topic. */
function partitionsOf(result: OkResult): number[] {
  if (result.onlyPartitions) return result.onlyPartitions;
  if (!result.topic.isPartitioned) return [-1];
  return Array.from({ length: result.partitionCount }, (_, p) => p);
}

export class ReadTimes {
  /** topic -> partition -> ms of the newest applied re-poll; emptied by each applied sweep. */
  readonly #repolled = new Map<string, Map<number, number>>();
  /** topic -> ms of the last applied sweep's read. */
  readonly #swept = new Map<string, number>();

  /** The sweep's results without what a re-poll has read since (whole topics, or partitions). */
  dropRepolledSince(results: TopicFetchResult[]): TopicFetchResult[] {
    if (this.#repolled.size === 0) return results;
    const kept: TopicFetchResult[] = [];
    for (const result of results) {
      const repolled = this.#repolled.get(result.topic.fullName);
      const at = Date.parse(result.observedAt);
      const newer = repolled ? [...repolled].filter(([, ms]) => ms > at).map(([p]) => p) : [];
      if (newer.length === 0) kept.push(result);
      else if (result.isOk && result.topic.isPartitioned) {
        const dropped = new Set(newer);
        kept.push({
          ...result,
          observations: result.observations.filter((o) => !dropped.has(o.partition)),
          missingPartitions: result.missingPartitions.filter((p) => !dropped.has(p)),
          onlyPartitions: partitionsOf(result).filter((p) => !dropped.has(p)),
        });
      }
      // A failed read, or a non-partitioned topic's, older than its re-poll: the re-poll stands.
    }
    return kept;
  }

  recordSweep(results: TopicFetchResult[]): void {
    this.#repolled.clear();
    for (const result of results) if (result.isOk) this.#swept.set(result.topic.fullName, Date.parse(result.observedAt));
  }

  /** Re-polls read after both the last applied sweep's read and any re-poll applied of the same partitions. */
  keepNewerThanApplied(results: OkResult[]): OkResult[] {
    return results.filter((result) => {
      const at = Date.parse(result.observedAt);
      if ((this.#swept.get(result.topic.fullName) ?? Number.NEGATIVE_INFINITY) > at) return false;
      const repolled = this.#repolled.get(result.topic.fullName);
      return !repolled || partitionsOf(result).every((p) => (repolled.get(p) ?? Number.NEGATIVE_INFINITY) <= at);
    });
  }

  recordRepolls(results: OkResult[]): void {
    for (const result of results) {
      let repolled = this.#repolled.get(result.topic.fullName);
      if (!repolled) this.#repolled.set(result.topic.fullName, (repolled = new Map()));
      const at = Date.parse(result.observedAt);
      for (const p of partitionsOf(result)) repolled.set(p, Math.max(at, repolled.get(p) ?? at));
    }
  }
}
