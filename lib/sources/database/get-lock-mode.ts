import type { ServerFlavor } from "./mysql-client";

// How Baton reads a MariaDB/MySQL server's GET_LOCK user locks, chosen at each discovery from
// what the server offers the url's user, and the words the Clusters page and the log say it in.
// Pure: get-lock-probes.ts asks the server.
//
// - "performance_schema": performance_schema.metadata_locks, readable, with the instrument
//   wait/lock/metadata/sql/mdl on: every lock, its holder and its waiters in order.
// - "plugin": MariaDB's metadata_lock_info plugin (information_schema.METADATA_LOCK_INFO): every
//   lock and its holder; no waiters (the plugin lists granted locks only).
// - "names": neither: IS_USED_LOCK of each configured name. Nothing else lists names, so locks
//   nobody configured are not seen, and there are no waiters.
// The holders' user, host and state come from performance_schema.threads in the first mode, and
// from information_schema.PROCESSLIST in the others, which shows other users' connections only
// to a user with PROCESS.

export type GetLockMode = "performance_schema" | "plugin" | "names";

/** What one probe of performance_schema found. */
export type PerformanceSchemaProbe = "readable" | "off" | "instrument-off" | { denied: string };

/** What one probe of the metadata_lock_info plugin found. */
export type PluginProbe = "readable" | "missing" | { denied: string };

/** What the probes of one server found: the input of chooseGetLockMode. */
export type GetLockProbes = {
  flavor: ServerFlavor;
  version: string;
  /** The url's user as the server knows it: `baton@%`. */
  user: string;
  performanceSchema: PerformanceSchemaProbe;
  /** Not asked (undefined) where performance_schema serves. */
  plugin?: PluginProbe;
  hasProcess: boolean;
};

/** The mode chosen, what it can see, and why it is not the fullest, in one line. */
export type ServerMode = {
  mode: GetLockMode;
  /** Whether the holders' user, host and state are seen (always with performance_schema; else PROCESS). */
  canSeeConnections: boolean;
  /** Degraded: no waiters, locks missed, or holders by connection id alone. */
  isDegraded: boolean;
  /** The mode and why, for the Clusters page and the log. */
  line: string;
};

const INSTRUMENT = "wait/lock/metadata/sql/mdl";

/** The GRANT a user needs, with its account quoted as MariaDB/MySQL print it (`'baton'@'%'`). */
function accountOf(user: string): string {
  const at = user.lastIndexOf("@");
  return at < 0 ? `'${user}'` : `'${user.slice(0, at)}'@'${user.slice(at + 1)}'`;
}

/** Why performance_schema does not serve, with what would make it (null when it does). */
function whyNotPerformanceSchema(probe: PerformanceSchemaProbe, probes: GetLockProbes, setting: string): string | null {
  if (probe === "readable") return null;
  if (probe === "off") return "performance_schema is off (it needs a restart with --performance-schema=ON)";
  if (probe === "instrument-off") {
    return `performance_schema's instrument ${INSTRUMENT} is off (UPDATE performance_schema.setup_instruments SET ENABLED='YES', TIMED='YES' WHERE NAME='${INSTRUMENT}', or start with --performance-schema-instrument='${INSTRUMENT}=ON'; locks taken before it is on are not shown)`;
  }
  return `user ${probes.user} (${setting}) cannot read performance_schema (GRANT SELECT ON performance_schema.* TO ${accountOf(probes.user)}): ${probe.denied}`;
}

/** Why the plugin does not serve (null when it does). */
function whyNotPlugin(probe: PluginProbe | undefined, probes: GetLockProbes, setting: string): string | null {
  if (probe === undefined || probe === "readable") return null;
  if (probe === "missing") {
    return probes.flavor === "mariadb"
      ? "metadata_lock_info plugin not installed"
      : "no metadata_lock_info plugin (MariaDB's; MySQL lists GET_LOCK locks in performance_schema only)";
  }
  return `user ${probes.user} (${setting}) cannot read information_schema.METADATA_LOCK_INFO: ${probe.denied}`;
}

/**
 * The mode of a server from its probes, and its line: "performance_schema is off;
 * metadata_lock_info plugin not installed: only the 2 configured names are read (INSTALL SONAME
 * 'metadata_lock_info' to discover every lock)". `setting` names the url's setting
 * (`clusters "orders-db" url`).
 */
export function chooseGetLockMode(probes: GetLockProbes, context: { namesCount: number; setting: string }): ServerMode {
  const noProcess = `user ${probes.user} (${context.setting}) lacks PROCESS: other users' connections are hidden, so holders show as connection ids only and a holder's end cannot be told from a release (GRANT PROCESS ON *.* TO ${accountOf(probes.user)})`;
  if (probes.performanceSchema === "readable") {
    return {
      mode: "performance_schema",
      canSeeConnections: true,
      isDegraded: false,
      line: "GET_LOCK read through performance_schema.metadata_locks: every lock, its holder and its waiters in order",
    };
  }
  const notPerformanceSchema = whyNotPerformanceSchema(probes.performanceSchema, probes, context.setting) ?? "";
  const notPlugin = whyNotPlugin(probes.plugin, probes, context.setting);
  if (notPlugin === null) {
    const line = `GET_LOCK read through the metadata_lock_info plugin: every lock and its holder, no waiters (${notPerformanceSchema})`;
    return { mode: "plugin", canSeeConnections: probes.hasProcess, isDegraded: true, line: probes.hasProcess ? line : `${line}; ${noProcess}` };
  }
  const install = probes.flavor === "mariadb" ? " (INSTALL SONAME 'metadata_lock_info' to discover every lock)" : "";
  const names =
    context.namesCount === 0
      ? "no lock is read: names lists none"
      : `only ${context.namesCount === 1 ? "the 1 configured name is" : `the ${context.namesCount} configured names are`} read`;
  const line = `GET_LOCK read by name (IS_USED_LOCK), no waiters: ${notPerformanceSchema}; ${notPlugin}: ${names}${install}`;
  return { mode: "names", canSeeConnections: probes.hasProcess, isDegraded: true, line: probes.hasProcess ? line : `${line}; ${noProcess}` };
}
