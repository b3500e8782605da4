import { Fact, OtherFacts } from "@/components/locks/kinds/detail-list";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";
import { describeDetailValue } from "@/components/locks/kinds/kind-facts";

const KNOWN: ReadonlySet<string> = new Set([
  "layout",
  "master",
  "mustBeHeld",
  "token",
  "neverExpires",
  "reentrancy",
  "redlock",
  "majority",
  "masters",
  "holdingMasters",
  "waiterTimeouts",
  "otherFields",
]);

const KNOWN_WITHOUT_MASTERS: ReadonlySet<string> = new Set([...KNOWN].filter((name) => name !== "masters"));

type WaiterTimeout = { waiter?: unknown; timeoutAt?: unknown };

/**
 * A Redis lock: its layout and token, Redisson's reentrancy count and fair-lock waiters with their
 * timeouts, and for a Redlock group the token each master holds.
 */
export function RedisDetails({ details }: KindDetailsProps) {
  const masters =
    typeof details.masters === "object" && details.masters !== null && !Array.isArray(details.masters)
      ? Object.entries(details.masters as Record<string, unknown>)
      : null;
  const timeouts = Array.isArray(details.waiterTimeouts) ? (details.waiterTimeouts as WaiterTimeout[]) : [];
  return (
    <dl className="facts kind-details" aria-label="Redis details">
      {typeof details.master === "string" ? <Fact label="Master">{details.master}</Fact> : null}
      {typeof details.reentrancy === "number" ? <Fact label="Reentrancy">held {details.reentrancy}× by its owner</Fact> : null}
      {details.neverExpires === true ? (
        <Fact label="Expiry">
          <strong className="loud">never expires (no TTL)</strong>
        </Fact>
      ) : null}
      {masters ? (
        <Fact label={`Redlock masters (majority ${describeDetailValue(details.majority)})`}>
          <ul className="redlock-masters" aria-label="Tokens per master">
            {masters.map(([master, token]) => (
              <li key={master}>
                <span className="mono">{master}</span>: <span className="mono">{token === null ? "none" : describeDetailValue(token)}</span>
              </li>
            ))}
          </ul>
        </Fact>
      ) : null}
      {timeouts.length > 0 ? (
        <Fact label="Fair-lock waiters">
          <ol className="waiters" aria-label="Fair-lock waiters with timeouts">
            {timeouts.map((entry) => (
              <li key={`${describeDetailValue(entry.waiter)}@${describeDetailValue(entry.timeoutAt)}`}>
                {describeDetailValue(entry.waiter)} (gives up at <span className="mono">{describeDetailValue(entry.timeoutAt)}</span>)
              </li>
            ))}
          </ol>
        </Fact>
      ) : null}
      {details.otherFields ? <Fact label="Other hash fields">{describeDetailValue(details.otherFields)}</Fact> : null}
      {/* A masters field of another shape than Redlock's (master -> token) still shows, as it is. */}
      <OtherFacts details={details} known={masters ? KNOWN : KNOWN_WITHOUT_MASTERS} />
    </dl>
  );
}
