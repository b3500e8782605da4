const VITEST_PROJECTS = new Set(["unit", "integration"]);
export const USAGE = "usage: npm run test:repeat -- <unit|integration|e2e|test file>... [--times N] [--load K]";

/** What to repeat: vitest projects and files, the browser tests (all or some files), how often, beside how much load. */
export type Plan = { vitestProjects: string[]; vitestFiles: string[]; e2e: boolean; e2eFiles: string[]; times: number; load: number };

function readCount(flag: string, value: string | undefined, min: number): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < min) throw new Error(`${flag} must be a whole number of at least ${min} (got "${value ?? ""}")\n${USAGE}`);
  return count;
}

/** Reads the command line; a target or option it does not know is an error naming it, with the usage. */
export function readPlan(args: string[]): Plan {
  const plan: Plan = { vitestProjects: [], vitestFiles: [], e2e: false, e2eFiles: [], times: 3, load: 0 };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === "--times") plan.times = readCount("--times", args[++i], 1);
    else if (arg === "--load") plan.load = readCount("--load", args[++i], 0);
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}\n${USAGE}`);
    else if (VITEST_PROJECTS.has(arg)) plan.vitestProjects.push(arg);
    else if (arg === "e2e") plan.e2e = true;
    else if (arg.includes("tests/e2e/")) plan.e2eFiles.push(arg);
    else if (arg.includes("tests/unit/") || arg.includes("tests/integration/")) plan.vitestFiles.push(arg);
    else throw new Error(`"${arg}" is neither a project (unit, integration, e2e) nor a file under tests/unit, tests/integration or tests/e2e\n${USAGE}`);
  }
  if (plan.vitestProjects.length + plan.vitestFiles.length + plan.e2eFiles.length === 0 && !plan.e2e) throw new Error(`name at least one target\n${USAGE}`);
  return plan;
}
