import type { EndedFinding } from "@/lib/board/lock-types";

/** Findings of the last hour that have ended: what happened and how it ended, in words. */
export function EndedFindings({ findings }: { findings: EndedFinding[] }) {
  if (findings.length === 0) return null;
  return (
    <ul className="ended-findings" aria-label="Recovered">
      {findings.map((finding) => (
        <li key={finding.rule} className="muted">
          {finding.text}
        </li>
      ))}
    </ul>
  );
}
