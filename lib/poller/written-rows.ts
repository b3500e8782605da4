// What this poller last wrote of each held_resource row, so that a cycle writes only the rows
// where something changed (row-changes.ts). Kept in memory by the poll loop as signatures (about
// 500 bytes a row, not a second copy of every state), seeded from the states it resumed
// from, and updated only after a save committed.

import type { HoldState } from "@/lib/poller/hold-state";
import {
  compareRowSignatures,
  flushIntervalMs,
  isMovingFiguresFlushDue,
  type RowSignature,
  signHoldRow,
  signSubscriptionPartitionRow,
} from "@/lib/poller/row-changes";
import type { CycleStates, StoredShape } from "@/lib/poller/source-cycles";
import type { ResourceState } from "@/lib/poller/contract/partition-state";

type AnyState = CycleStates["states"][number];
type Written = { signature: RowSignature; writtenAtMs: number };

/** The time a state speaks for: its observation, or its failure, or its disappearance. */
function timeOf(state: AnyState): number {
  const at = state.goneAt ?? (state.staleSince !== null ? state.lastErrorAt : state.lastObservedAt) ?? state.lastObservedAt;
  return at === null ? 0 : Date.parse(at);
}

export class WrittenRows {
  private readonly rows = new Map<string, Written>();
  /** Signatures made by select(), kept for remember(): each state is signed once per cycle. */
  private pending = new WeakMap<object, RowSignature>();
  private lastSweepAtMs: number | null = null;
  /** The length of the cluster's full cycles, from the last two full sweeps. */
  private cycleMs: number | null = null;

  /** `movingDetails`: the keys of the kind's hold details that are moving figures (StoredShape). */
  constructor(private readonly movingDetails: readonly string[] = []) {}

  /** The rows as loaded: each counts as written at the time it speaks for. */
  static from(saved: CycleStates, stored: StoredShape): WrittenRows {
    const written = new WrittenRows(stored.shape === "hold" ? (stored.movingDetails ?? []) : []);
    written.remember(saved);
    return written;
  }

  /**
   * The states whose rows must be written: new ones, changed ones, and those whose moving figures
   * are due. sweptAt: the time of this cycle when it is a full sweep (it measures the cycle length).
   */
  select(cycle: CycleStates, sweptAt: string | null = null): CycleStates {
    if (sweptAt !== null) {
      const atMs = Date.parse(sweptAt);
      if (this.lastSweepAtMs !== null && atMs > this.lastSweepAtMs) this.cycleMs = atMs - this.lastSweepAtMs;
      this.lastSweepAtMs = atMs;
    }
    const flushMs = flushIntervalMs(this.cycleMs);
    const states = cycle.states as AnyState[];
    const toWrite = states.filter((state) => {
      const signature = this.signatureOf(cycle.shape, state);
      const written = this.rows.get(state.resourceKey);
      const difference = written === undefined ? "changed" : compareRowSignatures(written.signature, signature);
      const isDue =
        difference === "changed" || (difference === "moving" && isMovingFiguresFlushDue(state.resourceKey, written!.writtenAtMs, timeOf(state), flushMs));
      if (isDue) this.pending.set(state, signature);
      return isDue;
    });
    return { ...cycle, states: toWrite } as CycleStates;
  }

  /** The save of these states committed. */
  remember(cycle: CycleStates): void {
    for (const state of cycle.states as AnyState[]) {
      const signature = this.pending.get(state) ?? this.signatureOf(cycle.shape, state);
      this.rows.set(state.resourceKey, { signature, writtenAtMs: timeOf(state) });
    }
    this.pending = new WeakMap();
  }

  private signatureOf(shape: CycleStates["shape"], state: AnyState): RowSignature {
    return shape === "subscription-partition" ? signSubscriptionPartitionRow(state as ResourceState) : signHoldRow(state as HoldState, this.movingDetails);
  }

  get size(): number {
    return this.rows.size;
  }
}
