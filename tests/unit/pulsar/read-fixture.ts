// Reads one recorded broker answer from tests/fixtures/pulsar/<version>/<scenario>.json.
import { readFileSync } from "node:fs";
import path from "node:path";

export const FIXTURE_VERSIONS = ["4.2.4", "3.0.7"] as const;
export type FixtureVersion = (typeof FIXTURE_VERSIONS)[number];

export function readFixtureBody(version: FixtureVersion, scenario: string): unknown {
  const file = path.resolve("tests", "fixtures", "pulsar", version, `${scenario}.json`);
  return (JSON.parse(readFileSync(file, "utf8")) as { body: unknown }).body;
}
