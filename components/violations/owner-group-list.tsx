import Link from "next/link";

import { formatCount, formatInstant } from "@/lib/violations/format";
import type { OwnerGroup, ViolationOwner } from "@/lib/violations/owner-types";
import type { OwnedViolation } from "@/lib/violations/queries/get-violation-owners";
import { drilldownHref } from "@/lib/violations/view-params";

export const OWNER_GROUP_LABEL: Record<OwnerGroup, string> = {
  "owner-changed": "Owner changed around the violation",
  "owner-stable": "Owner stable",
  "not-computed": "Owner not computed",
};

/** Rows shown: the page's counts cover every violation read, the table the latest of the group. */
const SHOWN_ROWS = 50;

function ownerCell(owner: ViolationOwner): string {
  if (!owner.isComputed) return `cannot be computed: ${owner.detail}`;
  const where = owner.rule === "key-shared" ? `hash ${formatCount(owner.hash ?? 0)}` : `partition ${owner.partition}${owner.isPartitionRouted ? " (routed)" : ""}`;
  const change = owner.change === null ? "" : ` (${owner.change.from ?? "nobody"} → ${owner.change.to ?? "nobody"})`;
  return `${owner.owner ?? "nobody"}, ${where}${change}`;
}

/** The violations grouped by whether their key's owner changed around them; the group is chosen by the page. */
export function OwnerGroupList(props: {
  group: OwnerGroup | null;
  counts: Record<OwnerGroup, number> | null;
  violations: readonly OwnedViolation[];
  isTruncated: boolean;
  emptyText: string;
  timeZone: string;
  onGroupChange: (group: OwnerGroup | null) => void;
}) {
  const { group, counts } = props;
  const option = (value: OwnerGroup | null, label: string) => (
    <button type="button" role="radio" aria-checked={group === value} onClick={() => props.onGroupChange(value)}>
      {label}
      {counts && value !== null ? ` (${formatCount(counts[value])})` : ""}
    </button>
  );
  return (
    <section className="panel" aria-label="Key owners" data-testid="owner-groups">
      <h2>Key owners</h2>
      <div className="vio-segmented" role="radiogroup" aria-label="Group by owner">
        {option(null, "All")}
        {option("owner-changed", OWNER_GROUP_LABEL["owner-changed"])}
        {option("owner-stable", OWNER_GROUP_LABEL["owner-stable"])}
      </div>
      <p className="vio-note">
        Owner stable is the alarming kind: two workers were inside the key while its owner (Key_Shared range or partition leader) did not change.
        {props.isTruncated ? " The counts cover the latest violations of the range only." : ""}
      </p>
      {props.violations.length === 0 ? (
        <p className="muted">{props.emptyText}</p>
      ) : (
        <table className="data vio-compact">
          <thead>
            <tr>
              <th scope="col">Time ({props.timeZone})</th>
              <th scope="col">Key</th>
              <th scope="col">Worker</th>
              <th scope="col">Owner then</th>
              <th scope="col">Group</th>
            </tr>
          </thead>
          <tbody>
            {props.violations.slice(0, SHOWN_ROWS).map((v) => (
              <tr key={v.eventId}>
                <td>{formatInstant(v.observedAt, props.timeZone)}</td>
                <th scope="row" className="vio-name">
                  <Link href={drilldownHref({ eventId: v.eventId, observedAt: v.observedAt })}>{v.key}</Link>
                </th>
                <td>{v.worker}</td>
                <td>{ownerCell(v.owner)}</td>
                <td>{OWNER_GROUP_LABEL[v.group]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
