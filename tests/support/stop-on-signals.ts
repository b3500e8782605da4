// Ctrl-C or SIGTERM during a test run: stop everything the run started, then exit 130. A part of
// the run whose processes were killed returns early, so the run asks isStopping() between its
// parts: the next part must not start while everything is being stopped.

export const STOPPED_EXIT_CODE = 130;

/** Installs the handlers; the function it returns says whether a stop was asked for. */
export function stopOnSignals(log: (line: string) => void, cleanUp: () => Promise<void>): () => boolean {
  let isStopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (isStopping) return;
      isStopping = true;
      log(`${signal}: stopping everything the tests started`);
      void cleanUp().then(() => process.exit(STOPPED_EXIT_CODE));
    });
  }
  return () => isStopping;
}
