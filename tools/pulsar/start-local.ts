import path from "node:path";
import { DEFAULT_PULSAR_VERSION, isPulsarVersion, MissingPrerequisiteError, startBroker, type BrokerHandle } from "./broker";

/**
 * `npm run pulsar`: a local Pulsar standalone for development and demos, with its data kept under
 * .baton/pulsar/<version>/ between runs. Ports: BATON_PULSAR_WEB_PORT (default 8080) and
 * BATON_PULSAR_BROKER_PORT (default 6650); BATON_PULSAR_VERSION picks another supported version.
 * Ctrl-C stops the broker cleanly.
 */

// A developer tool outside the app, so it reads its own few variables rather than lib/config.
function readPort(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${name} must be a port number (1-65535), got "${raw}"`);
  }
  return port;
}

async function runLocalBroker(): Promise<void> {
  const requestedVersion = process.env.BATON_PULSAR_VERSION ?? DEFAULT_PULSAR_VERSION;
  if (!isPulsarVersion(requestedVersion)) {
    throw new Error(`BATON_PULSAR_VERSION=${requestedVersion} is not supported (use ${DEFAULT_PULSAR_VERSION} or 3.0.7)`);
  }
  const webPort = readPort("BATON_PULSAR_WEB_PORT", 8080);
  const brokerPort = readPort("BATON_PULSAR_BROKER_PORT", 6650);
  const dataDir = path.resolve(".baton", "pulsar", requestedVersion);

  let broker: BrokerHandle | undefined;
  let isStopping = false;
  const stopAndExit = (signal: NodeJS.Signals) => {
    if (isStopping) {
      console.error(`\n${signal} again: killing the broker now.`);
      process.exit(130);
    }
    isStopping = true;
    console.error(`\n${signal}: stopping Pulsar...`);
    const stopping = broker ? broker.stop({ keepData: true }) : Promise.resolve();
    stopping.then(
      () => {
        console.error("Pulsar stopped; data kept in", dataDir);
        process.exit(0);
      },
      (error: unknown) => {
        console.error("Stopping Pulsar failed:", error);
        process.exit(1);
      },
    );
  };
  // Installed before the start, so that Ctrl-C during a slow first start also stops cleanly.
  process.on("SIGINT", stopAndExit);
  process.on("SIGTERM", stopAndExit);

  broker = await startBroker({
    version: requestedVersion,
    dataDir,
    keepData: true,
    webPort,
    brokerPort,
    log: (line) => console.error(line),
  });
  console.log(`Pulsar ${broker.version} is up (started in ${(broker.startupMs / 1000).toFixed(1)} s, pid ${broker.pid})`);
  console.log(`  admin:     ${broker.adminUrl}/admin/v2`);
  console.log(`  service:   ${broker.serviceUrl}`);
  console.log(`  websocket: ${broker.wsUrl}/ws/v2`);
  console.log(`  data:      ${broker.dataDir} (log: ${broker.logFile})`);
  console.log("Ctrl-C to stop.");
  await new Promise<void>((resolve) => {
    // The JVM dying on its own (a fatal broker error halts it) ends this command too.
    const timer = setInterval(() => {
      if (broker && !broker.isRunning() && !isStopping) {
        clearInterval(timer);
        resolve();
      }
    }, 1_000);
  });
  console.error(`Pulsar exited on its own; see ${broker.logFile}`);
  process.exit(1);
}

runLocalBroker().catch((error: unknown) => {
  // A missing Java or Maven is one line to act on, not a stack trace.
  console.error(error instanceof MissingPrerequisiteError ? error.message : error);
  process.exit(1);
});
