import { describe, expect, it } from "vitest";

import type { CycleStates } from "@/lib/poller/source-cycles";
import { WrittenRows } from "@/lib/poller/written-rows";
import type { ResourceState } from "@/lib/poller/contract/partition-state";
import { consumer, observation, stateFrom } from "@/tests/unit/sources/pulsar/builders";

// The poll loop's memory of what it wrote: per cycle, only new rows, changed rows and rows whose
// moving figures are due.

const START = Date.parse("2026-11-22T10:00:00.000Z");
const at = (ms: number) => new Date(START + ms).toISOString();

function cycleOf(cycleAtMs: number, count: number, override: (i: number) => Partial<ResourceState> = () => ({})): CycleStates {
  const states = Array.from({ length: count }, (_, i) =>
    stateFrom(observation({ topic: `persistent://acme/orders/t${i}`, holder: "w1", consumers: [consumer("w1")] }), at(cycleAtMs), {
      holderSince: at(0),
      ...override(i),
    }),
  );
  return { shape: "subscription-partition", states };
}

/** Runs cycles every cycleMs for durationMs; returns the rows written per cycle after the first. */
function rowsPerCycle(cycleMs: number, durationMs: number, count: number, override: (i: number, cycleAtMs: number) => Partial<ResourceState>): number[] {
  const written = new WrittenRows();
  const perCycle: number[] = [];
  for (let t = 0; t <= durationMs; t += cycleMs) {
    const cycle = cycleOf(t, count, (i) => override(i, t));
    const toWrite = written.select(cycle, at(t));
    written.remember(toWrite);
    if (t > 0) perCycle.push(toWrite.states.length);
  }
  return perCycle;
}

describe("WrittenRows", () => {
  it("writes every row once, then none while nothing changes", () => {
    const written = new WrittenRows();
    const first = written.select(cycleOf(0, 100), at(0));
    expect(first.states).toHaveLength(100);
    written.remember(first);
    expect(written.select(cycleOf(5_000, 100), at(5_000)).states).toHaveLength(0);
  });

  it("writes only the changed rows", () => {
    const written = new WrittenRows();
    written.remember(written.select(cycleOf(0, 100), at(0)));
    const next = written.select(
      cycleOf(5_000, 100, (i) => (i < 3 ? { holder: "w2", lastChangeAt: at(5_000) } : {})),
      at(5_000),
    );
    expect(next.states.map((s) => (s as ResourceState).topic)).toEqual([
      "persistent://acme/orders/t0",
      "persistent://acme/orders/t1",
      "persistent://acme/orders/t2",
    ]);
  });

  it("writes 300 busy resources' moving figures about once a minute each with 5-second cycles", () => {
    const perCycle = rowsPerCycle(5_000, 600_000, 300, (i, t) => ({ backlog: t + i }));
    const total = perCycle.reduce((a, b) => a + b, 0);
    // Ten minutes: about ten flushes per resource, spread over the cycles.
    expect(total).toBeGreaterThanOrEqual(2_700);
    expect(total).toBeLessThanOrEqual(3_300);
    expect(Math.max(...perCycle)).toBeLessThan(300 / 4);
  });

  it("writes a busy resource at most about once every three cycles when a cycle takes 50 s", () => {
    const perCycle = rowsPerCycle(50_000, 3_000_000, 300, (i, t) => ({ backlog: t + i }));
    const total = perCycle.reduce((a, b) => a + b, 0);
    expect(total / perCycle.length).toBeLessThanOrEqual(300 / 2.5);
  });

  it("keeps a signature per row, not the state: a held state may be dropped by the cycles", () => {
    const written = new WrittenRows();
    written.remember(written.select(cycleOf(0, 10), at(0)));
    expect(written.size).toBe(10);
    // The same rows read back (a restarted poller): nothing to write.
    expect(written.select(JSON.parse(JSON.stringify(cycleOf(5_000, 10))) as CycleStates, at(5_000)).states).toHaveLength(0);
  });
});
