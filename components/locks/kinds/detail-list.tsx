import type { ReactNode } from "react";

import { describeDetailValue } from "@/components/locks/kinds/kind-facts";

/** One labelled fact of a kind's panel. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="fact-extra">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The details a panel does not know, as a plain key/value list: a new field (or a new kind) still shows. */
export function OtherFacts({ details, known }: { details: Record<string, unknown>; known: ReadonlySet<string> }) {
  return (
    <>
      {Object.entries(details)
        .filter(([name]) => !known.has(name))
        .map(([name, value]) => (
          <Fact key={name} label={name}>
            <span className="mono">{describeDetailValue(value)}</span>
          </Fact>
        ))}
    </>
  );
}
