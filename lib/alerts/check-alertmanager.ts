import "server-only";

const TIMEOUT_MS = 3_000;

/**
 * Asks Alertmanager whether it is ready (`GET /-/ready`). Answers null when it is (or none is
 * configured), else one line for the log: notifications wait in the outbox until it answers.
 */
export async function checkAlertmanager(url: string | null): Promise<string | null> {
  if (url === null) return null;
  try {
    const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    await response.body?.cancel();
    if (response.ok) return null;
    return `Alertmanager at ${url} is not ready (HTTP ${response.status}); alert notifications wait in the outbox until it is`;
  } catch (error) {
    const reason = error as Error & { cause?: { code?: string } };
    const why = reason.name === "TimeoutError" ? `no answer within ${TIMEOUT_MS} ms` : (reason.cause?.code ?? reason.message);
    return `Alertmanager at ${url} is unreachable (${why}); alert notifications wait in the outbox until it answers`;
  }
}
