import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { planListen } from "@/lib/http/listen-address";
import { getProcessMetrics } from "@/lib/metrics/process-registry";
import { serveWorkerMetrics } from "@/lib/metrics/serve-worker-metrics";

// The worker's own /metrics: poll cycle durations as a histogram, over real HTTP.

const shutdown = new AbortController();
let url: string;
const logs: string[] = [];

beforeAll(async () => {
  // Open mode, BATON_LISTEN_HOST unset: this machine only.
  const listening = await serveWorkerMetrics(planListen({ listenHost: null, accessMode: "open", port: 0 }), shutdown.signal, (line) => logs.push(line));
  url = `http://127.0.0.1:${listening.port}`;
});

afterAll(() => shutdown.abort());

describe("serveWorkerMetrics", () => {
  it("answers the poll cycle and discovery histograms and the process metrics at /metrics", async () => {
    const histogram = getProcessMetrics().pollDuration;
    histogram.observe({ cluster: "worker-test", kind: "redis" }, 0.03);
    histogram.observe({ cluster: "worker-test", kind: "redis" }, 2);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const lines = (await response.text()).split("\n");
    expect(lines).toContain('baton_poll_duration_seconds_bucket{le="0.05",cluster="worker-test",kind="redis"} 1');
    expect(lines).toContain('baton_poll_duration_seconds_bucket{le="2.5",cluster="worker-test",kind="redis"} 2');
    expect(lines).toContain('baton_poll_duration_seconds_count{cluster="worker-test",kind="redis"} 2');
    expect(lines).toContain("# TYPE baton_discovery_duration_seconds histogram");
    expect(lines.some((line) => line.startsWith("process_resident_memory_bytes "))).toBe(true);
    expect(logs.join("\n")).toMatch(
      /^metrics \(GET \/metrics\) listening on 127\.0\.0\.1( and ::1| \(not ::1: \w+\)), port \d+ \(open mode: this machine only; /,
    );
  });

  it("answers 404 to any other path", async () => {
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(404);
    await response.text();
  });
});
