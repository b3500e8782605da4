import { describe, expect, it } from "vitest";

import { numberArrayLiteral, textArrayLiteral } from "@/lib/ingest/array-literal";

describe("array literals", () => {
  it("quotes every text element and escapes quotes and backslashes", () => {
    expect(textArrayLiteral(["plain", 'say "hi"', "back\\slash", "a,b", "{x}", "NULL", " ", null, "ü\u{1F600}"])).toBe(
      '{"plain","say \\"hi\\"","back\\\\slash","a,b","{x}","NULL"," ",NULL,"ü\u{1F600}"}',
    );
  });

  it("writes numbers and NULLs", () => {
    expect(numberArrayLiteral([0, -1, 2147483647, 1764000000123, null])).toBe("{0,-1,2147483647,1764000000123,NULL}");
    expect(numberArrayLiteral([])).toBe("{}");
    expect(textArrayLiteral([])).toBe("{}");
  });
});
