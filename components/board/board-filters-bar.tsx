import { ChoiceSelect } from "@/components/ui/choice-select";
import type { BoardFilters } from "@/lib/board/board-filters";

type Props = {
  filters: BoardFilters;
  clusters: string[];
  /** Kinds to offer: "pulsar", "locks" and the lock source kinds configured. */
  kinds: string[];
  describeKind: (kind: string) => string;
  tenants: string[];
  namespaces: string[];
  shown: number;
  total: number;
  onChange: (patch: Partial<BoardFilters>) => void;
  onExpandAll: () => void;
  onCollapseAll: () => void;
};

/** The board's filters; the URL holds them, so a link shows the same view. */
export function BoardFiltersBar({ filters, clusters, kinds, describeKind, tenants, namespaces, shown, total, onChange, onExpandAll, onCollapseAll }: Props) {
  return (
    <form className="board-filters" role="search" aria-label="Filter the board" onSubmit={(event) => event.preventDefault()}>
      <ChoiceSelect
        className="filter-field"
        label="Kind"
        value={filters.kind}
        choices={kinds}
        describe={describeKind}
        onChange={(kind) => onChange({ kind })}
      />
      <ChoiceSelect className="filter-field" label="Cluster" value={filters.cluster} choices={clusters} onChange={(cluster) => onChange({ cluster })} />
      <ChoiceSelect
        className="filter-field"
        label="Tenant"
        value={filters.tenant}
        choices={tenants}
        onChange={(tenant) => onChange({ tenant, namespace: null })}
      />
      <ChoiceSelect
        className="filter-field"
        label="Namespace"
        value={filters.namespace}
        choices={namespaces}
        onChange={(namespace) => onChange({ namespace })}
      />
      <label className="filter-field filter-text">
        <span>Filter</span>
        <input
          type="search"
          value={filters.q}
          placeholder="subscription, topic, lock, holder, health…"
          onChange={(event) => onChange({ q: event.target.value })}
        />
      </label>
      <label className="filter-check">
        <input type="checkbox" checked={filters.includeGone} onChange={(event) => onChange({ includeGone: event.target.checked })} />
        <span>Show gone</span>
      </label>
      <span className="filter-actions">
        <button type="button" onClick={onExpandAll}>
          Expand all
        </button>
        <button type="button" onClick={onCollapseAll}>
          Collapse all
        </button>
      </span>
      <span className="muted filter-count" aria-live="polite">
        {shown === total ? `${total} subscriptions` : `${shown} of ${total} subscriptions`}
      </span>
    </form>
  );
}
