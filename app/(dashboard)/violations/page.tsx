import { EmptyState } from "@/components/ui/empty-state";
import { UnavailableNotice } from "@/components/ui/unavailable-notice";
import { getDb } from "@/lib/db/client";
import { countExclusivityEvents } from "@/lib/queries/count-exclusivity-events";
import { runQuery } from "@/lib/queries/query-result";

export const dynamic = "force-dynamic";
export const metadata = { title: "Violations" };

export default async function ViolationsPage() {
  const counts = await runQuery(() => countExclusivityEvents(getDb()));
  return (
    <>
      <h1>Violations</h1>
      <p className="page-lead">Did two workers ever handle the same key at once? Counter events, next to deployments.</p>
      {!counts.isAvailable ? (
        <UnavailableNotice what="Violations" reason={counts.reason} />
      ) : counts.data.events === 0 ? (
        <EmptyState title="No exclusivity-counter events yet">
          <p>
            Services report each increment of their per-key mutual-exclusivity counter to <code>POST /api/v1/exclusivity-events</code>{" "}
            (or to the configured Pulsar topic). A counter above zero at increment means another worker was inside: a violation.
          </p>
        </EmptyState>
      ) : (
        <section className="panel" aria-label="Totals">
          <dl className="facts">
            <dt>Events</dt>
            <dd data-testid="event-count">{counts.data.events}</dd>
            <dt>Violations</dt>
            <dd data-testid="violation-count">{counts.data.violations}</dd>
          </dl>
        </section>
      )}
    </>
  );
}
