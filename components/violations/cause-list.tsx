import Link from "next/link";

import { formatCount, formatInstant } from "@/lib/violations/format";
import type { ViolationOwner } from "@/lib/violations/owner-types";
import type { ClassifiedViolation } from "@/lib/violations/queries/get-violation-causes";
import { CAUSE_LABEL, CAUSE_MEANING, type CauseCounts, causeOrderPhrase, VIOLATION_CAUSES, type ViolationCause } from "@/lib/violations/cause-words";
import { CAUSE_COLOR } from "@/lib/violations/violation-colors";
import { drilldownHref } from "@/lib/violations/view-params";

/** Rows shown: the page's counts cover every violation read, the table the latest of the cause. */
const SHOWN_ROWS = 50;

function ownerCell(owner: ViolationOwner): string {
  if (!owner.isComputed) return `cannot be computed: ${owner.detail}`;
  const where =
    owner.rule === "key-shared" ? `hash ${formatCount(owner.hash ?? 0)}` : `partition ${owner.partition}${owner.isPartitionRouted ? " (routed)" : ""}`;
  const change = owner.change === null ? "" : ` (${owner.change.from ?? "nobody"} → ${owner.change.to ?? "nobody"})`;
  return `${owner.owner ?? "nobody"}, ${where}${change}`;
}

/** The latest violations with their causes, filtered by one cause chosen on the page. */
export function CauseList(props: {
  cause: ViolationCause | null;
  counts: CauseCounts | null;
  violations: readonly ClassifiedViolation[];
  isTruncated: boolean;
  emptyText: string;
  timeZone: string;
  onCauseChange: (cause: ViolationCause | null) => void;
}) {
  const { cause, counts } = props;
  const option = (value: ViolationCause | null, label: string) => (
    // biome-ignore lint/a11y/useSemanticElements: a segmented button bar (ARIA radio pattern); native radios would need hidden inputs and labels styled as buttons
    <button
      key={value ?? "all"}
      type="button"
      role="radio"
      aria-checked={cause === value}
      onClick={() => props.onCauseChange(value)}
      title={value === null ? undefined : CAUSE_MEANING[value]}
    >
      {label}
      {counts && value !== null ? ` (${formatCount(counts[value])})` : ""}
    </button>
  );
  return (
    <section className="panel" aria-label="Violations by cause" data-testid="cause-list">
      <h2>Violations by cause</h2>
      <div className="vio-segmented" role="radiogroup" aria-label="Cause">
        {option(null, "All")}
        {VIOLATION_CAUSES.map((c) => option(c, CAUSE_LABEL[c]))}
      </div>
      <p className="vio-note">
        Each violation has one cause, the first whose evidence holds: {causeOrderPhrase()}, the ones to investigate first.
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
              <th scope="col">Cause</th>
              <th scope="col">Owner then</th>
            </tr>
          </thead>
          <tbody>
            {props.violations.slice(0, SHOWN_ROWS).map((v) => (
              <tr key={v.eventId} data-cause={v.cause}>
                <td>{formatInstant(v.observedAt, props.timeZone)}</td>
                <th scope="row" className="vio-name">
                  <Link href={drilldownHref({ eventId: v.eventId, observedAt: v.observedAt })}>{v.key}</Link>
                </th>
                <td>{v.worker}</td>
                <td>
                  <span className="vio-swatch" style={{ background: CAUSE_COLOR[v.cause] }} /> {CAUSE_LABEL[v.cause]}
                </td>
                <td>{ownerCell(v.owner)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
