import "server-only";

/**
 * Waits until dueMs, an abort of `signal`, or a call of the wake function handed to `setWake`
 * (a change signal's), whichever comes first. The wake function is cleared once the wait ends.
 */
export function waitUntilWoken(dueMs: number, signal: AbortSignal, setWake: (wake: (() => void) | null) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, Math.max(0, dueMs - Date.now()));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      setWake(null);
      resolve();
    }
    setWake(done);
    signal.addEventListener("abort", done, { once: true });
  });
}
