import type { ReactNode } from "react";

import { ExactTime } from "@/components/board/time-text";

/** A browser's words for a request that got no answer at all, in a reader's. */
function describeReason(reason: string): string {
  return /^(Failed to fetch|NetworkError|Load failed)/.test(reason) ? "Baton's web server did not answer" : reason;
}

/**
 * Says that what is shown is the last answer, not the current one: a refresh failed. Shown
 * above the old data, never in place of it (see UnavailableNotice for when there is none), with
 * the time of that last good answer (`readAt`: react-query's dataUpdatedAt, epoch ms; 0 when none).
 */
export function OutdatedNotice({ what, reason, readAt, children }: { what: string; reason: string; readAt: number; children?: ReactNode }) {
  return (
    <section className="panel unavailable outdated-notice" role="alert">
      <strong>Not current:</strong> {what} could not be refreshed ({describeReason(reason)}).{" "}
      {readAt > 0 ? (
        <>
          What is shown was read at <ExactTime iso={new Date(readAt).toISOString()} /> and may no longer be true.
        </>
      ) : (
        "Nothing was read yet."
      )}
      {children ? <> {children}</> : null}
    </section>
  );
}
