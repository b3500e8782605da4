import { AgoTime } from "@/components/board/time-text";
import type { LockLastChange } from "@/lib/board/lock-types";
import { ENDING_WORDS } from "@/lib/board/lock-words";

/** The latest change in words: "expired while held by pod-a, 2 m ago". */
export function LockLastChangeText({ change, nowMs }: { change: LockLastChange | null; nowMs: number }) {
  if (change === null) return <span className="muted">none seen</span>;
  const what =
    change.kind === "HOLDER_APPEARED"
      ? `acquired by ${change.toHolder ?? "someone"}`
      : change.ending !== null
        ? `${ENDING_WORDS[change.ending]}${change.fromHolder ? ` by ${change.fromHolder}` : ""}`
        : `${change.fromHolder ?? "nobody"} → ${change.toHolder ?? "nobody"}`;
  return (
    <span data-ending={change.ending ?? undefined}>
      <span className={change.ending === "EXPIRED" ? "loud" : undefined}>{what}</span>, <AgoTime iso={change.at} nowMs={nowMs} />
    </span>
  );
}
