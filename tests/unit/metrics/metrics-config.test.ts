import { describe, expect, it } from "vitest";

import { loadConfig } from "@/lib/config";

describe("metrics settings", () => {
  it("defaults to per-resource series up to 20,000 resources and no worker metrics port", () => {
    expect(loadConfig({}).metrics).toEqual({ maxResourceSeries: 20_000, workerPort: 0 });
  });

  it("reads both settings", () => {
    expect(loadConfig({ BATON_METRICS_MAX_RESOURCES: "0", BATON_WORKER_METRICS_PORT: "9464" }).metrics).toEqual({ maxResourceSeries: 0, workerPort: 9464 });
  });

  it.each([
    ["BATON_METRICS_MAX_RESOURCES", "-1"],
    ["BATON_METRICS_MAX_RESOURCES", "lots"],
    ["BATON_WORKER_METRICS_PORT", "70000"],
    ["BATON_WORKER_METRICS_PORT", "1.5"],
  ])("refuses %s=%s, naming the variable", (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
