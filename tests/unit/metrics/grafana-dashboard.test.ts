import { readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { getProcessMetrics } from "@/lib/metrics/process-registry";
import { buildSnapshotRegistry, renderHolderInfo } from "@/lib/metrics/render-metrics";
import { ANNOTATION_KINDS } from "@/lib/http/read-api-params";

// docs/grafana-dashboard.json is built on Baton's metrics: every metric its PromQL names must be
// one /metrics (web app or worker) exposes, and its annotations must call the annotations API.

type Target = { expr?: string };
type Dashboard = {
  panels: { title: string; targets: Target[] }[];
  annotations: { list: { name: string; expr?: string; target?: { url?: string; url_options?: { params: { key: string; value: string }[] } } }[] };
};

const dashboard = JSON.parse(readFileSync(path.join(process.cwd(), "docs/grafana-dashboard.json"), "utf8")) as Dashboard;

async function exposedNames(): Promise<Set<string>> {
  const empty = { nowSeconds: 0, holders: [], resources: [], changes: [], sources: [], services: [], deadLetters: [], maxResourceSeries: 1 };
  const metrics = [...(await buildSnapshotRegistry(empty).getMetricsAsJSON()), ...(await getProcessMetrics().registry.getMetricsAsJSON())];
  const written = [...renderHolderInfo(empty).matchAll(/^# TYPE (\S+)/gm)].map((match) => match[1]!);
  return new Set([...metrics.map((metric) => metric.name), ...written]);
}

function namesIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:baton|process|nodejs)_[a-z0-9_]+)/g)].map((match) => match[1]!.replace(/_(bucket|sum|count)$/, ""));
}

describe("docs/grafana-dashboard.json", () => {
  it("queries only metrics that /metrics exposes", async () => {
    const exposed = await exposedNames();
    const exprs = [
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr ?? "")),
      ...dashboard.annotations.list.map((item) => item.expr ?? ""),
    ];
    const named = exprs.flatMap(namesIn);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((name) => !exposed.has(name))).toEqual([]);
  });

  it("draws holder changes and deployments from GET /api/v1/annotations over Grafana's range", () => {
    const fromApi = dashboard.annotations.list.filter((item) => item.target?.url?.endsWith("/api/v1/annotations"));
    const params = fromApi.map((item) => Object.fromEntries(item.target!.url_options!.params.map((param) => [param.key, param.value])));
    // Grafana's own variables, which it fills in: not template literals.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's $__from and $__to as the dashboard JSON holds them
    expect(params).toEqual(ANNOTATION_KINDS.map((kind) => ({ kind, from: "${__from}", to: "${__to}" })));
  });
});
