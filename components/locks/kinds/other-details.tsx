import { OtherFacts } from "@/components/locks/kinds/detail-list";
import type { KindDetailsProps } from "@/components/locks/kinds/kind-details-props";

const NONE: ReadonlySet<string> = new Set(["layout"]);

/** A kind without a panel of its own: every detail as it is (the layout is said beside the pattern). */
export function OtherDetails({ details }: KindDetailsProps) {
  return (
    <dl className="facts kind-details" aria-label="Source details">
      <OtherFacts details={details} known={NONE} />
    </dl>
  );
}
