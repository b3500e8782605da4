// The prose of docs/configuration.md, keyed by setting. Names, defaults and accepted values come
// from the zod schemas themselves (tools/docs/render-configuration.ts); a description's `default`
// is printed only where the schema has none (a default computed elsewhere, or "required").

export type Description = { meaning: string; default?: string };
export type Descriptions = Record<string, Description>;

export const ENVIRONMENT: Descriptions = {
  DATABASE_URL: { meaning: "`postgresql://user:password@host:port/database`. Unset: Baton runs its own embedded PostgreSQL.", default: "(unset: embedded)" },
  BATON_DATA_DIR: { meaning: "Where the embedded PostgreSQL keeps its data (`postgres/pgdata`) and log (`postgres/postgres.log`).", default: "`./.baton`" },
  BATON_EMBEDDED_PG_PORT: { meaning: "Port of the embedded PostgreSQL (listens on 127.0.0.1 only).", default: "`54329`" },
  PORT: { meaning: "Port of the web app.", default: "`3000`" },
  BATON_LISTEN_HOST: {
    meaning:
      "The address the web app and the worker's `/metrics` listen on: an IP address (`0.0.0.0` or `::` for every interface) or a host name (`localhost` is `127.0.0.1` and `::1`). In a container: `0.0.0.0`, behind the platform's own access control. See [Where Baton listens](access-control.md#where-baton-listens).",
    default: "open: this machine only (`127.0.0.1` and `::1`); with `BATON_OIDC_ISSUER` or `BATON_AUTH_PROXY_HEADER`: every interface",
  },
  BATON_PULSAR_ADMIN_URL: { meaning: "Shorthand for one cluster: its admin REST URL, e.g. `http://127.0.0.1:8080`.", default: "(unset)" },
  BATON_PULSAR_TOKEN: { meaning: "Bearer token for that cluster.", default: "(unset)" },
  BATON_PULSAR_CLUSTER_NAME: { meaning: "Name Baton shows for that cluster.", default: "`local`" },
  BATON_CLUSTERS: { meaning: "JSON array of cluster objects ([Clusters](#clusters)), for several clusters or finer settings.", default: "(unset)" },
  BATON_CONFIG_FILE: { meaning: 'Path of a JSON file `{ "clusters": [ ... ] }` with the same cluster objects.', default: "(unset)" },
  BATON_POLL_INTERVAL_MS: { meaning: "Default poll interval for clusters that do not set their own (500 ms to 1 h).", default: "`5000`" },
  BATON_HEALTH_TIMEOUT_MS: { meaning: "How long `/api/health` waits for the database and each cluster.", default: "`2000`" },
  BATON_LOG_LEVEL: { meaning: "`debug`, `info`, `warn` or `error`.", default: "`info`" },
  BATON_FLAP_CHANGES: { meaning: "The board flags a subscription partition as flapping above this many leader changes...", default: "`4`" },
  BATON_FLAP_WINDOW_MINUTES: { meaning: "...within this many minutes.", default: "`10`" },
  BATON_STUCK_SAMPLES: { meaning: "A leader is stuck when the backlog grew over this many consecutive samples while it stayed.", default: "`3`" },
  BATON_RECOVERED_AFTER_SECONDS: {
    meaning:
      "A finding ends (the resource is healthy again, its alert resolves) once its holder has kept it this long without a change: `ttl` is one TTL or lease of the lock (a minute where there is none, e.g. a Pulsar partition), or a number of seconds (1 to 86400). See [Findings have a lifetime](http-api.md#findings-have-a-lifetime).",
  },
  BATON_DEPLOYMENT_GRACE_MINUTES: {
    meaning: "A violation up to this long after a deployment of its service finished still counts as inside it.",
    default: "`5`",
  },
  BATON_DRILLDOWN_WINDOW_MINUTES: { meaning: "The drill-down shows leader changes and deployments this far around each violation.", default: "`2`" },
  BATON_TRACE_URL_TEMPLATE: { meaning: "Trace ids become links: an http(s) URL with `{traceId}`, e.g. a Jaeger or Tempo search.", default: "(unset)" },
  BATON_RETENTION_DAYS: {
    meaning:
      "Raw counter events that are not violations are dropped once older than this (hourly, by the worker, a whole UTC hour's partition at a time: an event is kept this long and at most an hour more), with count rows, resolved alerts, delivered notifications and ended Key_Shared splits as old; the per-minute and hourly rollups stay. Older events are refused at ingest.",
    default: "`30`",
  },
  BATON_VIOLATION_RETENTION_DAYS: {
    meaning:
      "Violations (`counter > 0`), the rare and valuable rows, are kept this long: they live in partitions of their own, one per UTC day, dropped by the same rule (kept at most a day more). Older violations are refused at ingest.",
    default: "the larger of `90` and `BATON_RETENTION_DAYS`",
  },
  BATON_RETENTION_BATCH_SIZE: {
    meaning:
      "Rows deleted per statement where retention still deletes rows (count rows; events of a day that had no partition yet, kept in a DEFAULT partition), so it never blocks ingestion for long.",
    default: "`10000`",
  },
  BATON_PRODUCER_ROUTING: {
    meaning:
      'Per topic, the producers\' `hashingScheme`, which routes a keyed message to its partition: a JSON object of full topic names to `JavaStringHash` (the Java client\'s default) or `Murmur3_32Hash`, e.g. `{"persistent://acme/orders/events":"Murmur3_32Hash"}`. Used for the key owner of a Failover violation that names no partition (see [Key owners](http-api.md#key-owners)); anything else is refused at start-up, naming the topic.',
    default: "(unset: every topic `JavaStringHash`)",
  },
  BATON_INGEST_MAX_BODY_BYTES: { meaning: "Ingest requests with a larger body get 413.", default: "`16777216`" },
  BATON_INGEST_MAX_EVENTS: { meaning: "Ingest requests with more events get 413.", default: "`10000`" },
  BATON_INGEST_TOPIC: { meaning: "A Pulsar topic of counter events (`persistent://tenant/ns/topic`) that Baton consumes.", default: "(unset)" },
  BATON_INGEST_TOPIC_CLUSTER: { meaning: "Which configured cluster that topic lives on (required with several clusters).", default: "the only cluster" },
  BATON_INGEST_SUBSCRIPTION: { meaning: "Baton's subscription on that topic.", default: "`baton-ingest`" },
  BATON_INGEST_SUBSCRIPTION_TYPE: { meaning: "`Shared` or `Key_Shared`.", default: "`Shared`" },
  BATON_METRICS_MAX_RESOURCES: {
    meaning:
      "`/metrics` names each held resource's holder (one series each) while at most this many resources are held; above it, or at `0`, those series are left out (see [Prometheus and Grafana](metrics.md)).",
    default: "`20000`",
  },
  BATON_WORKER_METRICS_PORT: {
    meaning: "The worker serves its own `GET /metrics` (poll cycle durations, its process metrics) on this port.",
    default: "`0` (off)",
  },
  BATON_FLEET_RETRY_MS: {
    meaning:
      "How often each worker replica heartbeats, renews its cluster leases and tries the free ones (see [Scaling past one machine](scale-past-one-machine.md)): a dead replica's clusters are polled again within about this long plus one cycle.",
    default: "`2000`",
  },
  BATON_WORKER_ID: {
    meaning: "This worker replica's name in the fleet, on the Clusters page, in `/api/health` and in its log.",
    default: "`<host name>:<pid>`",
  },
  BATON_ALERT_RULES: {
    meaning:
      'JSON object of overrides by rule: `{ "<rule>": { "enabled", "forSeconds", "severity": "critical"\\|"warning" } }`; `violations` also takes `threshold` and `windowMinutes`.',
    default: "every rule on, with the defaults in [Alerts](alerts.md)",
  },
  BATON_ALERT_EVALUATION_INTERVAL_MS: {
    meaning:
      "How often the rules are evaluated (500 ms to 1 h). A pending alert does not wait for the next interval: the evaluator wakes when its `for` is up.",
    default: "`5000`",
  },
  BATON_ALERTMANAGER_URL: { meaning: "Alertmanager's base URL, e.g. `http://alertmanager:9093`.", default: "(unset)" },
  BATON_ALERTMANAGER_RESEND_SECONDS: { meaning: "A firing alert is sent to Alertmanager again this often (Prometheus's resend delay).", default: "`60`" },
  BATON_ALERT_WEBHOOKS: {
    meaning: 'JSON array of webhooks: `{ "name", "url", "format": "generic"\\|"slack", "secret", "timeoutMs": 5000 }`.',
    default: "(unset)",
  },
  BATON_ALERT_LINK_BASE_URL: {
    meaning: "Baton's address as readers reach it: the base of every alert link and `generatorURL`.",
    default: "`http://localhost:$PORT`",
  },
};

/** Variables read outside lib/config.ts: by next.config.js (the build directory) and by the worker's launcher (workerEnv in tools/build-worker.mjs). */
export const OTHER_ENVIRONMENT: Array<{ names: string[] } & Required<Description>> = [
  { names: ["BATON_NEXT_DIST_DIR"], meaning: "The web app's build directory (lets two builds share a checkout).", default: "`.next`" },
  {
    names: ["MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"],
    meaning:
      "glibc's malloc settings for the worker's process (`npm start` and `npm run worker` set them unless given): they return freed memory to the system (see [How Baton reads leaders](kinds/pulsar.md#how-baton-reads-leaders)).",
    default: "`2`, `131072`, `131072` for the worker",
  },
];

export const ACCESS_ENVIRONMENT: Descriptions = {
  BATON_ACCESS_CONTROL_REQUIRED: { meaning: "`true`: Baton does not start open.", default: "`false`" },
  BATON_OIDC_ISSUER: {
    meaning:
      "Sign-in mode: the OpenID provider's issuer URL (its `/.well-known/openid-configuration` is read on the first sign-in). `http://` only for a provider on your machine.",
    default: "(unset)",
  },
  BATON_OIDC_CLIENT_ID: { meaning: "The client registered for Baton at the provider.", default: "(unset)" },
  BATON_OIDC_CLIENT_SECRET: { meaning: "Its secret, or a file holding it (a mounted secret); not both.", default: "(unset)" },
  BATON_OIDC_CLIENT_SECRET_FILE: { meaning: "Its secret, or a file holding it (a mounted secret); not both.", default: "(unset)" },
  BATON_PUBLIC_URL: {
    meaning: "Baton's address as browsers see it, e.g. `https://baton.example.com`; register `<BATON_PUBLIC_URL>/auth/callback` as the redirect URI.",
    default: "(unset)",
  },
  BATON_SESSION_SECRET: {
    meaning: "At least 32 characters (`openssl rand -base64 32`); seals the session cookie. Changing it signs everyone out.",
    default: "(unset)",
  },
  BATON_SESSION_SECRET_FILE: {
    meaning: "At least 32 characters (`openssl rand -base64 32`); seals the session cookie. Changing it signs everyone out.",
    default: "(unset)",
  },
  BATON_SESSION_MAX_AGE_HOURS: { meaning: "A session lasts this long (1 h to 30 days), then the user signs in again.", default: "`12`" },
  BATON_OIDC_ALLOWED_DOMAINS: {
    meaning:
      "Comma-separated e-mail domains let in (`example.com,ops.example.com`; a verified e-mail when the provider says), or `*` for every user of the provider.",
    default: "(unset)",
  },
  BATON_OIDC_ALLOWED_GROUPS: {
    meaning: "Comma-separated groups let in (any one suffices), read from the claim below. One of the two lists is required.",
    default: "(unset)",
  },
  BATON_OIDC_GROUPS_CLAIM: {
    meaning: 'The ID-token or userinfo claim that lists the user\'s groups (Keycloak: add a "Group Membership" mapper; Entra: `groups` or `roles`).',
    default: "`groups`",
  },
  BATON_OIDC_SCOPES: { meaning: "Scopes asked for (add `groups` for Dex).", default: "`openid email profile`" },
  BATON_AUTH_PROXY_HEADER: {
    meaning: "Trusted-proxy mode: the header that carries the user, e.g. `X-Forwarded-Email`. Not with `BATON_OIDC_ISSUER`.",
    default: "(unset)",
  },
  BATON_AUTH_TRUSTED_PROXIES: {
    meaning: "Comma-separated addresses or CIDR ranges (IPv4, IPv6) of the proxies the header is accepted from. Required with the header.",
    default: "(unset)",
  },
};

export const KIND_PULSAR: Descriptions = {
  kind: { meaning: '`"pulsar"`, or left out: a cluster object without `kind` is a Pulsar cluster.' },
  name: { meaning: "1-63 letters, digits, `.`, `_`, `-`." },
  adminUrl: { meaning: "The admin REST base URL (`http://` or `https://`)." },
  token: { meaning: "Bearer token, or a file holding it (for mounted secrets); not both.", default: "none" },
  tokenFile: { meaning: "Bearer token, or a file holding it (for mounted secrets); not both.", default: "none" },
  tls: { meaning: '`{ "caFile", "certFile", "keyFile", "rejectUnauthorized": true }` for `https://` admin URLs.', default: "none" },
  scope: {
    meaning:
      '`{ "tenants": [...], "namespaces": ["tenant/ns"], "topics": ["persistent://t/ns/orders-*"], "everything": false }`. Nothing named means every tenant but Pulsar\'s own `pulsar`.',
    default: "everything",
  },
  pollIntervalMs: { meaning: "How often the leaders are read.", default: "`BATON_POLL_INTERVAL_MS`" },
  discoveryIntervalMs: { meaning: "How often the topic list is refreshed.", default: "`60000`" },
  requestsPerSecond: { meaning: "Request budget against this cluster's brokers.", default: "`50`" },
  maxConcurrency: { meaning: "Requests in flight at once.", default: "`4`" },
  requestTimeoutMs: { meaning: "Timeout of one admin request.", default: "`5000`" },
  consumerSignal: {
    meaning:
      '`"auto"`: scrape each broker\'s `/metrics/` for consumer-level series and re-poll at once the topics whose consumers changed (see [The consumer change signal](kinds/pulsar.md#the-consumer-change-signal)); `"off"`: never scrape.',
    default: '`"auto"`',
  },
  consumerSignalIntervalMs: { meaning: "How often each broker's `/metrics/` is scraped (250-60000).", default: "`1000`" },
  maxStatsBytes: {
    meaning:
      "The largest stats answer read for one topic (65,536 to 1 GiB). A larger one is cut off as it streams in and not parsed; that topic's resources go stale with an error naming the topic and the limit, and the rest of the cycle goes on. See [Stats answers](kinds/pulsar.md#stats-answers-how-large-and-the-limit).",
    default: "`8388608` (8 MiB)",
  },
};

export const KIND_REDIS: Descriptions = {
  kind: { meaning: '`"redis"`.' },
  name: { meaning: "As for Pulsar. Counter events name its locks as `<name>/<lock key>`." },
  url: {
    meaning: "One master: `redis://[:password@]host:port[/db]` or `rediss://` (TLS). With `cluster: true`, any node of a Redis Cluster.",
    default: "one of `url`/`urls`",
  },
  urls: {
    meaning:
      "A **Redlock group**: the same locks on 3 or 5 independent masters. The holder is the token on a majority of them; no majority while some master holds a token is a *split*, a state of its own. A group of 2 or 4 is refused (a majority of an even group can tie). A group reads every pattern on every master: locks that live on one master only (a plain `SET NX` lock on one of them) need a cluster object of their own with `url` and patterns the group's do not match; where a group's pattern matches a single-master object's on one of its masters, the configuration is refused (the group would read those locks as splits).",
    default: "one of `url`/`urls`",
  },
  password: {
    meaning: "The masters' password, or a file holding it; not both. Never shown: the Clusters page and `/api/health` print the address with `***`.",
    default: "none",
  },
  passwordFile: {
    meaning: "The masters' password, or a file holding it; not both. Never shown: the Clusters page and `/api/health` print the address with `***`.",
    default: "none",
  },
  tls: { meaning: '`{ "caFile", "certFile", "keyFile", "rejectUnauthorized": true }`.', default: "none" },
  patterns: {
    meaning:
      'The locks to watch: `[{ "match", "layout", "holderPattern", "mustBeHeld" }]`. There is no common key prefix across lock libraries (node-redlock, go-redsync and redis-py use your key as it is; RedLock.net prefixes `redlock:`; Spring Integration `<registry>:<key>`; ShedLock `job-lock:<env>:<name>`), so you name them.',
  },
  "patterns[].match": {
    meaning:
      "A Redis glob (`lock:*`, `{app}:leader`); without glob characters it names one key, read even while it does not exist. A bare `*` is refused: Baton would read every key.",
  },
  "patterns[].layout": {
    meaning:
      "`token`: a string value written by `SET key token NX PX ttl`. `redisson`: Redisson's hash (field `<client uuid>:<thread id>`, value the reentrancy count), with the fair lock's `redisson_lock_queue:{name}` read as the waiters in order.",
    default: "`token`",
  },
  "patterns[].holderPattern": {
    meaning:
      "A regex with a named group `holder` that picks a readable holder out of the token, e.g. `^(?<holder>[^:]+):` for `pod-7:6f1c…`, or `@(?<holder>[^:]+):` for ShedLock's `ADDED:<time>@<host>:<uuid>`. Without it the holder is the token, shortened (`6f1c9a2e…77d0`).",
    default: "none",
  },
  "patterns[].mustBeHeld": { meaning: "A leader election: a free lock is unhealthy.", default: "`false`" },
  pollIntervalMs: { meaning: "A full read of every known lock at least this often (one pipeline per master).", default: "`BATON_POLL_INTERVAL_MS`" },
  discoveryIntervalMs: { meaning: "How often `SCAN MATCH` walks the keyspace for new locks (never `KEYS`).", default: "`300000`" },
  commandsPerSecond: {
    meaning: "Command budget (a pipeline of N commands costs N). A full SCAN pass over 1,000,000 keys costs about 1,000 commands at the default `scanCount`.",
    default: "`1000`",
  },
  scanCount: {
    meaning:
      "`SCAN ... COUNT`: measured, the lowest Redis CPU per pass without holding Redis more than about a millisecond per call (`npm run bench:redis-scan`).",
    default: "`1000`",
  },
  requestTimeoutMs: { meaning: "Timeout of one command.", default: "`5000`" },
  cluster: { meaning: "A Redis Cluster: masters discovered from `url`, each key read on the master of its slot.", default: "`false`" },
};

export const KIND_ZOOKEEPER: Descriptions = {
  kind: { meaning: '`"zookeeper"`.' },
  name: { meaning: "1-63 letters, digits, `.`, `_`, `-`." },
  connectString: { meaning: "`host:port[,host:port...][/chroot]`, as ZooKeeper clients take it." },
  sessionTimeoutMs: { meaning: "Baton's own session (1 s to 10 min); the server clamps it to 2..20 x its tickTime.", default: "`30000`" },
  digest: { meaning: "Digest auth for ACL-protected nodes: `user:password`, or a file holding it; not both. Never shown.", default: "none" },
  digestFile: { meaning: "Digest auth for ACL-protected nodes: `user:password`, or a file holding it; not both. Never shown.", default: "none" },
  paths: {
    meaning:
      '`[{ "path": "/locks/daily-job", "recipe": "auto", "mustBeHeld": false }]`: each lock or election node (its children are the contenders, or with `ephemeral-node` the node itself is the lock). A path whose node does not exist yet is a free lock.',
    default: "one of `paths`, `root`, `systems`",
  },
  "paths[].recipe": {
    meaning:
      "`curator-mutex` (InterProcessMutex and InterProcessSemaphoreMutex; also go-zookeeper's lock), `curator-leader-latch`, `curator-leader-selector`, `kazoo-lock` (Kazoo's Lock and Election), `go-zookeeper-lock` (go-zookeeper's `zk.Lock`: Vault HA on ZooKeeper), `solr-election` (Solr's overseer and shard leader elections), `bookkeeper-auditor` (BookKeeper's auditor election), `ephemeral-node` (the node itself is the lock: held while it exists, by what its data names; Kafka's `/controller`, Patroni's leader), or `auto` (told by the children's names; not `ephemeral-node`).",
    default: "`auto`",
  },
  "paths[].mustBeHeld": { meaning: "The lock must always have a holder (an election): a free one is unhealthy.", default: "`false`" },
  systems: {
    meaning:
      "Systems whose leaders Baton knows where to find and how to read, each `{ \"system\": ..., ...its fields }`, every one must be held: `kafka` (`root`, Kafka's chroot, default `/`: the controller, its standbys the live brokers, its count the controller epoch), `helix` (`cluster`, required; `root`, default `/`: the cluster's leading controller), `pulsar` (`root`, default `/`: the leader broker, its standbys the brokers), `hdfs` (`nameservice`, default every one; `root`, default `/hadoop-ha`: each nameservice's active NameNode, from the ZKFC's protobuf), `yarn` (`clusterId`, default every one; `root`, default `/yarn-leader-election`: the active ResourceManager), `hbase` (`root`, default `/hbase`: the active master, its standbys the backup masters), `solr` (`root`, default `/`; `shardLeaders`, default `true`: the overseer and each shard's leader), `bookkeeper` (`ledgersRoot`, default `/ledgers`: the auditor), `patroni` (`namespace`, default `/service`; `scope`, default every one: each cluster's primary, its standbys the members). A node also listed under `paths` is refused.",
    default: "one of `paths`, `root`, `systems`",
  },
  root: {
    meaning:
      '`{ "path": "/", "recipe": "auto", "mustBeHeld": false, "maxDepth": 4 }`: every node under `path` (down to `maxDepth` levels) whose children follow a recipe is a lock. The walk runs every `discoveryIntervalMs` and leaves a child watch on each directory, so a new lock between walks is found when its first contender appears.',
    default: "none",
  },
  sessionDump: {
    meaning:
      "Read the server's `dump` four-letter word for each holder session's expiry deadline: `auto` (when the server allows it), `on` (an error when it does not), `off`.",
    default: "`auto`",
  },
  pollIntervalMs: { meaning: "How often every lock is read in full (the truth; watches bring changes sooner).", default: "`BATON_POLL_INTERVAL_MS`" },
  discoveryIntervalMs: { meaning: "How often the root is walked.", default: "`300000`" },
  requestsPerSecond: { meaning: "Request budget against the ensemble (a read of one lock is 1 + the contenders read).", default: "`5000`" },
  requestTimeoutMs: { meaning: "Timeout of one request, and of waiting for a connection.", default: "`5000`" },
  maxWaitersRead: { meaning: "Waiters whose data (their ids) is read; further waiters are named by their nodes.", default: "`50`" },
};

export const KIND_ETCD: Descriptions = {
  kind: { meaning: '`"etcd"`.' },
  name: { meaning: "1-63 letters, digits, `.`, `_`, `-`." },
  endpoints: {
    meaning:
      'Client URLs of the members, e.g. `["http://etcd-0:2379", "http://etcd-1:2379"]`. Tried in order; a member that does not answer passes the request to the next.',
  },
  tls: {
    meaning:
      '`{ "caFile", "certFile", "keyFile", "rejectUnauthorized": true }`, for `https://` endpoints only (client certificates: set `certFile` and `keyFile` together).',
    default: "none",
  },
  user: {
    meaning: "etcd user (`etcdctl auth enable`). It needs only read access to the prefixes: Baton reads ranges, lease TTLs and watches.",
    default: "none",
  },
  password: { meaning: "That user's password, or a file holding it (for mounted secrets); not both; required with `user`.", default: "none" },
  passwordFile: { meaning: "That user's password, or a file holding it (for mounted secrets); not both; required with `user`.", default: "none" },
  prefixes: {
    meaning:
      '`[{ "prefix": "elections/", "layout": "auto", "mustBeHeld": false }]`: each prefix is read with everything under it. An empty prefix is refused (it would be the whole keyspace).',
  },
  "prefixes[].layout": {
    meaning:
      "`go-election`, `go-mutex`, `etcd3-election`, `etcd3-lock`, `patroni` (Patroni's namespace, e.g. `/service/`: one lock per cluster, its standbys as waiters) or `auto` (told apart key by key). See [kinds/etcd.md](kinds/etcd.md).",
    default: "`auto`",
  },
  "prefixes[].mustBeHeld": { meaning: "Every election or lock under the prefix should always have a holder.", default: "`false`" },
  pollIntervalMs: {
    meaning: "How often every known election is read in full (the truth; the watch makes changes arrive sooner).",
    default: "`BATON_POLL_INTERVAL_MS`",
  },
  discoveryIntervalMs: { meaning: "How often the prefixes are listed (keys only) to find new and gone elections.", default: "`60000`" },
  requestsPerSecond: { meaning: "Request budget against the cluster (ranges, lease TTLs, watch openings).", default: "`2000`" },
  requestTimeoutMs: { meaning: "Timeout of one request.", default: "`5000`" },
};

export const KIND_DYNAMODB: Descriptions = {
  kind: { meaning: '`"dynamodb"`.' },
  name: { meaning: "1-63 letters, digits, `.`, `_`, `-`." },
  region: { meaning: "The table's AWS region, e.g. `eu-west-1`." },
  endpoint: { meaning: "Another endpoint (DynamoDB Local, a VPC endpoint): an `http(s)://` URL.", default: "AWS's" },
  profile: { meaning: "A profile of the shared AWS config and credentials files (else the default chain).", default: "none" },
  tableName: { meaning: "The lock table." },
  partitionKeyName: { meaning: "The lock client's partition key attribute (its `withPartitionKeyName`).", default: "`key`" },
  sortKeyName: { meaning: "The sort key attribute, for tables created `withSortKeyName`. A lock is then `<partition key>/<sort key>`.", default: "none" },
  mustBeHeld: { meaning: "Every lock of the table should always have a holder.", default: "`false`" },
  readIntervalMs: { meaning: "How often the whole table is read (paginated Scans).", default: "`BATON_POLL_INTERVAL_MS`" },
  requestsPerSecond: { meaning: "The read budget: requests per second against the table (Scan pages and `BatchGetItem`s).", default: "`20`" },
  pageSize: { meaning: "Items per Scan page (`Limit`; a page also ends at 1 MB).", default: "`1000`" },
  segments: {
    meaning:
      "Segments of a full read's parallel Scan (`Segment`/`TotalSegments`): each reads its share of the table at the same time, one request in flight each.",
    default: "`4`",
  },
  discoveryIntervalMs: { meaning: "How often a read also tells which locks are gone (every read already finds new ones).", default: "`60000`" },
  requestTimeoutMs: { meaning: "Timeout of one request (one attempt: the next read is the retry).", default: "`5000`" },
};

export const KIND_DATABASE: Descriptions = {
  kind: { meaning: '`"database"`.' },
  name: { meaning: "1-63 letters, digits, `.`, `_`, `-`." },
  engine: {
    meaning:
      "The database server: `postgresql` (advisory locks and lock tables), or `mariadb` / `mysql` (`GET_LOCK` user locks: `names`; `locks`, `tables` and `databases` are PostgreSQL's and refused there).",
  },
  url: {
    meaning:
      "`postgres://role:password@host:5432/database`: where Baton connects (any database of the server: `pg_locks` shows them all). The role needs no grant to see the locks; `pg_monitor` (or `pg_read_all_stats`) to see holders beyond their pid and application name. For `mariadb` and `mysql`: `mysql://user:password@host:3306/`; the user needs `SELECT` on `performance_schema` to see every lock and its waiters, `PROCESS` to see holders beyond their connection id where performance_schema is off (see [kinds/database.md](kinds/database.md#mariadb-and-mysql-get_lock)).",
  },
  databases: {
    meaning: "PostgreSQL: the databases whose advisory locks are watched (advisory locks are per database).",
    default: "every database of the server",
  },
  names: {
    meaning:
      'MariaDB/MySQL: `GET_LOCK` names to watch, `"job:daily"` or `{ "name": "job:daily", "mustBeHeld": true }` (at most 192 characters on MariaDB, 64 on MySQL). Where neither performance_schema nor the metadata_lock_info plugin can be read, these are the only locks Baton reads (`IS_USED_LOCK`); otherwise every lock is found and the names say which must be held.',
    default: "none",
  },
  locks: {
    meaning:
      'PostgreSQL: names for advisory-lock keys, which are integers: `{ "key": "42", "name": "daily-report" }` (one bigint key, or `"7,12"` for two int4 keys), `{ "library": "advisory-lock", "name": "my-mutex" }` (npm advisory-lock: the name it is given), `{ "library": "pg-boss", "schema": "pgboss" }` (pg-boss\'s maintenance lock, held for a transaction at a time), `{ "library": "with_advisory_lock", "name": "sync-users", "prefix": 0 }` (Rails); a key or an advisory-lock name may say `"mustBeHeld": true`. Keys without a name show as their numbers. See [kinds/database.md](kinds/database.md).',
  },
  tables: {
    meaning:
      'PostgreSQL: lock tables read over the same connection, in the url\'s database (the role needs `SELECT` on each): `{ "format": "shedlock", "table": "public.shedlock", "timeZone": "UTC" }` (ShedLock; `timeZone`: the zone its `TIMESTAMP` columns are written in, the JVM\'s for the JDBC provider) and `{ "format": "spring-integration", "table": "public.int_lock", "regions": ["DEFAULT"], "names": ["daily-report"], "ttlMs": 10000 }` (Spring Integration\'s `JdbcLockRegistry`; `names`: the lock names the applications use, whose name-based UUIDs are the `LOCK_KEY`s; `ttlMs`: the registry\'s TTL, needed by the 6.x table, which has no `EXPIRED_AFTER`) and `{ "format": "quartz", "tablePrefix": "qrtz_", "schedulerName": "BillingScheduler" }` (Quartz\'s clustered JDBC JobStore: `tablePrefix` is `org.quartz.jobStore.tablePrefix`, optionally after a schema (`jobs.qrtz_`), its `FIRED_TRIGGERS` and `SCHEDULER_STATE` tables are read; `schedulerName`: `org.quartz.scheduler.instanceName`, at most 120 characters, every scheduler in the tables when left out; one lock per job, held while an execution of it is `EXECUTING`) and `{ "format": "graphile-worker", "schema": "graphile_worker" }` (graphile-worker\'s named queues, one lock per queue, held by the worker running its job; the role needs `SELECT` on `<schema>._private_job_queues` and, since graphile-worker turns row-level security on, `BYPASSRLS`). Defaults: `table` `shedlock` / `int_lock`, `tablePrefix` `qrtz_`, `schema` `graphile_worker`, `timeZone` `UTC`, `regions` `["DEFAULT"]`. A table that cannot be read makes its locks stale, not the others. See [kinds/database.md](kinds/database.md).',
    default: "none",
  },
  idleInTransactionMaxMs: {
    meaning: "PostgreSQL: a holder `idle in transaction` longer than this is marked as a stuck lock in the lock's details (needs `pg_read_all_stats`).",
  },
  pollIntervalMs: {
    meaning:
      "How often the server's advisory locks are read (one query), and each of `tables` (one query each); for `mariadb`/`mysql`, its `GET_LOCK` locks (one query).",
    default: "`BATON_POLL_INTERVAL_MS`",
  },
  discoveryIntervalMs: {
    meaning:
      "How often a read also tells which locks are gone (every read already finds new ones); for `mariadb`/`mysql`, also how often Baton asks again what the server offers (performance_schema, the plugin, `PROCESS`): its mode.",
  },
  statementTimeoutMs: {
    meaning:
      "The statement timeout of every read (`SET LOCAL statement_timeout` in a read-only transaction; MariaDB: the session's `max_statement_time`, MySQL: its `max_execution_time`, on a connection set `TRANSACTION READ ONLY`).",
  },
  connectTimeoutMs: { meaning: "Timeout of connecting to the server." },
};
