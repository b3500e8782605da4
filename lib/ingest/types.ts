import "server-only";

/** How an event reached Baton (the `ingest_source` enum): POLLER is Baton's own poller, recording a double run a lock's records showed. */
export type IngestSource = "HTTP" | "PULSAR_TOPIC" | "POLLER";

/** One item that was not written, and why. `field` is null when the item itself is at fault. */
export type RejectedItem = { index: number; field: string | null; message: string };

export type IngestResult = {
  /** Items written now. */
  accepted: number;
  /** Valid items whose id Baton already had (or that repeated an id earlier in the batch). */
  duplicates: number;
  rejected: RejectedItem[];
};

/** A validated counter event, ready to be written. */
export type ValidEvent = {
  eventId: string;
  key: string;
  counter: number;
  service: string;
  worker: string;
  topic: string | null;
  subscription: string | null;
  partition: number | null;
  traceId: string | null;
  observedAtMs: number;
  /** `attributes` serialized as JSON, or null. */
  attributesJson: string | null;
  /** `othersInside` as JSON [{ worker, enteredAt: epoch ms }], or null. */
  othersInsideJson: string | null;
  /** The lock the work ran under, "<cluster>/<lock key>", or null. */
  lock: string | null;
};
