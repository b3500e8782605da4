"use client";

import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useMemo, useState } from "react";

import { LocksSection } from "@/app/(dashboard)/locks-section";
import type { LocksBoard } from "@/lib/board/lock-types";
import { locksQuery } from "@/lib/locks/lock-queries";

/** The /locks index: every lock of every lock cluster, with a text filter; refreshes live. */
export function LocksIndexView({ initialLocks }: { initialLocks: LocksBoard }) {
  const [text, setText] = useState("");
  const q = useDeferredValue(text);
  const locks = useQuery({ ...locksQuery({ includeGone: false }), initialData: initialLocks, initialDataUpdatedAt: Date.parse(initialLocks.generatedAt) });
  const filters = useMemo(() => ({ cluster: null, kind: null, q }), [q]);
  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements: a form with the search landmark role, as the board has; the <search> element is not yet in every browser Baton supports */}
      <form className="board-filters" role="search" aria-label="Filter the locks" onSubmit={(event) => event.preventDefault()}>
        <label className="filter-field filter-text">
          <span>Filter</span>
          <input type="search" value={text} placeholder="lock, cluster, pattern, holder, health…" onChange={(event) => setText(event.target.value)} />
        </label>
      </form>
      <LocksSection board={locks.data} filters={filters} error={locks.isError ? locks.error.message : null} />
    </>
  );
}
