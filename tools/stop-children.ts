// Stopping the processes a launcher started (`npm start`, `npm run demo`): each is asked to stop
// (SIGTERM) and given a grace period to finish what it is doing. One still running after it is
// killed (SIGKILL), and the log says so: a web server whose browser tabs keep their keep-alive
// connections busy (a dashboard refreshing every few seconds) would otherwise never finish closing,
// and Ctrl-C would hang.
import type { ChildProcess } from "node:child_process";

export type NamedChild = { name: string; process: ChildProcess };

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function exited(child: ChildProcess): Promise<void> {
  return hasExited(child) ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Stops every child at once; resolves when all have exited. */
export async function stopChildren(children: readonly NamedChild[], options: { graceMs: number; log: (line: string) => void }): Promise<void> {
  await Promise.all(
    children.map(async ({ name, process: child }) => {
      if (hasExited(child)) return;
      child.kill("SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const isLate = await Promise.race([
        exited(child).then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), options.graceMs);
        }),
      ]);
      clearTimeout(timer);
      if (!isLate) return;
      options.log(`${name} did not stop within ${options.graceMs / 1000} s of SIGTERM: killed`);
      child.kill("SIGKILL");
      await exited(child);
    }),
  );
}
