import type { HoldObservation } from "@/lib/poller/contract/hold-observation";

/** A lock a read answered for and found nobody holding, with what the engine knows of it in the details. No TTL: no expiry. */
export function toFreeLockObservation(ref: { key: string; pattern: string }, observedMs: number, details: Record<string, unknown>): HoldObservation {
  return {
    resourceKey: ref.key,
    pattern: ref.pattern,
    holder: null,
    holderToken: null,
    expiresAt: null,
    ttlMs: null,
    waiters: [],
    observedAt: new Date(observedMs).toISOString(),
    isSplit: false,
    details,
  };
}
