// A holder change as every source kind records it (a row of holder_change). Client-safe types.

export type ChangeKind = "HOLDER_CHANGED" | "HOLDER_LOST" | "HOLDER_APPEARED" | "HIDDEN_FLAP" | "REPLAYED_FLAP" | "CONSUMERS_CHANGED" | "RANGES_MOVED";
export type ChangeCause = "CLIENT" | "BROKER" | "UNKNOWN";
/** How the previous hold ended, for the kinds that can tell (locks). */
export type HoldEnding = "RELEASED" | "EXPIRED" | "TAKEN_OVER";

export type PredictionOutcome = "CONFIRMED" | "WRONG" | "NOT_PREDICTED";

/** What a change records of the prediction: the predicted holder and how the change compares. */
export type ChangePrediction = { predictedHolder: string | null; outcome: PredictionOutcome };

export type DetectedChange = {
  resourceKey: string;
  kind: ChangeKind;
  cause: ChangeCause;
  fromHolder: string | null;
  toHolder: string | null;
  /** The change happened in (oldSeenAt, newSeenAt]. */
  oldSeenAt: string | null;
  newSeenAt: string;
  isDuringGap: boolean;
  details: Record<string, unknown>;
  /** Locks: how the previous hold ended; absent for Pulsar. */
  ending?: HoldEnding | null;
  /** The next holder predicted from the state before the change, and how the change compares; absent when not scored. */
  prediction?: ChangePrediction | null;
};
