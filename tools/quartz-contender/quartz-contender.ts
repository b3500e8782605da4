import { startLineProtocolJvm } from "../line-protocol-jvm";
import { ensureQuartzContenderBuilt } from "./build-contender";

// Drives QuartzContender: one node of a clustered Quartz 2.5.2 scheduler (JobStoreTX on
// PostgreSQL) over stdin and stdout. Its jobs run until `finish`, so a test decides when an
// execution ends and never waits on a clock.

export type QuartzContender = {
  /** Quartz's instance id: QRTZ_FIRED_TRIGGERS.INSTANCE_NAME and QRTZ_SCHEDULER_STATE.INSTANCE_NAME. */
  instanceName: string;
  /** Runs Quartz's own tables_postgres.sql (from the jar) in the node's schema. */
  createSchema(): Promise<void>;
  start(): Promise<void>;
  /** The scheduler stops firing triggers; running executions go on and the node keeps checking in. */
  standby(): Promise<void>;
  /** A durable job (`exclusive`: @DisallowConcurrentExecution) and one trigger firing now. */
  schedule(group: string, name: string, options: { isExclusive: boolean; requestsRecovery: boolean }): Promise<void>;
  /** One more firing of the job, now. */
  fire(group: string, name: string): Promise<void>;
  /** Ends this node's running executions of the job. */
  finish(group: string, name: string): Promise<void>;
  /** The next execution of the job this node begins: its fire instance id (QRTZ_FIRED_TRIGGERS.ENTRY_ID). */
  nextBegin(group: string, name: string): Promise<string>;
  /** The end of the execution `entryId` on this node. */
  ended(group: string, name: string, entryId: string): Promise<void>;
  /** SIGKILL: a crashed node, whose rows stay behind until another node recovers them. */
  kill(): Promise<void>;
};

export type QuartzContenderOptions = {
  /** The schema of Quartz's tables (the connection's currentSchema). */
  schema: string;
  schedulerName: string;
  instanceName: string;
  /** org.quartz.jobStore.clusterCheckinInterval. */
  checkinIntervalMs: number;
};

/** The JDBC connection of a postgres:// URL: jdbc url, user, password. */
function jdbcArgs(postgresUrl: string): string[] {
  const url = new URL(postgresUrl);
  return [`jdbc:postgresql://${url.hostname}:${url.port || "5432"}${url.pathname}`, decodeURIComponent(url.username), decodeURIComponent(url.password)];
}

/** Starts a node against `postgresUrl` (postgres://user:password@host:port/database); its scheduler waits for start(). */
export async function startQuartzContender(postgresUrl: string, options: QuartzContenderOptions): Promise<QuartzContender> {
  const build = await ensureQuartzContenderBuilt();
  const args = [
    "-Duser.timezone=UTC",
    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
    `@${build.classpathArgFile}`,
    "baton.quartz.QuartzContender",
    ...jdbcArgs(postgresUrl),
    options.schema,
    options.schedulerName,
    options.instanceName,
    String(Math.trunc(options.checkinIntervalMs)),
  ];
  const jvm = startLineProtocolJvm(build.java, args, "the Quartz contender");
  const { next } = jvm;

  async function command(line: string): Promise<void> {
    const verb = line.split(" ")[0]!;
    await jvm.command(line, (answer) => answer === `done ${verb}` || answer.startsWith(`error ${verb} `));
  }

  const ready = await next((line) => line.startsWith("ready "));
  return {
    instanceName: ready.slice("ready ".length),
    createSchema: () => command("schema"),
    start: () => command("start"),
    standby: () => command("standby"),
    schedule: (group, name, { isExclusive, requestsRecovery }) =>
      command(`schedule ${group} ${name} ${isExclusive ? "exclusive" : "concurrent"} ${requestsRecovery}`),
    fire: (group, name) => command(`fire ${group} ${name}`),
    finish: (group, name) => command(`finish ${group} ${name}`),
    async nextBegin(group, name) {
      const line = await next((answer) => answer.startsWith(`begin ${group}.${name} `));
      return line.split(" ")[2]!;
    },
    async ended(group, name, entryId) {
      await next((answer) => answer === `end ${group}.${name} ${entryId}`);
    },
    kill: () => jvm.kill(),
  };
}
