// A discovery reads the whole server; the observe that follows it in the same cycle uses that
// read rather than asking again, when it is at most READ_REUSE_MS old. Each read serves once.

/** A discovery's read serves the read that follows it in the same cycle when at most this old. */
const READ_REUSE_MS = 1_000;

export type ReusedRead<R> = {
  /** Keeps a discovery's read for the next take. */
  keep(read: R): void;
  /** The kept read when fresh enough, else `readNow()`; either way nothing stays kept. */
  take(readNow: () => Promise<R>): Promise<R>;
};

export function createReusedRead<R>(): ReusedRead<R> {
  let kept: { read: R; atMs: number } | null = null;
  return {
    keep(read) {
      kept = { read, atMs: Date.now() };
    },
    take(readNow) {
      const candidate = kept;
      kept = null;
      return candidate !== null && Date.now() - candidate.atMs <= READ_REUSE_MS ? Promise.resolve(candidate.read) : readNow();
    },
  };
}
