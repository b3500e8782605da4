// What the demo runs: services with named workers on real topics, and how often things go wrong.

export type DemoSubscriptionType = "Failover" | "Key_Shared" | "Exclusive";

export type DemoService = {
  service: string;
  /** Local topic name in the demo namespace. */
  topic: string;
  partitions: number;
  subscription: string;
  subscriptionType: DemoSubscriptionType;
  /** Worker (pod) names of version v1. */
  workers: string[];
  /** How long processing one message takes. */
  processingMs: [number, number];
  /** Messages published per second, over `keys` keys named `${keyPrefix}-N`. */
  ratePerSecond: number;
  keys: number;
  /** Each service its own keys, so a key's drill-down shows one service's workers. */
  keyPrefix: string;
};

export const DEMO_TENANT = "demo";
export const DEMO_NAMESPACE = "demo/events";

export const DEMO_SERVICES: DemoService[] = [
  // The "daily job" of the articles: one active scheduler per partition.
  {
    service: "daily-job",
    topic: "daily-job-ticks",
    partitions: 2,
    subscription: "daily-job",
    subscriptionType: "Failover",
    workers: ["scheduler-a", "scheduler-b", "scheduler-c"],
    processingMs: [40, 120],
    ratePerSecond: 4,
    keys: 6,
    keyPrefix: "day",
  },
  // Per-user orchestration: every user's events to one worker at a time.
  {
    service: "user-orchestrator",
    topic: "user-events",
    partitions: 6,
    subscription: "orchestrator",
    subscriptionType: "Failover",
    workers: ["orchestrator-0", "orchestrator-1", "orchestrator-2", "orchestrator-3"],
    processingMs: [60, 180],
    ratePerSecond: 24,
    keys: 40,
    keyPrefix: "user",
  },
  {
    service: "click-tracker",
    topic: "clicks",
    partitions: 1,
    subscription: "click-tracker",
    subscriptionType: "Key_Shared",
    workers: ["clicks-a", "clicks-b", "clicks-c"],
    processingMs: [20, 60],
    ratePerSecond: 15,
    keys: 60,
    keyPrefix: "visitor",
  },
  {
    service: "audit-writer",
    topic: "audit-log",
    partitions: 1,
    subscription: "audit-writer",
    subscriptionType: "Exclusive",
    workers: ["audit-primary", "audit-standby"],
    processingMs: [10, 30],
    ratePerSecond: 3,
    keys: 5,
    keyPrefix: "account",
  },
];

/**
 * The JVM service: Java pods on a Failover subscription with BatonExclusivityInterceptor
 * (tools/demo/jvm-service.ts). Processing is long enough that a frozen pod is likely mid-message.
 */
export const JVM_SERVICE: DemoService = {
  service: "payments-jvm",
  topic: "payments",
  partitions: 1,
  subscription: "payments",
  subscriptionType: "Failover",
  workers: ["payments-jvm-a", "payments-jvm-b"],
  processingMs: [200, 500],
  ratePerSecond: 2,
  keys: 8,
  keyPrefix: "payment",
};

/**
 * The demo broker's keep-alive (Pulsar's default is 30 s): a connection whose peer answers no
 * ping for one interval is closed at the next, so a frozen JVM loses its partitions within two.
 */
export const DEMO_BROKER_KEEPALIVE_SECONDS = 5;

/**
 * The scheduler of the Redlock article: workers that elect a leader with Redlock over the demo's
 * three Redis masters; the leader runs the job, the others try again every few seconds.
 */
export type LockedJobPlan = {
  service: string;
  workers: string[];
  /** The lock key the workers contend for, on every master. */
  lockKey: string;
  lockTtlMs: number;
  /** A worker that does not lead tries to take the lock this often (with some jitter). */
  tryEveryMs: number;
  /** The leader runs the job this often; one run enters `jobKey` through the counter for `jobMs`. */
  jobEveryMs: number;
  jobKey: string;
  jobMs: [number, number];
};

/** The demo's Redis source in Baton: a Redlock group over the masters the demo starts. */
export const DEMO_LOCK_CLUSTER = "demo-locks";
export const DEMO_REDLOCK_MASTERS = 3;

export const REPORT_SCHEDULER: LockedJobPlan = {
  service: "report-scheduler",
  workers: ["sched-a", "sched-b", "sched-c"],
  lockKey: "scheduler:leader",
  // Extended every ttl/3 while the leader is alive; a pause longer than this loses it.
  lockTtlMs: 6_000,
  tryEveryMs: 3_000,
  jobEveryMs: 2_000,
  jobKey: "daily-report",
  jobMs: [150, 500],
};

/**
 * A leader election on a lock service among a service's workers: a ZooKeeper Curator
 * LeaderLatch on `lockPath`, or an etcd election (`etcdctl elect`) named `lockPath`.
 */
export type DemoElection = { kind: "zookeeper" | "etcd"; service: string; workers: string[]; cluster: string; lockPath: string };

/** The index builder's workers elect their leader with a Curator LeaderLatch. */
export const INDEX_BUILDER: DemoElection = {
  kind: "zookeeper",
  service: "index-builder",
  workers: ["indexer-a", "indexer-b"],
  cluster: "demo-zookeeper",
  lockPath: "/demo/index-builder/leader",
};

/** The billing sweeper's workers campaign in an etcd election, as Go services do. */
export const BILLING_SWEEPER: DemoElection = {
  kind: "etcd",
  service: "billing-sweeper",
  workers: ["sweeper-a", "sweeper-b"],
  cluster: "demo-etcd",
  lockPath: "elections/billing-sweeper",
};

/**
 * The orders database: PostgreSQL run by Patroni, two members on the demo's etcd; its leader key
 * `<namespace><scope>/leader` is the lock Baton reads (the etcd cluster's `patroni` prefix).
 */
export const ORDERS_DB: DemoElection & { ttlSeconds: number } = {
  kind: "etcd",
  service: "orders-db",
  workers: ["pg0", "pg1"],
  cluster: "demo-etcd",
  lockPath: "/service/orders-db",
  ttlSeconds: 12,
};

/** Patroni's namespace on the demo's etcd, watched by Baton with layout "patroni". */
export const DEMO_PATRONI_NAMESPACE = "/service/";

/** The prefix Baton watches for the demo's etcd elections. */
export const DEMO_ETCD_PREFIX = "elections/";

/**
 * A nightly job whose nodes take turns through ShedLock, a row of a table in the service's own
 * PostgreSQL database (tools/demo/nightly-job.ts); Baton reads the table as a database cluster.
 */
export type NightlyJobPlan = {
  service: string;
  nodes: string[];
  /** Baton's database cluster, and the database (on the demo's PostgreSQL) that holds the table. */
  cluster: string;
  database: string;
  table: string;
  /** The job's ShedLock name, and its lockAtMostFor: a run still going past it loses the row. */
  lockName: string;
  lockAtMostForMs: number;
  /** Every node tries the lock this often (with some jitter): the "nightly" schedule, compressed. */
  tickEveryMs: number;
  /** A run that does not stall: well inside lockAtMostFor. */
  runMs: [number, number];
};

export const LEDGER_CLOSE: NightlyJobPlan = {
  service: "ledger-close",
  nodes: ["ledger-a", "ledger-b"],
  cluster: "demo-ledger-db",
  database: "ledger",
  table: "shedlock",
  lockName: "close-books",
  lockAtMostForMs: 25_000,
  tickEveryMs: 30_000,
  runMs: [10_000, 14_000],
};

/** The Curator participants' session timeout: a crashed leader keeps the latch this long (the server clamps it to 2..20 ticks of 500 ms). */
export const DEMO_ZOOKEEPER_SESSION_TIMEOUT_MS = 8_000;

export type DemoSchedule = {
  /** The elections' leaders (ZooKeeper, etcd) crash this long after the start, then this often; each comes back after `electionDownMs`. */
  electionCrashFirstMs: number;
  electionCrashEveryMs: number;
  electionDownMs: number;
  /** A leader crashes (its socket dropped), then comes back. */
  crashEveryMs: number;
  crashDownMs: number;
  /**
   * The user-orchestrator's cycle, one step after the other: a rolling deployment, then, once
   * its window has closed, a stall outside it. From the start to the first rollout, and from one
   * rollout's start to the next.
   */
  firstDeployAfterMs: number;
  deployEveryMs: number;
  /** Between starting a new pod and stopping the old one it replaces, and between pods. */
  rollStepMs: number;
  /** After the rollout's window (finish + grace, in Baton's whole minutes) closed, before the stall. */
  stallAfterWindowMs: number;
  /** How long the stalled worker (a GC pause) stays frozen: at least min, up to max until another worker entered its key. */
  stallMinMs: number;
  stallMaxMs: number;
  /** A stall that caught no overlap is tried again, this many tries in all. */
  stallAttempts: number;
  /**
   * The report-scheduler's leader stalls past its lock's TTL inside the job, this long after each
   * rollout-and-stall cycle of user-orchestrator ended (so no two scripted failures overlap);
   * frozen at least the TTL, up to max until another worker entered the job's key.
   */
  lockStallAfterCycleMs: number;
  lockStallMaxMs: number;
  lockStallAttempts: number;
  /** A Key_Shared consumer joins or leaves. */
  scaleEveryMs: number;
  /** Before the first crash and scale. */
  firstAfterMs: number;
  /**
   * The JVM service's active pod is stopped (SIGSTOP) this long after the start, then this often,
   * for `jvmFrozenMs` (more than two broker keep-alive intervals); a freeze that caught no
   * overlap is tried again, `jvmFreezeAttempts` in all.
   */
  jvmFreezeFirstMs: number;
  jvmFreezeEveryMs: number;
  jvmFrozenMs: number;
  jvmFreezeAttempts: number;
  /** ledger-close's nightly job overruns its lockAtMostFor this long after the start, then this often; one that caught no double run is tried again, `overrunAttempts` in all. */
  overrunFirstMs: number;
  overrunEveryMs: number;
  overrunAttempts: number;
};

/** The grace period after a deployment in which violations still count as inside it (the demo's setting). */
export const DEMO_DEPLOYMENT_GRACE_MINUTES = 1;

// A rollout of 4 pods takes 8 steps (about half a minute); its window closes 1 to 2 minutes
// after it finished (the grace, then the rest of that minute), and the stall follows, then the
// report-scheduler's lock stall. For a human watching: a rollout every 4 minutes, the stalls
// between two of them.
export const NORMAL_SCHEDULE: DemoSchedule = {
  electionCrashFirstMs: 60_000,
  electionCrashEveryMs: 180_000,
  electionDownMs: 15_000,
  crashEveryMs: 75_000,
  crashDownMs: 12_000,
  firstDeployAfterMs: 40_000,
  deployEveryMs: 240_000,
  rollStepMs: 4_000,
  stallAfterWindowMs: 20_000,
  stallMinMs: 9_000,
  stallMaxMs: 30_000,
  stallAttempts: 3,
  lockStallAfterCycleMs: 20_000,
  lockStallMaxMs: 30_000,
  lockStallAttempts: 3,
  scaleEveryMs: 60_000,
  firstAfterMs: 20_000,
  jvmFreezeFirstMs: 50_000,
  jvmFreezeEveryMs: 200_000,
  jvmFrozenMs: 15_000,
  jvmFreezeAttempts: 3,
  overrunFirstMs: 90_000,
  overrunEveryMs: 300_000,
  overrunAttempts: 2,
};

/** For tests: a crash, a rollout, a stall right after its window and a lock stall after it, within about four minutes. */
export const FAST_SCHEDULE: DemoSchedule = {
  electionCrashFirstMs: 20_000,
  electionCrashEveryMs: 150_000,
  electionDownMs: 5_000,
  crashEveryMs: 25_000,
  crashDownMs: 5_000,
  firstDeployAfterMs: 10_000,
  deployEveryMs: 300_000,
  rollStepMs: 2_500,
  stallAfterWindowMs: 2_000,
  stallMinMs: 6_000,
  stallMaxMs: 20_000,
  stallAttempts: 4,
  lockStallAfterCycleMs: 2_000,
  lockStallMaxMs: 30_000,
  lockStallAttempts: 4,
  scaleEveryMs: 20_000,
  firstAfterMs: 6_000,
  jvmFreezeFirstMs: 15_000,
  jvmFreezeEveryMs: 120_000,
  jvmFrozenMs: 13_000,
  jvmFreezeAttempts: 4,
  overrunFirstMs: 30_000,
  overrunEveryMs: 180_000,
  overrunAttempts: 3,
};
