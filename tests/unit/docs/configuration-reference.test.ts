import { readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { renderConfigurationReference } from "@/tools/docs/render-configuration";

// docs/configuration.md is generated from the configuration's zod schemas; a schema changed
// without regenerating it (or a hand edit) makes this fail.

describe("docs/configuration.md", () => {
  it("is what npm run docs:config renders from the zod schemas now", () => {
    const committed = readFileSync(path.join(process.cwd(), "docs", "configuration.md"), "utf8");
    const isCurrent = committed === renderConfigurationReference();
    expect(isCurrent, "docs/configuration.md is not current: run npm run docs:config").toBe(true);
  });

  it("lists every cluster field of every registered kind and every environment variable", () => {
    const reference = renderConfigurationReference();
    for (const name of [
      "DATABASE_URL",
      "BATON_CLUSTERS",
      "BATON_OIDC_ISSUER",
      "BATON_ALERTMANAGER_URL",
      "maxStatsBytes",
      "patterns[].layout",
      "maxWaitersRead",
      "prefixes[].layout",
      "segments",
    ]) {
      expect(reference).toContain(`| \`${name}\` |`);
    }
  });

  it("states each shape a setting accepts when it takes several", () => {
    expect(renderConfigurationReference()).toContain("| `BATON_RECOVERED_AFTER_SECONDS` | `ttl` | `ttl` or integer 1–86400 |");
  });
});
