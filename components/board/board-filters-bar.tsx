import type { BoardFilters } from "@/lib/board/board-filters";

type Props = {
  filters: BoardFilters;
  clusters: string[];
  tenants: string[];
  namespaces: string[];
  shown: number;
  total: number;
  onChange: (patch: Partial<BoardFilters>) => void;
  onExpandAll: () => void;
  onCollapseAll: () => void;
};

function Choice({ label, value, options, onChange }: { label: string; value: string | null; options: string[]; onChange: (value: string | null) => void }) {
  // A value from a pasted link that is not among the options still shows (and filters).
  const all = value !== null && !options.includes(value) ? [value, ...options] : options;
  return (
    <label className="filter-field">
      <span>{label}</span>
      <select value={value ?? ""} onChange={(event) => onChange(event.target.value === "" ? null : event.target.value)}>
        <option value="">All</option>
        {all.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The board's filters; the URL holds them, so a link shows the same view. */
export function BoardFiltersBar({ filters, clusters, tenants, namespaces, shown, total, onChange, onExpandAll, onCollapseAll }: Props) {
  return (
    <form className="board-filters" role="search" aria-label="Filter the board" onSubmit={(event) => event.preventDefault()}>
      <Choice label="Cluster" value={filters.cluster} options={clusters} onChange={(cluster) => onChange({ cluster })} />
      <Choice label="Tenant" value={filters.tenant} options={tenants} onChange={(tenant) => onChange({ tenant, namespace: null })} />
      <Choice label="Namespace" value={filters.namespace} options={namespaces} onChange={(namespace) => onChange({ namespace })} />
      <label className="filter-field filter-text">
        <span>Filter</span>
        <input
          type="search"
          value={filters.q}
          placeholder="subscription, topic, consumer, health…"
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
