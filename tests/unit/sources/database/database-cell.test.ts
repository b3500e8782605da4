import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { LockKindCell } from "@/components/locks/kinds/kind-details";
import { summarizeKindDetails } from "@/components/locks/kinds/kind-facts";

const cell = (details: Record<string, unknown>) => renderToStaticMarkup(createElement(LockKindCell, { kind: "database", details }));

describe("the board's cell of a PostgreSQL advisory lock", () => {
  it("a named key: its number and library; a shared lock's other holders", () => {
    expect(summarizeKindDetails("database", { key: "-1938907210,614392357", name: "nightly-export", library: "advisory-lock" })).toBe(
      "key -1938907210,614392357, advisory-lock",
    );
    expect(summarizeKindDetails("database", { key: "500", sharedHolders: [{ pid: 3 }] })).toBe("shared with 1");
    expect(summarizeKindDetails("database", { key: "43" })).toBeNull();
  });

  it("a MariaDB/MySQL GET_LOCK: the function, and how the server was read where it hides the queue", () => {
    expect(summarizeKindDetails("database", { lockFunction: "GET_LOCK", name: "job:daily", readMode: "performance_schema" })).toBe("GET_LOCK");
    expect(summarizeKindDetails("database", { lockFunction: "GET_LOCK", name: "job:daily", readMode: "plugin" })).toBe("GET_LOCK, no waiters seen (plugin)");
    expect(summarizeKindDetails("database", { lockFunction: "GET_LOCK", name: "job:daily", readMode: "names" })).toBe("GET_LOCK, read by name");
  });

  it("a holder idle in transaction: how long, and past the bound the loud word", () => {
    expect(cell({ key: "45", idleInTransactionForMs: 2_000, isStuckIdleInTransaction: false })).not.toContain("stuck");
    const stuck = cell({ key: "45", idleInTransactionForMs: 120_000, isStuckIdleInTransaction: true });
    expect(stuck).toContain("idle in transaction");
    expect(stuck).toContain('<strong class="loud"> stuck idle in transaction</strong>');
  });
});
