import { describe, expect, it } from "vitest";

import { filterGroups, listFacets, matchesText, NO_FILTERS, readBoardFilters, writeBoardFilters } from "@/lib/board/board-filters";
import { buildBoard } from "@/lib/board/build-board";
import { cluster, NOW, resource, THRESHOLDS } from "@/tests/unit/board/builders";

const groups = buildBoard({
  nowMs: NOW,
  thresholds: THRESHOLDS,
  clusters: [cluster(), cluster({ name: "eu" })],
  deployments: [],
  resources: [
    resource({ subscription: "billing", holder: "billing-1", consumers: ["billing-1"] }),
    resource({
      cluster: "eu",
      tenant: "beta",
      namespace: "beta/jobs",
      topic: "persistent://beta/jobs/run",
      subscription: "runner",
      holder: null,
      consumers: [],
    }),
    resource({ namespace: "acme/audit", topic: "persistent://acme/audit/log", subscription: "auditor", holder: "audit-7", consumers: ["audit-7"] }),
  ],
}).subscriptions;

describe("board filters", () => {
  it("round-trips through the URL, leaving out what is not set", () => {
    const filters = { cluster: "eu", tenant: "beta", namespace: "beta/jobs", q: "runner  ", includeGone: true, kind: "redis" };
    const query = writeBoardFilters(filters);
    expect(query).toBe("cluster=eu&tenant=beta&namespace=beta%2Fjobs&q=runner&includeGone=true&kind=redis");
    expect(readBoardFilters(new URLSearchParams(query))).toEqual({ ...filters, q: "runner" });
    expect(writeBoardFilters(NO_FILTERS)).toBe("");
    expect(readBoardFilters({ cluster: "", q: ["a", "b"], includeGone: "yes" })).toEqual({ ...NO_FILTERS, q: "a" });
  });

  it.each([
    [{ cluster: "eu" }, ["runner"]],
    [{ tenant: "acme" }, ["auditor", "billing"]],
    [{ namespace: "acme/audit" }, ["auditor"]],
    [{ q: "AUDIT-7" }, ["auditor"]],
    [{ q: "billing acme" }, ["billing"]],
    [{ q: "no active consumer" }, ["runner"]],
    [{ q: "critical" }, ["runner"]],
    [{ q: "nothing-like-this" }, []],
  ])("filters by %o", (filters, expected) => {
    expect(
      filterGroups(groups, { ...NO_FILTERS, ...filters })
        .map((g) => g.subscription)
        .sort(),
    ).toEqual(expected);
  });

  it("returns the same array when nothing filters (no work on refresh)", () => {
    expect(filterGroups(groups, NO_FILTERS)).toBe(groups);
    expect(matchesText(groups[0]!, "   ")).toBe(true);
  });

  it("offers the tenants and namespaces within the chosen cluster and tenant", () => {
    expect(listFacets(groups, { cluster: null, tenant: null })).toEqual({ tenants: ["acme", "beta"], namespaces: ["acme/audit", "acme/orders", "beta/jobs"] });
    expect(listFacets(groups, { cluster: "prod", tenant: null })).toEqual({ tenants: ["acme"], namespaces: ["acme/audit", "acme/orders"] });
    expect(listFacets(groups, { cluster: null, tenant: "beta" }).namespaces).toEqual(["beta/jobs"]);
  });
});
