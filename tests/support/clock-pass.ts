// What `npm test`'s second pass (the clock moved 400 days ahead) leaves to `npm run test:clock`:
// tests whose subject is another program's timing, not a date Baton computes. Each costs minutes
// on two cores, and a calendar bug in the Baton code they reach (ingest, the stored changes) is
// found by the ingest, event-store, poller and read tests, which the pass keeps.

/** Globs for vitest's --exclude, each with why the moved clock tells nothing more there. */
export const CLOCK_PASS_EXCLUDES: readonly { glob: string; why: string }[] = [
  {
    glob: "tests/integration/exclusivity-client-java/**",
    why: "the Java client's batching, retries and Pulsar consumers; what it sends goes through the ingest tests",
  },
  { glob: "tests/integration/pulsar/owner-rules.test.ts", why: "the brokers' own hashing and Failover picks on 4.2.4 and 3.0.7, no instant of Baton's" },
];
