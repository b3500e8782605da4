// Where the per-key records of who is inside live. Entering must be atomic on the backend: it
// records this entry and returns everyone else inside in the same step. A separate "look, then
// enter" lets two workers both see nobody and both miss the overlap.

/** Another worker inside the key when this one entered. */
export type OtherInside = {
  worker: string;
  /** How long it had been inside when this entry was recorded, on the backend's clock. */
  insideForMs: number;
};

/** What an entry saw. */
export type EntryResult = {
  /** How many other entries were inside (the counter before this entry): > 0 is a violation. */
  othersCount: number;
  /** The longest-inside of them, at most the backend's limit (MAX_OTHERS_INSIDE). */
  others: OtherInside[];
};

export type CounterBackend = {
  /** Records `entryId` (of `worker`) inside `key` and returns who else is inside. */
  enter(key: string, entry: { entryId: string; worker: string }): Promise<EntryResult>;
  /** Removes `entryId` from `key`. An entry already gone (expired) is not an error. */
  exit(key: string, entryId: string): Promise<void>;
};

/** At most this many others are returned and reported per violation (the count is exact). */
export const MAX_OTHERS_INSIDE = 10;
