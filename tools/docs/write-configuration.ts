import { writeFileSync } from "node:fs";
import path from "node:path";

import { renderConfigurationReference } from "./render-configuration";

// npm run docs:config: writes docs/configuration.md from the configuration's zod schemas.

export const CONFIGURATION_REFERENCE = path.join(process.cwd(), "docs", "configuration.md");

writeFileSync(CONFIGURATION_REFERENCE, renderConfigurationReference());
console.log(`[docs] wrote ${path.relative(process.cwd(), CONFIGURATION_REFERENCE)}`);
