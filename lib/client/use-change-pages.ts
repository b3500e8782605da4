"use client";

import { useCallback, useState } from "react";

/**
 * Where a paged change list is: the cursors of the pages walked so far (null: the newest). The
 * list starts over at the newest page whenever `resetKey` (the range) changes.
 */
export function useChangePages(resetKey: string) {
  const [state, setState] = useState<{ key: string; cursors: (string | null)[] }>({ key: resetKey, cursors: [null] });
  const cursors = state.key === resetKey ? state.cursors : [null];
  const older = useCallback((next: string) => setState((s) => ({ key: resetKey, cursors: [...(s.key === resetKey ? s.cursors : [null]), next] })), [resetKey]);
  const newer = useCallback(
    () => setState((s) => ({ key: resetKey, cursors: s.key === resetKey && s.cursors.length > 1 ? s.cursors.slice(0, -1) : [null] })),
    [resetKey],
  );
  const newest = useCallback(() => setState({ key: resetKey, cursors: [null] }), [resetKey]);
  return { cursor: cursors[cursors.length - 1]!, pageNumber: cursors.length, older, newer, newest };
}
