// The demo's "orders-db": a PostgreSQL cluster run by Patroni (Debian's), two members on the
// demo's etcd: pg0 bootstraps and leads, pg1 streams from it (tools/patroni/patroni-pair.ts).
// Baton reads Patroni's own keys (`"layout": "patroni"` on the etcd cluster): the leader key is
// the lock, held by the primary, the other member its standby. A crash, on the elections'
// schedule, is the primary's host going down: Patroni and PostgreSQL SIGKILLed. Its leader key
// stays until the lease (Patroni's `ttl`) runs out; then the replica promotes itself ("expired:
// failover" on the lock page), and the crashed member comes back as a replica.
import { sleep } from "@/lib/sleep";
import type { DemoElection } from "@/tools/demo/demo-plan";
import type { RunningElection } from "@/tools/demo/lock-elections";
import { type PatroniPair, startPatroniPair } from "@/tools/patroni/patroni-pair";

/** How long a crash waits for the replica to be promoted: the dead primary's lease must run out first. */
const TAKEOVER_WAIT_MS = 120_000;
const TAKEOVER_POLL_MS = 500;

async function isPrimary(restPort: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${restPort}/primary`, { signal: AbortSignal.timeout(1_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** The member whose Patroni says it runs the primary now, if any. */
async function primaryOf(pair: PatroniPair): Promise<string | null> {
  for (const member of pair.members) if (member.isPatroniAlive() && (await isPrimary(member.restPort))) return member.name;
  return null;
}

/** Starts the pair (its first run may install Patroni through apt) and returns it as one of the demo's elections. */
export async function startPatroniCluster(
  plan: DemoElection & { ttlSeconds: number },
  etcdHost: string,
  log: (line: string) => void,
): Promise<RunningElection> {
  const say = (line: string) => log(`${plan.service}: ${line}`);
  const pair = await startPatroniPair({
    etcdHost,
    scope: plan.service,
    namespace: `${plan.lockPath.slice(0, plan.lockPath.lastIndexOf("/"))}/`,
    ttl: plan.ttlSeconds,
    loopWait: 2,
    log: say,
  });
  let leader: string | null = await primaryOf(pair);
  let isClosed = false;
  say(
    `${leader ?? "nobody"} is the primary, ${pair.members
      .map((m) => m.name)
      .filter((name) => name !== leader)
      .join(", ")} its replica (Patroni on etcd ${plan.lockPath})`,
  );
  return {
    plan,
    leader: () => leader,
    async crashLeader(downMs, signal) {
      const crashed = await primaryOf(pair);
      if (crashed === null || isClosed) return null;
      say(`the primary ${crashed}'s host crashes (Patroni and PostgreSQL SIGKILLed): its leader key stays until its ${plan.ttlSeconds} s TTL runs out`);
      await pair.crashMember(crashed);
      let next: string | null = null;
      for (let waited = 0; waited < TAKEOVER_WAIT_MS && next === null && !signal.aborted && !isClosed; waited += TAKEOVER_POLL_MS) {
        await sleep(TAKEOVER_POLL_MS, signal);
        next = await primaryOf(pair);
      }
      leader = next;
      if (next !== null) say(`${next} was promoted: the new primary`);
      await sleep(Math.max(0, downMs), signal);
      if (!signal.aborted && !isClosed) {
        await pair.restartMember(crashed);
        say(`${crashed} is back, a replica of ${next ?? "nobody"}`);
      }
      return next;
    },
    async close() {
      isClosed = true;
      await pair.stop();
    },
  };
}
