// `node --import tsx tests/bench/cpu-profile-summary.ts <file.cpuprofile>`: where a process's CPU
// time went, from a profile written by `node --cpu-prof` (bench:ingest --cpu-prof-dir writes one
// for the ingest server). Each sample is charged to the innermost frame of its stack that belongs
// to a known stage of the ingest path (reading the body, JSON parse, validation, building the
// statement, the pg driver, HTTP); what matches none is charged by its leaf frame's name.
import { readFileSync } from "node:fs";

type ProfileNode = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** Innermost match wins: the stages, checked from the leaf up. */
const STAGES: { name: string; matches(frame: ProfileNode["callFrame"]): boolean }[] = [
  { name: "JSON parse (the request body)", matches: (f) => (f.functionName === "parse" && f.url === "") || /^parse(Json|Ndjson)Items$/.test(f.functionName) },
  {
    name: "validation (lib/ingest/validate-*, check-*, safe-json)",
    matches: (f) => /lib\/ingest\/(validate-|check-|safe-json|timestamp|text-schema)/.test(f.url),
  },
  {
    name: "COPY data and rollup counts (event-copy-data, binary-copy-writer, minute-counts)",
    matches: (f) => /lib\/(ingest\/(write-events|event-copy-data|minute-counts)|db\/binary-copy-writer)/.test(f.url),
  },
  { name: "reading the body (parse-events-body, web streams)", matches: (f) => /lib\/ingest\/parse-events-body|internal\/webstreams|undici/.test(f.url) },
  { name: "pg driver (protocol, sockets)", matches: (f) => /node_modules\/pg(-protocol)?\//.test(f.url) },
  { name: "HTTP server and response (node:http, route-server)", matches: (f) => /_http_|node:http|route-server|lib\/http\//.test(f.url) },
];

function summarise(file: string): void {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOf.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame;
    let stage: string | null = null;
    for (let at: number | undefined = id; at !== undefined && stage === null; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      stage = STAGES.find((s) => s.matches(frame))?.name ?? null;
    }
    const name =
      stage ??
      (leaf.functionName.startsWith("(")
        ? leaf.functionName
        : `other: ${leaf.functionName || "(anonymous)"} ${leaf.url.replace(/^.*\/(node_modules|lib|app|tests)\//, "$1/")}`);
    stageOf.set(id, name);
    return name;
  };
  const micros = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    const stage = classify(id);
    micros.set(stage, (micros.get(stage) ?? 0) + delta);
  });
  const idle = micros.get("(idle)") ?? 0;
  const busy = total - idle;
  console.log(`${file}: ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s on CPU (idle ${(idle / 1e6).toFixed(1)} s)`);
  const rows = [...micros.entries()].filter(([name]) => name !== "(idle)").sort((a, b) => b[1] - a[1]);
  for (const [name, us] of rows.slice(0, 16)) console.log(`  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1e6).toFixed(2).padStart(7)} s  ${name}`);
}

for (const file of process.argv.slice(2)) summarise(file);
