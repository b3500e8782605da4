"use client";

import { useState } from "react";

import { ListPager } from "@/components/ui/list-pager";
import { formatInstant } from "@/lib/violations/format";
import type { LeaderChangeMarker } from "@/lib/violations/violation-types";

/** Changes per page. */
const CHANGE_PAGE_SIZE = 20;

/** Leader changes of the key's subscription partitions near its events, a page at a time. */
export function LeaderChangeTable({ changes, timeZone }: { changes: readonly LeaderChangeMarker[]; timeZone: string }) {
  const [page, setPage] = useState(0);
  const shown = changes.slice(page * CHANGE_PAGE_SIZE, (page + 1) * CHANGE_PAGE_SIZE);
  return (
    <>
      <table className="data vio-compact" data-testid="leader-change-table">
        <caption className="vio-sr-only">Leader changes near the key&apos;s events</caption>
        <thead>
          <tr>
            <th scope="col">Seen</th>
            <th scope="col">Change</th>
            <th scope="col">Subscription partition</th>
            <th scope="col">Holders</th>
            <th scope="col">Reported reason</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((c) => (
            <tr key={c.id}>
              <td className="mono vio-nowrap">
                {c.oldSeenAt ? `${formatInstant(c.oldSeenAt, timeZone)} – ` : ""}
                {formatInstant(c.newSeenAt, timeZone)}
              </td>
              <td>{c.kind.replaceAll("_", " ").toLowerCase()}</td>
              <td>
                {c.subscription} {c.partition < 0 ? "(not partitioned)" : `partition ${c.partition}`}
                <div className="muted vio-small mono">
                  {c.topic} · {c.cluster}
                </div>
              </td>
              <td>
                {c.fromHolder ?? "none"} → {c.toHolder ?? "none"}
              </td>
              <td>{c.cause.toLowerCase()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ListPager label="Leader changes" page={page} pageSize={CHANGE_PAGE_SIZE} total={changes.length} onPage={setPage} />
    </>
  );
}
