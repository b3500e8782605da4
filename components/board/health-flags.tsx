import type { Health, HealthFlag } from "@/lib/board/board-types";
import { ClockTime } from "@/components/board/time-text";

export const HEALTH_WORDS: Record<Health, string> = { critical: "Critical", unknown: "Stale", warning: "Warning", info: "Info", ok: "OK" };

/** The health in a word, with a coloured mark: the colour is never the only signal. */
export function HealthWord({ health }: { health: Health }) {
  return (
    <span className="health-word" data-health={health}>
      {HEALTH_WORDS[health]}
    </span>
  );
}

/** Findings that are one event: their time is when it happened ("at"), not a state's "since". */
const EVENT_RULES: ReadonlySet<HealthFlag["rule"]> = new Set(["expired-while-held"]);

/** One flag: its words, "since" when it has a start ("at" for an event), the evidence on hover. */
export function FlagPill({ flag, nowMs }: { flag: HealthFlag; nowMs: number }) {
  return (
    <span className="flag" data-severity={flag.severity} title={`${flag.label}: ${flag.detail}`}>
      {flag.label}
      {flag.since ? (
        <>
          {EVENT_RULES.has(flag.rule) ? " at " : " since "}
          <ClockTime iso={flag.since} nowMs={nowMs} />
        </>
      ) : null}
    </span>
  );
}

/** The first flags of a row (worst first) and how many more. */
export function FlagList({ flags, nowMs, max = 2 }: { flags: HealthFlag[]; nowMs: number; max?: number }) {
  if (flags.length === 0) return <HealthWord health="ok" />;
  const shown = flags.slice(0, max);
  return (
    <span className="flag-list">
      {shown.map((flag) => (
        <FlagPill key={flag.rule} flag={flag} nowMs={nowMs} />
      ))}
      {flags.length > max ? <span className="muted"> +{flags.length - max} more</span> : null}
    </span>
  );
}

/** Every flag with its evidence: for the subscription page. */
export function FlagDetails({ flags, nowMs }: { flags: HealthFlag[]; nowMs: number }) {
  if (flags.length === 0) return <p className="muted">No health flag: it is held, current and calm.</p>;
  return (
    <ul className="flag-details">
      {flags.map((flag) => (
        <li key={flag.rule}>
          <FlagPill flag={flag} nowMs={nowMs} /> <span className="muted">{flag.detail}</span>
        </li>
      ))}
    </ul>
  );
}
