"use client";

import { ChoiceSelect } from "@/components/ui/choice-select";
import type { ChartMode } from "@/lib/violations/chart-data";

const MODE_LABELS: Record<ChartMode, string> = { classification: "Stacked by cause", services: "Stacked by service", split: "Split by service" };

export type FilterChoices = { services: readonly string[]; subscriptions: readonly string[]; environments: readonly string[] };

/** Service, subscription and deployment-environment filters, the chart's mode, leader-change markers. */
export function ViolationFilters(props: {
  choices: FilterChoices;
  service: string | null;
  subscription: string | null;
  environment: string | null;
  mode: ChartMode;
  showLeaderChanges: boolean;
  onChange: (
    patch: Partial<{ service: string | null; subscription: string | null; environment: string | null; mode: ChartMode; showLeaderChanges: boolean }>,
  ) => void;
}) {
  return (
    <div className="vio-filters">
      <ChoiceSelect
        className="vio-field"
        label="Service"
        value={props.service}
        choices={props.choices.services}
        onChange={(service) => props.onChange({ service })}
      />
      <ChoiceSelect
        className="vio-field"
        describe={(choice) => (choice === "" ? "(none)" : choice)}
        label="Subscription"
        value={props.subscription}
        choices={props.choices.subscriptions}
        onChange={(subscription) => props.onChange({ subscription })}
      />
      <ChoiceSelect
        className="vio-field"
        label="Deployments of environment"
        value={props.environment}
        choices={props.choices.environments}
        onChange={(environment) => props.onChange({ environment })}
      />
      <div className="vio-field" role="radiogroup" aria-label="Chart">
        Chart
        <div className="vio-segmented">
          {(Object.keys(MODE_LABELS) as ChartMode[]).map((mode) => (
            // biome-ignore lint/a11y/useSemanticElements: a segmented button bar (ARIA radio pattern); native radios would need hidden inputs and labels styled as buttons
            <button key={mode} type="button" role="radio" aria-checked={props.mode === mode} onClick={() => props.onChange({ mode })}>
              {MODE_LABELS[mode]}
            </button>
          ))}
        </div>
      </div>
      <label className="vio-check">
        <input type="checkbox" checked={props.showLeaderChanges} onChange={(event) => props.onChange({ showLeaderChanges: event.target.checked })} />
        <span>Show leader changes</span>
      </label>
    </div>
  );
}
