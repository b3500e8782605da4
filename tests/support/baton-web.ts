import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

import { findFreePort } from "@/tools/free-port";
import { pollUntil } from "@/tools/poll-until";

// A Baton web server of the test's own (the access-control tests need several configurations
// side by side), on the production build that the e2e run serves: tools/serve-web.ts as
// `npm start` runs it, or plain `next start` with `isPlainNext`.

export type BatonWeb = { url: string; port: number; output(): string; stop(): Promise<void> };

export async function startBatonWeb(options: {
  env: Record<string, string>;
  isPlainNext?: boolean;
  port?: number;
  /** tools/serve-web.ts's arguments after the port, as `npm start` passes them (default: the host 127.0.0.1). */
  serveArgs?: string[];
}): Promise<BatonWeb> {
  const port = options.port ?? (await findFreePort());
  const root = process.cwd();
  const args = options.isPlainNext
    ? [path.join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-H", "127.0.0.1", "-p", String(port)]
    : ["--import", "tsx", path.join(root, "tools", "serve-web.ts"), String(port), ...(options.serveArgs ?? ["127.0.0.1"])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    // Only what is given: the test runner's own BATON_* settings must not leak into this server.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      BATON_NEXT_DIST_DIR: process.env.BATON_NEXT_DIST_DIR ?? "",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await pollUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`Baton's web server exited (${child.exitCode}): ${output}`);
      return fetch(`${url}/api/openapi.json`).then(
        (response) => response.status,
        () => 0,
      );
    },
    (status) => status === 200,
    { maxAttempts: 600, intervalMs: 100, description: "Baton's web server answers" },
  );
  return {
    url,
    port,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** `npm run token:create -- --name <name> --scope <scope>` on `databaseUrl`; the token. */
export async function createTokenWithCli(databaseUrl: string, name: string, scope: string): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", path.join(process.cwd(), "tools", "token.ts"), "create", "--name", name, "--scope", scope],
    {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`token:create failed: ${stderr}`);
  return stdout.trim();
}
