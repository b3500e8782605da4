import "server-only";

import type { Db } from "@/lib/db/client";
import { sql } from "@/lib/db/sql";

/** Filter choices: every service and environment with a deployment, sorted. */
export async function listDeploymentChoices(db: Db): Promise<{ services: string[]; environments: string[] }> {
  const [row] = await db.$queryRaw<{ services: string[]; environments: string[] }[]>(sql`
    select (select coalesce(array_agg(distinct service order by service), '{}') from deployment) as services,
      (select coalesce(array_agg(distinct environment order by environment), '{}') from deployment) as environments`);
  return { services: row?.services ?? [], environments: row?.environments ?? [] };
}
