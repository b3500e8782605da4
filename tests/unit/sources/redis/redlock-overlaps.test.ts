import { describe, expect, it } from "vitest";

import { loadConfig } from "@/lib/config";

// A Redlock group reads every pattern on every master: keys on one master only need a cluster
// object of their own, with patterns the group's do not match. The overlap is refused at start.

const GROUP = { kind: "redis", name: "redlock", urls: ["redis://m1:6379", "redis://m2:6379", "redis://m3:6379"], patterns: [{ match: "lock:*" }] };

function load(clusters: unknown[]) {
  return () => loadConfig({ BATON_CLUSTERS: JSON.stringify(clusters) });
}

describe("a Redlock group and a single-master cluster over one of its masters", () => {
  it("is refused when the group's patterns match the single master's keys", () => {
    expect(load([GROUP, { kind: "redis", name: "m1-jobs", url: "redis://m1", patterns: [{ match: "lock:jobs:*" }] }])).toThrow(
      /cluster "m1-jobs" reads "lock:jobs:\*" on m1:6379\/0, a master of the Redlock group "redlock", whose pattern "lock:\*" matches the same keys: the group would read those single-master locks as Redlock splits/,
    );
  });

  it("is accepted with patterns of their own, or on another master or database", () => {
    expect(load([GROUP, { kind: "redis", name: "m1-jobs", url: "redis://m1:6379", patterns: [{ match: "job-lock:*" }] }])).not.toThrow();
    expect(load([GROUP, { kind: "redis", name: "m4", url: "redis://m4:6379", patterns: [{ match: "lock:*" }] }])).not.toThrow();
    expect(load([GROUP, { kind: "redis", name: "m1-db2", url: "redis://m1:6379/2", patterns: [{ match: "lock:*" }] }])).not.toThrow();
  });
});
