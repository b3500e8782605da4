// Used by the Prisma CLI (generate; migrate where its native engine can be downloaded).
// Baton itself applies migrations through lib/db/migrate.ts, offline.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" },
});
