import { describe, expect, it } from "vitest";

import { safeReturnPath } from "@/lib/auth/access-rules";

// Where sign-in sends a visitor back to. Browsers (and the WHATWG URL parser) drop tab, LF and CR
// anywhere in a URL and read `\` as `/`, so each hostile value below would leave Baton if it
// were taken as given: each must come back as "/". The values are as the query string decodes
// them (`returnTo=%2F%09%2Fevil.example` is "/\t/evil.example").

const HOSTILE: ReadonlyArray<[string, string | null | undefined]> = [
  ["nothing", null],
  ["undefined", undefined],
  ["empty", ""],
  ["absolute https URL", "https://evil.example/c"],
  ["absolute http URL", "http://evil.example/c"],
  ["scheme-relative", "//evil.example/c"],
  ["backslash after the slash", "/\\evil.example/c"],
  ["backslashes only", "\\\\evil.example/c"],
  ["tab between the slashes", "/\t/evil.example/c"],
  ["LF between the slashes", "/\n/evil.example/c"],
  ["CR between the slashes", "/\r/evil.example/c"],
  ["CRLF between the slashes", "/\r\n/evil.example/c"],
  ["tab then backslash", "/\t\\evil.example/c"],
  ["several tabs", "/\t\t\t/evil.example/c"],
  ["a tab inside an otherwise local path", "/violations\t?range=1h"],
  ["NUL", "/\u0000/evil.example/c"],
  ["DEL", "/\u007f/evil.example/c"],
  ["a C1 control", "/\u0085/evil.example/c"],
  ["javascript: URL", "javascript:alert(1)"],
  ["data: URL", "data:text/html,<script>alert(1)</script>"],
  ["leading space", " /violations"],
  ["relative path", "violations"],
  ["encoded once, not decoded again", "%2F%2Fevil.example%2Fc"],
  ["encoded tab, not decoded again", "%2F%09%2Fevil.example%2Fc"],
  ["two backslashes after the slash", "/\\\\evil.example"],
];

/** Values that stay on Baton: returned as the browser would resolve them. */
const LOCAL: ReadonlyArray<[string, string, string]> = [
  ["the board", "/", "/"],
  ["a page with a query", "/violations?range=1h", "/violations?range=1h"],
  ["a page with a fragment", "/consumers/orders#timeline", "/consumers/orders#timeline"],
  ["a percent-encoded tab stays text in the path", "/%09/evil.example/c", "/%09/evil.example/c"],
  ["a percent-encoded slash stays text in the path", "/%2F/evil.example/c", "/%2F/evil.example/c"],
  ["a double-encoded tab stays text", "/%2509/evil.example/c", "/%2509/evil.example/c"],
  ["dot segments resolve within Baton", "/a/../violations", "/violations"],
  ["dot segments cannot climb above the root", "/../../evil.example", "/evil.example"],
  ["a query that names another site is only a query", "/violations?next=//evil.example", "/violations?next=//evil.example"],
  ["non-ASCII is percent-encoded", "/consumers/zürich", "/consumers/z%C3%BCrich"],
];

describe("safeReturnPath", () => {
  it.each(HOSTILE)("refuses %s", (_label, value) => {
    expect(safeReturnPath(value)).toBe("/");
  });

  it.each(LOCAL)("keeps %s", (_label, value, expected) => {
    expect(safeReturnPath(value)).toBe(expected);
  });

  it("returns only paths that keep any origin they are resolved against", () => {
    for (const [, value] of [...HOSTILE, ...LOCAL]) {
      const returned = safeReturnPath(value);
      for (const origin of ["https://baton.example.com", "http://127.0.0.1:3000"]) expect(new URL(returned, origin).origin).toBe(origin);
    }
  });
});
