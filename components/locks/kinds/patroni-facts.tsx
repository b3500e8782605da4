import { Fact } from "@/components/locks/kinds/detail-list";
import { describeDetailValue, describePatroniEnding } from "@/components/locks/kinds/kind-facts";
import { formatBytes } from "@/lib/board/format";

// A Patroni cluster's own facts on the lock page, as the etcd kind (layout patroni) and the
// ZooKeeper kind (system patroni) both put them in a hold's details
// (lib/sources/patroni-members.ts): the primary, the standbys with their lag in the order Patroni
// would promote them, a pending switchover, and how the last primary's hold ended.

/** The details this panel reads, beside the kind's own list of standbys. */
export const PATRONI_DETAILS: readonly string[] = ["scope", "lagBytes", "failover", "previousPrimary", "primary", "timeline", "xlogLocation", "history"];

type PatroniStandby = { name?: unknown; role?: unknown; state?: unknown; timeline?: unknown; isNoFailover?: unknown; isUnreadable?: unknown };

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** A Patroni cluster's own facts: the primary, its standbys with their lag, a pending switchover, how the last primary's hold ended. */
export function PatroniFacts({
  details,
  standbys: listed,
  isHeld,
  heldBy,
}: {
  details: Record<string, unknown>;
  standbys: unknown;
  isHeld: boolean;
  heldBy: "lease" | "session";
}) {
  const standbys = Array.isArray(listed) ? (listed as PatroniStandby[]) : [];
  const lag = record(details.lagBytes) ?? {};
  const primary = record(details.primary);
  const failover = record(details.failover);
  const previous = record(details.previousPrimary);
  const previousWords = previous === null ? null : describePatroniEnding(previous, typeof previous.name === "string" ? previous.name : null, heldBy);
  return (
    <>
      <Fact label="Primary">
        {!isHeld ? (
          <span className="muted">none: no member holds the leader key</span>
        ) : primary === null ? (
          <span className="muted">its member key was not read</span>
        ) : (
          `${describeDetailValue(primary.role)}, ${describeDetailValue(primary.state)}, timeline ${describeDetailValue(details.timeline)}`
        )}
      </Fact>
      <Fact label="Standbys (in the order Patroni would promote them)">
        {standbys.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="waiters" aria-label="Patroni standbys">
            {standbys.map((standby) => {
              const name = String(standby.name ?? "?");
              const bytes = typeof lag[name] === "number" ? (lag[name] as number) : null;
              return (
                <li key={name}>
                  {name}: {describeDetailValue(standby.role)}, {describeDetailValue(standby.state)}, timeline {describeDetailValue(standby.timeline)}
                  {bytes === null ? ", lag unknown" : `, ${formatBytes(bytes)} behind`}
                  {standby.isNoFailover === true ? " (nofailover: never promoted)" : ""}
                  {standby.isUnreadable === true ? <strong className="loud"> (its member key could not be read)</strong> : null}
                </li>
              );
            })}
          </ul>
        )}
      </Fact>
      {failover === null ? null : (
        <Fact label="Switchover or failover asked for">
          {failover.leader ? `from ${describeDetailValue(failover.leader)} ` : ""}
          {failover.member ? `to ${describeDetailValue(failover.member)}` : "to the best standby"}
          {failover.scheduledAt ? `, scheduled at ${describeDetailValue(failover.scheduledAt)}` : ""}
        </Fact>
      )}
      {previous === null ? null : (
        <Fact label="Last primary's hold">
          {describeDetailValue(previous.name)}: {previousWords ?? describeDetailValue(previous.reason)}
        </Fact>
      )}
    </>
  );
}
