import type { ReactNode } from "react";

/**
 * Says that what is shown is the last answer, not the current one: a refresh failed. Shown
 * above the old data, never in place of it (see UnavailableNotice for when there is none).
 */
export function OutdatedNotice({ what, reason, children }: { what: string; reason: string; children?: ReactNode }) {
  return (
    <section className="panel unavailable outdated-notice" role="alert">
      <strong>Not current:</strong> {what} could not be refreshed ({reason}).{children ? <> {children}</> : null}
    </section>
  );
}
