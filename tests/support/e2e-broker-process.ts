import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

// A real Pulsar broker for a browser test, on the fixed ports playwright.config.ts gives the
// worker (LEADERS_E2E_BROKER), in a helper process: Baton's tools need Node's react-server
// condition, which Playwright's workers do not have. Stopped when close() ends the helper's stdin
// (or when the test process dies and the pipe closes).

const SCRIPT = `
const { startBroker } = require(${JSON.stringify(path.join(process.cwd(), "tools/pulsar/broker.ts"))});
const [webPort, brokerPort] = process.argv.slice(-2).map(Number);
let broker;
startBroker({ webPort, brokerPort }).then(
  (started) => { broker = started; process.stdout.write(JSON.stringify({ adminUrl: started.adminUrl, wsUrl: started.wsUrl }) + "\\n"); },
  (error) => { process.stdout.write(JSON.stringify({ error: String((error && error.stack) || error) }) + "\\n"); process.exit(1); },
);
process.stdin.resume();
process.stdin.on("end", async () => {
  await broker?.stop().catch(() => undefined);
  process.exit(0);
});
`;

export type E2eBroker = { adminUrl: string; wsUrl: string; close(): Promise<void> };

/** Starts the broker and resolves once its admin API answers (10-60 s on a busy two-core machine). */
export async function startE2eBroker(ports: { webPort: number; brokerPort: number }): Promise<E2eBroker> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "-e", SCRIPT, "--", String(ports.webPort), String(ports.brokerPort)], {
    cwd: process.cwd(),
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    child.stdin!.end();
    await exited;
  };
  const started = await new Promise<{ adminUrl: string; wsUrl: string }>((resolve, reject) => {
    void exited.then(() => reject(new Error("the broker helper exited before the broker answered")));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      let message: { adminUrl?: string; wsUrl?: string; error?: string };
      try {
        message = JSON.parse(line);
      } catch {
        return; // a log line of the broker launcher
      }
      if (message.error) reject(new Error(message.error));
      else if (message.adminUrl && message.wsUrl) resolve({ adminUrl: message.adminUrl, wsUrl: message.wsUrl });
    });
  }).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { ...started, close };
}
