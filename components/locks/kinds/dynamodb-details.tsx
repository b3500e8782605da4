import { Fact, OtherFacts } from "@/components/locks/kinds/detail-list";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";
import { formatDuration } from "@/lib/board/format";

const KNOWN: ReadonlySet<string> = new Set(["recordVersionNumber", "leaseDurationMs", "versionUnchangedForMs", "isReleased", "sortKey"]);

const duration = (value: unknown) => (typeof value === "number" ? formatDuration(value) : "—");

/**
 * A DynamoDB lock table's item: its record version (a holder's heartbeat changes it), the lease
 * it promises, how long the version has not changed (past the lease, nobody heartbeats), whether
 * it is released, and its sort key when the table has one.
 */
export function DynamodbDetails({ details }: KindDetailsProps) {
  return (
    <dl className="facts kind-details" aria-label="DynamoDB details">
      <Fact label="Record version">{typeof details.recordVersionNumber === "string" ? <span className="mono">{details.recordVersionNumber}</span> : "—"}</Fact>
      <Fact label="Lease duration">{duration(details.leaseDurationMs)}</Fact>
      <Fact label="Version unchanged for">{duration(details.versionUnchangedForMs)}</Fact>
      <Fact label="Released">{details.isReleased === true ? "yes" : details.isReleased === false ? "no" : "—"}</Fact>
      {details.sortKey !== undefined && details.sortKey !== null ? (
        <Fact label="Sort key">
          <span className="mono">{String(details.sortKey)}</span>
        </Fact>
      ) : null}
      <OtherFacts details={details} known={KNOWN} />
    </dl>
  );
}
