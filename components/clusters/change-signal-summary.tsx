import type { ChangeSignalFacts } from "@/lib/clusters/describe-change-signal";

/** A Pulsar cluster's consumer change signal: its state, what it read, or what enabling it would buy. */
export function ChangeSignalSummary({ facts }: { facts: ChangeSignalFacts }) {
  return (
    <div data-testid="change-signal" data-state={facts.state}>
      <div>{facts.headline}</div>
      {facts.details.map((line) => (
        <div key={line} className="muted small">
          {line}
        </div>
      ))}
    </div>
  );
}
