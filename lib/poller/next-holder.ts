// Who takes over next, as every source kind answers it, and how a holder change scores against
// the answer made just before it. Client-safe and pure: the board computes the answer when it
// reads a resource (measured cheap: tests/bench/next-in-line.ts), the poller when it detects a
// change, from the state it held before the change: the same inputs, so the same answer the
// board showed.

import type { ChangeKind, ChangePrediction } from "@/lib/poller/change";
import type { CannotComputeReason, RuleResult } from "@/lib/poller/contract/rule-result";

export type NextHolderReason =
  | CannotComputeReason
  /** The lock has no queue (Redis SET NX, Redlock, DynamoDB): whoever retries first takes it. */
  | "no-queue";

/**
 * The predicted next holder. `reason` is null when it was computed: then `holder` is the next
 * holder, or null when nobody would be left. Otherwise `holder` is null and `reason`/`detail`
 * say why it cannot be computed: never a guess.
 */
export type NextHolder = { holder: string | null; reason: NextHolderReason | null; detail: string | null };

/**
 * A lock kind's rule for who takes over if the holder lets go, from the last observation's queue
 * (`waiters`, in queue order) and its own details: each kind's client-safe description has one
 * (lib/sources/<kind>/<kind>-description.ts); the board and the poller are handed it.
 */
export type PredictNextHolder = (waiters: readonly string[], details: Record<string, unknown>) => NextHolder;

export function nextHolderOf(result: RuleResult<string | null>): NextHolder {
  return result.ok ? { holder: result.value, reason: null, detail: null } : { holder: null, reason: result.reason, detail: result.detail };
}

export function cannotPredict(reason: NextHolderReason, detail: string): NextHolder {
  return { holder: null, reason, detail };
}

/**
 * How `toHolder` (the holder observed after the change) compares with `predicted` (made from
 * the state before it). Only a holder change or loss is scored; the caller decides first whether
 * the change is one the prediction covers (the holder left, and nothing else moved).
 */
export function scorePrediction(kind: ChangeKind, predicted: NextHolder, toHolder: string | null): ChangePrediction | null {
  if (kind !== "HOLDER_CHANGED" && kind !== "HOLDER_LOST") return null;
  if (predicted.reason !== null) return { predictedHolder: null, outcome: "NOT_PREDICTED" };
  return { predictedHolder: predicted.holder, outcome: predicted.holder === toHolder ? "CONFIRMED" : "WRONG" };
}
