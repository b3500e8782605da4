// `returnTo` values as an attacker would put them in a link to Baton's sign-in (the query string
// exactly as sent), with the path Baton must send the visitor back to. Browsers drop tab, LF and
// CR from a URL and read `\` as `/`, so the first ones meant another site before issue 34.

export const HOSTILE_RETURN_PATHS: ReadonlyArray<{ label: string; query: string; expectedPath: string }> = [
  { label: "tab between the slashes", query: "%2F%09%2Fevil.example%2Fc", expectedPath: "/" },
  { label: "LF between the slashes", query: "%2F%0A%2Fevil.example%2Fc", expectedPath: "/" },
  { label: "CR between the slashes", query: "%2F%0D%2Fevil.example%2Fc", expectedPath: "/" },
  { label: "tab, then a backslash", query: "%2F%09%5Cevil.example%2Fc", expectedPath: "/" },
  { label: "tab, with the slashes unencoded", query: "/%09/evil.example/c", expectedPath: "/" },
  { label: "scheme-relative //", query: "%2F%2Fevil.example%2Fc", expectedPath: "/" },
  { label: "scheme-relative //, unencoded", query: "//evil.example/c", expectedPath: "/" },
  { label: "slash and backslash", query: "%2F%5Cevil.example%2Fc", expectedPath: "/" },
  { label: "an absolute https:// URL", query: "https%3A%2F%2Fevil.example%2Fc", expectedPath: "/" },
  { label: "an absolute https:// URL, unencoded", query: "https://evil.example/c", expectedPath: "/" },
  { label: "double-encoded //", query: "%252F%252Fevil.example%252Fc", expectedPath: "/" },
  // Decoded once, these are paths on Baton that merely contain an encoded character: they stay.
  { label: "double-encoded tab", query: "%2F%2509%2Fevil.example%2Fc", expectedPath: "/%09/evil.example/c" },
  { label: "double-encoded backslash", query: "%2F%255Cevil.example%2Fc", expectedPath: "/%5Cevil.example/c" },
];
