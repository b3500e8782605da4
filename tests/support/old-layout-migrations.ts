import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { MIGRATIONS_DIR } from "@/lib/db/migrate";

/** The migration that partitions exclusivity_event: the old layout is every migration before it. */
export const PARTITIONED_LAYOUT_MIGRATION = "20261124190000_partitioned_events";

/**
 * A temporary copy of prisma/migrations holding only the migrations before the partitioned
 * layout, for building an old-layout store (the migration test, the old-layout figures). The
 * caller removes it (rmSync) when done; it is small.
 */
export function createOldLayoutMigrationsDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "baton-old-layout-"));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  for (const name of readdirSync(dir)) {
    if (name >= PARTITIONED_LAYOUT_MIGRATION && name !== "migration_lock.toml") rmSync(path.join(dir, name), { recursive: true, force: true });
  }
  return dir;
}
