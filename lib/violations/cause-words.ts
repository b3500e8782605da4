// The violation causes in words: their names in precedence order, labels, meanings, and which
// ones call for action. Client-safe; the classification itself is violation-cause.ts.

/** Every cause, in precedence order. */
export const VIOLATION_CAUSES = ["rollout", "two-hands", "holder-stalled", "worker-stalled", "failover-overlap", "unexplained"] as const;
export type ViolationCause = (typeof VIOLATION_CAUSES)[number];
export type CauseCounts = Record<ViolationCause, number>;

export const CAUSE_LABEL: Record<ViolationCause, string> = {
  rollout: "Rollout",
  "two-hands": "Two runs at once, seen by the lock's own records",
  "holder-stalled": "Holder stalled past its lock's TTL",
  "worker-stalled": "Worker stalled while another took its key",
  "failover-overlap": "Failover overlap",
  unexplained: "Unexplained",
};

/** The cause's name inside a sentence: its label with a small first letter ("holder stalled past its lock's TTL"). */
export function causePhrase(cause: ViolationCause): string {
  const label = CAUSE_LABEL[cause];
  return label.charAt(0).toLowerCase() + label.slice(1);
}

/** The order causes are judged in, as one phrase: "rollout, then …, then failover overlap; unexplained otherwise". */
export function causeOrderPhrase(): string {
  const judged = VIOLATION_CAUSES.filter((cause) => cause !== "unexplained");
  return `${judged.map(causePhrase).join(", then ")}; ${causePhrase("unexplained")} otherwise`;
}

/** What each cause means, in one clause: legends, docs/http-api.md and the OpenAPI document. */
export const CAUSE_MEANING: Record<ViolationCause, string> = {
  "two-hands":
    "the lock's own records showed two holders running at once where the lock is exclusive (a Quartz job executing on two nodes, a ShedLock job started again while an overrun of it still ran), recorded by Baton's poller",
  rollout: "inside a deployment window of its own service",
  "holder-stalled": "the lock it ran under expired while held around it: the holder stalled past the TTL and kept working",
  "worker-stalled": "a worker that entered before the key's owner moved stayed inside while the key went to another worker",
  "failover-overlap": "the key's partition changed leader (or its lock changed hands) around it, with no stall seen",
  unexplained: "no deployment, stall or handover around it: investigate first",
};

/** Causes that mean an incident to act on, as against expected noise. */
export const CAUSES_TO_ACT_ON: readonly ViolationCause[] = ["two-hands", "holder-stalled", "worker-stalled", "unexplained"];
