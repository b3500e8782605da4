// `npm run check:boundaries`: prints each import that breaks one of Baton's boundaries (see
// tools/boundaries/check-boundaries.ts) and exits non-zero if any does. `npm test` checks the same.
import { checkBoundaries } from "@/tools/boundaries/check-boundaries";
import { readProjectModules } from "@/tools/boundaries/read-project-modules";

const modules = readProjectModules(process.cwd());
const lines = checkBoundaries(modules);
for (const line of lines) console.log(line);
console.log(`boundaries: ${modules.length} modules, ${lines.length} broken`);
process.exit(lines.length === 0 ? 0 : 1);
