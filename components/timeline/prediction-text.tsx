import type { ChangeEntry } from "@/lib/subscriptions/list-subscription-changes";

/** How a change compared with the next holder predicted just before it: a wrong prediction is loud. */
export function PredictionText({ change }: { change: Pick<ChangeEntry, "prediction" | "predictedHolder"> }) {
  if (change.prediction === "CONFIRMED")
    return (
      <span className="prediction" data-outcome="confirmed">
        as predicted
      </span>
    );
  if (change.prediction === "WRONG") {
    return (
      <strong className="loud prediction" data-outcome="wrong">
        prediction wrong: {change.predictedHolder ?? "nobody"} expected
      </strong>
    );
  }
  if (change.prediction === "NOT_PREDICTED") return <span className="muted prediction">not predicted</span>;
  return <span className="muted">—</span>;
}
