// The answer of a broker rule that Baton recomputes (an owner, an active consumer, a partition):
// either the value, or a plain "cannot be computed" with the reason. Never a guess. Client-safe.

export type CannotComputeReason =
  /** The subscription type has no rule for this question (Shared has no owner, Exclusive no standby). */
  | "no-owner-rule"
  /** The message carried no key: the broker then hashes producerName-sequenceId, which Baton does not see. */
  | "no-key"
  /** The key's bytes as sent are not known (it was not valid UTF-8, or has lone surrogates). */
  | "key-not-utf8"
  /** The stats carry no hash ranges for this subscription. */
  | "no-ranges"
  /** The ranges are not the shape this broker line reports (e.g. 3.0 ranges on a 4.2 broker). */
  | "ranges-not-of-this-line"
  /** More than one consumer's range holds the hash. */
  | "overlapping-ranges"
  /** The rule needs a consumer's priority level, which ConsumerStats does not carry. */
  | "priority-level-unknown"
  /** A consumer has no name in the stats (apache/pulsar#23671), and the rule sorts or hashes names. */
  | "consumer-name-unknown"
  /** The broker hashes the name with the JVM's default charset, which Baton cannot know for non-ASCII names. */
  | "consumer-name-charset"
  /** The rule picks a different consumer than the broker reports: a setting or input differs. */
  | "rule-disagrees-with-broker"
  /** The topic is not partitioned, or the partition index is outside the partition count. */
  | "not-partitioned"
  /** The consumer named as leaving is not among the consumers. */
  | "unknown-consumer";

export type Computed<T> = { ok: true; value: T };
export type CannotCompute = { ok: false; reason: CannotComputeReason; detail: string };
export type RuleResult<T> = Computed<T> | CannotCompute;

export function computed<T>(value: T): Computed<T> {
  return { ok: true, value };
}

export function cannotCompute(reason: CannotComputeReason, detail: string): CannotCompute {
  return { ok: false, reason, detail };
}
