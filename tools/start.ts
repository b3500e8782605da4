// `npm start`: validate the configuration, make the database ready (embedded PostgreSQL when
// no DATABASE_URL is given), apply migrations, build the web app when needed, and run it with
// the background worker (the pollers). Says loudly when no access control is configured, and
// refuses to start without it when BATON_ACCESS_CONTROL_REQUIRED=true (lib/config.ts). Open, it
// listens on this machine only unless BATON_LISTEN_HOST says otherwise (lib/http/listen-address.ts).
// Ctrl-C stops everything this started.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

import { syncClusters } from "@/lib/clusters/sync-clusters";
import { type Config, ConfigError, getListenSettings, loadConfig } from "@/lib/config";
import { createDb } from "@/lib/db/client";
import { planListen } from "@/lib/http/listen-address";
import { ensureNextBuild } from "@/lib/launcher/ensure-next-build";
import { prepareDatabase, StartupError } from "@/lib/launcher/prepare-database";
import { buildWorker, WORKER_NODE_ARGS, workerEnv } from "@/tools/build-worker.mjs";
import { buildServeWebArgs } from "@/tools/serve-web-args";
import { stopChildren } from "@/tools/stop-children";

const root = process.cwd();
const log = (line: string) => console.log(`[baton] ${line}`);
/** How long the web server and the worker get to finish their requests and cycles once asked to stop. */
const STOP_GRACE_MS = 10_000;

function describeAccess(config: Config): string {
  const method = config.access.method;
  if (method.mode === "oidc")
    return `access control: sign-in with ${method.issuer} (allowed: ${[...method.allowedDomains.map((d) => `@${d}`), ...method.allowedGroups.map((g) => `group ${g}`)].join(", ")})`;
  if (method.mode === "proxy") return `access control: the user from the ${method.userHeader} header of ${method.trustedProxies.join(", ")}`;
  return 'WARNING: no access control is configured: Baton is open to anyone who can reach this port (set BATON_OIDC_ISSUER or BATON_AUTH_PROXY_HEADER; README "Access control")';
}

async function main(): Promise<void> {
  const config = loadConfig();
  const listen = getListenSettings(config, config.port);
  const plan = planListen(listen);
  // Open and listening beyond this machine: that warning replaces the general one, as the first line.
  log(plan.warning ?? describeAccess(config));
  const database = await prepareDatabase(config, log);
  log(`database ready${database.embedded ? " (embedded PostgreSQL)" : ""}; migrations applied now: ${database.appliedMigrations.length}`);
  const db = createDb(database.url);
  await syncClusters(db, config);
  await db.$disconnect();
  ensureNextBuild(root, log);
  const workerModule = await buildWorker(root);

  const children: ChildProcess[] = [];
  // Without DATABASE_URL the web app finds the embedded server from the same configuration.
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  // Not `next start`: tools/serve-web.ts gives the app each request's peer address (trusted-proxy mode).
  const web = spawn(process.execPath, ["--import", "tsx", path.join(root, "tools", "serve-web.ts"), ...buildServeWebArgs(listen)], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  children.push(web);
  const worker = spawn(process.execPath, [...WORKER_NODE_ARGS, workerModule], { cwd: root, env: workerEnv(env), stdio: "inherit" });
  children.push(worker);
  log(`Baton is at ${plan.localUrl}`);

  let isStopping = false;
  const stop = async (code: number) => {
    if (isStopping) return;
    isStopping = true;
    await stopChildren(
      [
        { name: "the web server", process: web },
        { name: "the worker", process: worker },
      ],
      { graceMs: STOP_GRACE_MS, log },
    );
    await database.embedded?.stop();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  for (const child of children) {
    child.once("exit", (code) => {
      if (!isStopping) log(`a Baton process exited (code ${code}); stopping`);
      void stop(code ?? 1);
    });
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StartupError) {
    console.error(`Baton cannot start: ${error.message}`);
  } else {
    console.error("Baton cannot start:", error);
  }
  process.exit(1);
});
