// `npm run test:clock [-- +1d +40d +400d]`: the unit and integration tests with the whole process
// tree's clock moved forward (vitest, the throwaway PostgreSQL and the Pulsar broker, all under
// libfaketime). A test that compares a fixed instant with the real clock passes on the day it was
// written and fails some day later; this finds it today. `npm test` runs the +400 days pass.
import path from "node:path";

import { ensureFaketime } from "@/tests/support/ensure-faketime";
import { addCounts, formatFailures, markFailures, NO_TESTS, type TestCounts } from "@/tests/support/read-test-reports";
import { CLOCK_OFFSET, runVitest, withoutSharedServers } from "@/tests/support/run-vitest";

const DEFAULT_OFFSETS = ["+1d", "+40d", "+400d"];
const root = process.cwd();
const log = (line: string) => console.log(`[test:clock] ${line}`);

async function main(): Promise<number> {
  const offsets = process.argv.slice(2);
  for (const offset of offsets) {
    if (!CLOCK_OFFSET.test(offset)) throw new Error(`"${offset}" is not a clock offset: use a sign, a number and s, m, h, d or y, e.g. +400d`);
  }
  const faketime = ensureFaketime(log);
  const results: { offset: string; counts: TestCounts }[] = [];
  for (const offset of offsets.length > 0 ? offsets : DEFAULT_OFFSETS) {
    log(`unit and integration tests with the clock moved ${offset}`);
    const counts = await runVitest({
      root,
      env: withoutSharedServers({ ...process.env, NEXT_TELEMETRY_DISABLED: "1" }),
      reportFile: path.join(root, "test-results", `vitest-clock${offset}.json`),
      projects: ["unit", "integration"],
      clockOffset: { faketime, offset },
    });
    results.push({ offset, counts });
  }
  for (const { offset, counts } of results) log(`clock ${offset}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  const total = results.reduce<TestCounts>((sum, r) => addCounts(sum, markFailures(r.counts, `clock ${r.offset}`)), NO_TESTS);
  if (total.failures.length > 0) console.log(formatFailures(total.failures));
  console.log(`\nclock: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  return total.failed > 0 || total.passed === 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`npm run test:clock cannot run: ${(error as Error).message}`);
    process.exit(1);
  },
);
