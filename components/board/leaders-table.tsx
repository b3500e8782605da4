"use client";

import { useWindowVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { memo, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";

import { FlagList } from "@/components/board/health-flags";
import { NextHolderCell } from "@/components/board/next-holder-cell";
import { AgoTime } from "@/components/board/time-text";
import { staleReasonOf, type BoardLine } from "@/lib/board/board-lines";
import type { HealthFlag, LeaderRow, SubscriptionGroup } from "@/lib/board/board-types";
import { formatClock, formatCount, formatDuration, formatShare } from "@/lib/board/format";
import { summarizeNextHolders } from "@/lib/board/next-holder-words";

/** Every line has the same height: the virtualizer then never measures, and scrolling stays smooth at 10,000 lines. */
export const LINE_HEIGHT = 52;
const PAGE_LINES = 10;
const COLUMNS = ["Subscription", "Type", "Active consumer", "Tenure", "Standbys", "Next", "Backlog", "Last change", "Health"] as const;

export type LeadersTableProps = {
  lines: BoardLine[];
  nowMs: number;
  /** Row and subscription keys whose leader just changed. */
  highlighted: ReadonlySet<string>;
  /** The table shows data that could not be refreshed. */
  isOutdated: boolean;
  onToggle: (groupKey: string) => void;
  onOpen: (group: SubscriptionGroup) => void;
  subscriptionHref: (group: SubscriptionGroup) => string;
  consumerHref: (name: string) => string;
};

type LineProps = {
  line: BoardLine;
  index: number;
  start: number;
  nowMs: number;
  isActive: boolean;
  isHighlighted: boolean;
  onToggle: (groupKey: string) => void;
  subscriptionHref: (group: SubscriptionGroup) => string;
  consumerHref: (name: string) => string;
};

function Names({ names, max, consumerHref, tabIndex }: { names: string[]; max: number; consumerHref: (name: string) => string; tabIndex: number }) {
  if (names.length === 0) return <span className="muted">none</span>;
  return (
    <span className="names">
      {names.slice(0, max).map((name, i) => (
        <span key={name}>
          {i > 0 ? ", " : null}
          <Link prefetch={false} href={consumerHref(name)} tabIndex={tabIndex} className="consumer-link">
            {name}
          </Link>
        </span>
      ))}
      {names.length > max ? <span className="muted"> +{names.length - max}</span> : null}
    </span>
  );
}

/**
 * "since 14:02," over "3 h 12 m": the tenure on two short lines (reads as "since 14:02, 3 h
 * 12 m"). The clock is in the reader's time zone, unknown to the server: its text is replaced on
 * hydration; the duration does not depend on the zone.
 */
function Tenure({ iso, nowMs }: { iso: string; nowMs: number }) {
  return (
    <span className="tenure" title={iso}>
      <time dateTime={iso} suppressHydrationWarning>
        since {formatClock(iso, nowMs)},
      </time>{" "}
      <span>{formatDuration(nowMs - Date.parse(iso))}</span>
    </span>
  );
}

function isSharedType(type: string | null): boolean {
  return type === "Key_Shared";
}

/** The active consumer of one partition: its name, "last known" when stale, loud when nobody. */
function HolderCell({ row, type, consumerHref, tabIndex }: { row: LeaderRow; type: string | null; consumerHref: (name: string) => string; tabIndex: number }) {
  if (row.staleSince !== null) {
    return (
      <span className="last-known">
        last known:{" "}
        {isSharedType(type) ? (
          `${row.consumerCount} consumers`
        ) : row.holder ? (
          <Names names={[row.holder]} max={1} consumerHref={consumerHref} tabIndex={tabIndex} />
        ) : (
          "none"
        )}
      </span>
    );
  }
  if (isSharedType(type)) {
    if (row.consumerCount === 0) return <strong className="loud">No consumers</strong>;
    const top = row.hashShares?.[0];
    return (
      <span>
        {row.consumerCount} sharing
        {top ? (
          <span className="muted">
            , largest {top.consumer} {formatShare(top.share)}
          </span>
        ) : null}
      </span>
    );
  }
  if (row.holder === null) return <strong className="loud">No active consumer</strong>;
  return <Names names={[row.holder]} max={1} consumerHref={consumerHref} tabIndex={tabIndex} />;
}

function GroupHolderCell({ group, consumerHref, tabIndex }: { group: SubscriptionGroup; consumerHref: (name: string) => string; tabIndex: number }) {
  const total = group.partitions.length;
  if (group.staleCount === total) {
    const lastKnown = [...new Set(group.partitions.map((p) => p.holder).filter((h): h is string => h !== null))];
    return <span className="last-known">last known: {lastKnown.length > 0 ? lastKnown.join(", ") : "none"}</span>;
  }
  const current = total - group.staleCount;
  const missing = group.partitions.filter(
    (p) => p.staleSince === null && p.goneAt === null && (isSharedType(group.subscriptionType) ? p.consumerCount === 0 : p.holder === null),
  ).length;
  return (
    <span>
      {missing > 0 ? (
        <strong className="loud">
          {isSharedType(group.subscriptionType) ? "No consumers" : "No active consumer"} on {missing} of {current}
        </strong>
      ) : null}
      {missing > 0 && group.holders.length > 0 ? "; " : null}
      {isSharedType(group.subscriptionType) ? (
        <span>{group.consumers.length} sharing</span>
      ) : group.holders.length > 0 ? (
        <Names names={group.holders} max={3} consumerHref={consumerHref} tabIndex={tabIndex} />
      ) : null}
    </span>
  );
}

function groupStaleReason(group: SubscriptionGroup): string | null {
  for (const row of group.partitions) {
    const reason = staleReasonOf(row);
    if (reason !== null) return reason;
  }
  return null;
}

const SubscriptionLine = memo(function SubscriptionLine({
  line,
  index,
  start,
  nowMs,
  isActive,
  isHighlighted,
  onToggle,
  subscriptionHref,
  consumerHref,
}: LineProps) {
  if (line.kind !== "subscription") return null;
  const { group, isExpanded } = line;
  const single = group.isPartitioned ? null : group.partitions[0]!;
  const tabIndex = isActive ? 0 : -1;
  const staleReason = groupStaleReason(group);
  const toggle = (event: MouseEvent) => {
    event.stopPropagation();
    onToggle(group.key);
  };
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-level={1}
      aria-expanded={group.isPartitioned ? isExpanded : undefined}
      data-index={index}
      data-health={group.health}
      data-changed={isHighlighted ? "true" : undefined}
      tabIndex={tabIndex}
      className="board-line board-subscription"
      style={{ transform: `translateY(${start}px)` }}
    >
      <div role="gridcell" className="board-cell board-name">
        {group.isPartitioned ? (
          <button type="button" className="expander" tabIndex={-1} aria-hidden="true" onClick={toggle}>
            {isExpanded ? "▾" : "▸"}
          </button>
        ) : (
          <span className="expander" aria-hidden="true" />
        )}
        <span className="name-stack">
          <Link prefetch={false} href={subscriptionHref(group)} tabIndex={tabIndex} className="subscription-link">
            {group.subscription}
          </Link>
          <span className="muted small" title={group.topic}>
            {group.cluster} · {group.topic.replace(/^persistent:\/\//, "")}
            {group.isPartitioned ? ` · ${group.partitions.length} partitions` : ""}
          </span>
        </span>
      </div>
      <div role="gridcell" className="board-cell">
        {group.subscriptionType !== null ? <span title={group.subscriptionType}>{group.subscriptionType}</span> : <span className="muted">unknown</span>}
      </div>
      <div role="gridcell" className="board-cell">
        {single ? (
          <HolderCell row={single} type={group.subscriptionType} consumerHref={consumerHref} tabIndex={tabIndex} />
        ) : (
          <GroupHolderCell group={group} consumerHref={consumerHref} tabIndex={tabIndex} />
        )}
        {isHighlighted ? <span className="changed-badge">new leader</span> : null}
      </div>
      <div role="gridcell" className="board-cell">
        {single ? (
          single.staleSince === null && single.holderSince && single.holder ? (
            <Tenure iso={single.holderSince} nowMs={nowMs} />
          ) : (
            <span className="muted">—</span>
          )
        ) : group.latestHolderSince ? (
          <span title={`The newest tenure began at ${group.latestHolderSince}`}>newest {formatDuration(nowMs - Date.parse(group.latestHolderSince))}</span>
        ) : (
          <span className="muted">—</span>
        )}
      </div>
      <div role="gridcell" className="board-cell">
        {single ? (
          single.staleSince === null ? (
            <Names names={single.standbys} max={2} consumerHref={consumerHref} tabIndex={tabIndex} />
          ) : (
            <span className="muted">—</span>
          )
        ) : group.staleCount > 0 ? (
          <span className="muted">—</span>
        ) : group.idleConsumers.length > 0 ? (
          <span className="names">
            idle: <Names names={group.idleConsumers} max={2} consumerHref={consumerHref} tabIndex={tabIndex} />
          </span>
        ) : (
          <span className="muted">{group.consumers.length > 0 ? "all hold" : "none"}</span>
        )}
      </div>
      <div role="gridcell" className="board-cell">
        {single ? (
          single.staleSince === null ? (
            <NextHolderCell next={single.next} consumerHref={consumerHref} tabIndex={tabIndex} />
          ) : (
            <span className="muted">—</span>
          )
        ) : group.staleCount > 0 ? (
          <span className="muted">—</span>
        ) : (
          <GroupNextCell group={group} consumerHref={consumerHref} tabIndex={tabIndex} />
        )}
      </div>
      <TrailingCells backlog={group.backlog} lastChangeAt={group.lastChangeAt} flags={group.flags} staleReason={staleReason} nowMs={nowMs} />
    </div>
  );
});

/** A partitioned subscription's next holders: the distinct names over its partitions (each partition's own on its line), or why there are none. */
function GroupNextCell({ group, consumerHref, tabIndex }: { group: SubscriptionGroup; consumerHref: (name: string) => string; tabIndex: number }) {
  const { names, fallback } = summarizeNextHolders(group.partitions.map((p) => p.next));
  if (names.length > 0) return <Names names={names} max={2} consumerHref={consumerHref} tabIndex={tabIndex} />;
  return fallback ? <NextHolderCell next={fallback} /> : <span className="muted">—</span>;
}

/** The last three cells of a subscription's line and of a partition's: backlog, last change, health. */
function TrailingCells({
  backlog,
  lastChangeAt,
  flags,
  staleReason,
  nowMs,
}: {
  backlog: number | null;
  lastChangeAt: string | null;
  flags: HealthFlag[];
  staleReason: string | null;
  nowMs: number;
}) {
  return (
    <>
      <div role="gridcell" className="board-cell numeric">
        {formatCount(backlog)}
      </div>
      <div role="gridcell" className="board-cell">
        {lastChangeAt ? <AgoTime iso={lastChangeAt} nowMs={nowMs} /> : <span className="muted">none seen</span>}
      </div>
      <div role="gridcell" className="board-cell board-health">
        <FlagList flags={flags} nowMs={nowMs} />
        {staleReason ? (
          <span className="stale-reason" title={staleReason}>
            {staleReason}
          </span>
        ) : null}
      </div>
    </>
  );
}

const PartitionLine = memo(function PartitionLine({ line, index, start, nowMs, isActive, isHighlighted, subscriptionHref, consumerHref }: LineProps) {
  if (line.kind !== "partition") return null;
  const { row, group } = line;
  const tabIndex = isActive ? 0 : -1;
  const isStale = row.staleSince !== null;
  const staleReason = staleReasonOf(row);
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-level={2}
      data-index={index}
      data-health={row.health}
      data-changed={isHighlighted ? "true" : undefined}
      tabIndex={tabIndex}
      className="board-line board-partition"
      style={{ transform: `translateY(${start}px)` }}
    >
      <div role="gridcell" className="board-cell board-name">
        <span className="expander" aria-hidden="true" />
        <Link prefetch={false} href={subscriptionHref(group)} tabIndex={-1} className="partition-label">
          Partition {row.partition}
        </Link>
      </div>
      <div role="gridcell" className="board-cell" />
      <div role="gridcell" className="board-cell">
        <HolderCell row={row} type={group.subscriptionType} consumerHref={consumerHref} tabIndex={tabIndex} />
        {isHighlighted ? <span className="changed-badge">new leader</span> : null}
      </div>
      <div role="gridcell" className="board-cell">
        {!isStale && row.holder && row.holderSince ? <Tenure iso={row.holderSince} nowMs={nowMs} /> : <span className="muted">—</span>}
      </div>
      <div role="gridcell" className="board-cell">
        {isStale ? <span className="muted">—</span> : <Names names={row.standbys} max={2} consumerHref={consumerHref} tabIndex={tabIndex} />}
      </div>
      <div role="gridcell" className="board-cell">
        {isStale ? <span className="muted">—</span> : <NextHolderCell next={row.next} consumerHref={consumerHref} tabIndex={tabIndex} />}
      </div>
      <TrailingCells backlog={row.backlog} lastChangeAt={row.lastChangeAt} flags={row.flags} staleReason={staleReason} nowMs={nowMs} />
    </div>
  );
});

// Links do not prefetch: the board shows thousands of them, and each prefetch of a
// subscription page would cost the server a timeline query while someone merely scrolls.

/**
 * The board as an ARIA treegrid over a window-scrolled virtual list: one tabbable row (arrow
 * keys, Home/End, PageUp/PageDown move; Right/Left or Space expand and collapse; Enter opens the
 * subscription), the links of the focused row reachable with Tab.
 */
export function LeadersTable({ lines, nowMs, highlighted, isOutdated, onToggle, onOpen, subscriptionHref, consumerHref }: LeadersTableProps) {
  const listRef = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const focusPending = useRef(false);

  useLayoutEffect(() => {
    const measure = () => {
      if (listRef.current) setScrollMargin(listRef.current.getBoundingClientRect().top + window.scrollY);
    };
    measure();
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, []);

  const virtualizer = useWindowVirtualizer({
    count: lines.length,
    estimateSize: () => LINE_HEIGHT,
    overscan: 8,
    scrollMargin,
    getItemKey: (index) => lines[index]!.key,
    // The server renders the first screenful; the browser's first render matches it.
    initialRect: { width: 1400, height: 900 },
  });

  const activeIndex = Math.max(0, activeKey === null ? 0 : lines.findIndex((line) => line.key === activeKey));
  const items = virtualizer.getVirtualItems();

  useEffect(() => {
    if (!focusPending.current) return;
    const element = listRef.current?.querySelector<HTMLElement>(`[data-index="${activeIndex}"]`);
    if (element) {
      focusPending.current = false;
      element.focus({ preventScroll: true });
    }
  });

  const moveTo = (index: number) => {
    const target = Math.min(lines.length - 1, Math.max(0, index));
    if (lines.length === 0) return;
    setActiveKey(lines[target]!.key);
    focusPending.current = true;
    virtualizer.scrollToIndex(target, { align: "auto" });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const rowElement = (event.target as HTMLElement).closest<HTMLElement>("[data-index]");
    if (!rowElement) return;
    const index = Number(rowElement.dataset.index);
    const line = lines[index];
    if (!line) return;
    const isOnRow = event.target === rowElement;
    switch (event.key) {
      case "ArrowDown":
        moveTo(index + 1);
        break;
      case "ArrowUp":
        moveTo(index - 1);
        break;
      case "Home":
        moveTo(0);
        break;
      case "End":
        moveTo(lines.length - 1);
        break;
      case "PageDown":
        moveTo(index + PAGE_LINES);
        break;
      case "PageUp":
        moveTo(index - PAGE_LINES);
        break;
      case "ArrowRight":
        if (line.kind === "subscription" && line.group.isPartitioned && !line.isExpanded) onToggle(line.key);
        else if (line.kind === "subscription" && line.isExpanded) moveTo(index + 1);
        else return;
        break;
      case "ArrowLeft":
        if (line.kind === "subscription" && line.isExpanded) onToggle(line.key);
        else if (line.kind === "partition") moveTo(lines.findIndex((l) => l.key === line.group.key));
        else return;
        break;
      case " ":
        if (!isOnRow || line.kind !== "subscription" || !line.group.isPartitioned) return;
        onToggle(line.key);
        break;
      case "Enter":
        if (!isOnRow) return; // a focused link follows itself
        onOpen(line.group);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  return (
    <div
      role="treegrid"
      aria-label="Leaders"
      aria-rowcount={lines.length + 1}
      className="board"
      data-outdated={isOutdated ? "true" : undefined}
      onKeyDown={onKeyDown}
      onFocus={(event) => {
        const index = (event.target as HTMLElement).closest<HTMLElement>("[data-index]")?.dataset.index;
        if (index !== undefined && lines[Number(index)]) setActiveKey(lines[Number(index)]!.key);
      }}
    >
      <div role="rowgroup" className="board-head">
        <div role="row" aria-rowindex={1} className="board-line board-header">
          {COLUMNS.map((column) => (
            <div key={column} role="columnheader" className="board-cell">
              {column}
            </div>
          ))}
        </div>
      </div>
      <div role="rowgroup" ref={listRef} className="board-body" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const line = lines[item.index]!;
          const props: LineProps = {
            line,
            index: item.index,
            start: item.start - scrollMargin,
            nowMs,
            isActive: item.index === activeIndex,
            isHighlighted: highlighted.has(line.key),
            onToggle,
            subscriptionHref,
            consumerHref,
          };
          return line.kind === "subscription" ? <SubscriptionLine key={line.key} {...props} /> : <PartitionLine key={line.key} {...props} />;
        })}
      </div>
    </div>
  );
}
