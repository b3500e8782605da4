// The demo's two lock-service elections, each among real clients of its kind: a ZooKeeper
// Curator LeaderLatch (one JVM, one session, per participant) and an etcd election (`etcdctl
// elect`, Go's concurrency.Election with its 60 s session lease). A crash (SIGKILL) of the leader
// moves leadership only once the dead leader's session or lease runs out, which is what the
// lock pages show meanwhile: the ZooKeeper session's time left, and the etcd lease nobody renews.
// The crashed participant comes back after a while as a new session (a waiter).
import { sleep } from "@/lib/sleep";
import type { DemoElection } from "@/tools/demo/demo-plan";
import { type CuratorContender, startCuratorContender } from "@/tests/support/curator-contender";
import { type Contender as EtcdContender, startElectCandidate } from "@/tests/support/etcd-contenders";

/** One election: who leads now (as its own clients tell it), and a crash of the leader. */
export type RunningElection = {
  plan: DemoElection;
  leader(): string | null;
  /** SIGKILLs the leader, brings it back after `downMs`; resolves with the new leader (or null when none took over in time). */
  crashLeader(downMs: number, signal: AbortSignal): Promise<string | null>;
  close(): Promise<void>;
};

type Participant = { stop(): Promise<void>; isLeader: boolean };

/** How long a crash waits for another participant to lead: the dead one's session or lease must run out first. */
const TAKEOVER_WAIT_MS = 120_000;
const TAKEOVER_POLL_MS = 500;

function runElection(
  plan: DemoElection,
  join: (worker: string, onLeader: () => void) => Promise<Participant>,
  log: (line: string) => void,
): { start(): Promise<void>; election: RunningElection } {
  const participants = new Map<string, Participant>();
  let isClosed = false;
  const add = async (worker: string) => {
    const participant = await join(worker, () => {
      if (isClosed) return;
      for (const [name, other] of participants) if (name !== worker) other.isLeader = false;
      log(`${plan.service}: ${worker} leads (${plan.kind} ${plan.lockPath})`);
    });
    participants.set(worker, participant);
  };
  const leader = () => [...participants].find(([, p]) => p.isLeader)?.[0] ?? null;
  return {
    // One after the other: the first to join leads.
    start: async () => {
      for (const worker of plan.workers) await add(worker);
    },
    election: {
      plan,
      leader,
      async crashLeader(downMs, signal) {
        const crashed = leader();
        if (crashed === null) return null;
        const participant = participants.get(crashed)!;
        participants.delete(crashed);
        log(
          `${plan.service}: crashing ${crashed}, the leader (SIGKILL): it keeps ${plan.lockPath} until its ${plan.kind === "zookeeper" ? "session times out" : "lease runs out"}`,
        );
        await participant.stop();
        let next: string | null = null;
        for (let waited = 0; waited < TAKEOVER_WAIT_MS && next === null && !signal.aborted; waited += TAKEOVER_POLL_MS) {
          await sleep(TAKEOVER_POLL_MS, signal);
          next = leader();
        }
        await sleep(Math.max(0, downMs), signal);
        if (!signal.aborted && !isClosed) {
          log(`${plan.service}: ${crashed} is back with a new ${plan.kind === "zookeeper" ? "session" : "lease"} and waits`);
          await add(crashed);
        }
        return next;
      },
      async close() {
        isClosed = true;
        await Promise.all([...participants.values()].map((p) => p.stop()));
        participants.clear();
      },
    },
  };
}

/** A Curator LeaderLatch among `plan.workers`, each on its own ZooKeeper session. */
export async function startZookeeperElection(
  plan: DemoElection,
  connectString: string,
  sessionTimeoutMs: number,
  log: (line: string) => void,
): Promise<RunningElection> {
  const { start, election } = runElection(
    plan,
    async (worker, onLeader) => {
      const contender: CuratorContender = await startCuratorContender(connectString, sessionTimeoutMs);
      const participant: Participant = { isLeader: false, stop: () => contender.kill() };
      await contender.latch("latch", plan.lockPath, worker);
      void contender.next("latch", "leader").then(() => {
        participant.isLeader = true;
        onLeader();
      });
      return participant;
    },
    log,
  );
  await start();
  return election;
}

/** `etcdctl elect` among `plan.workers`: Go's concurrency.Election, as Go services campaign. */
export async function startEtcdElection(plan: DemoElection, endpoint: string, log: (line: string) => void): Promise<RunningElection> {
  const { start, election } = runElection(
    plan,
    async (worker, onLeader) => {
      const candidate: EtcdContender = startElectCandidate(endpoint, plan.lockPath, worker);
      const participant: Participant = { isLeader: false, stop: () => candidate.kill() };
      // etcdctl prints the key, then the proposal, once it leads.
      candidate
        .waitForOutput(new RegExp(`^${worker}$`, "m"))
        .then(() => {
          participant.isLeader = true;
          onLeader();
        })
        .catch(() => undefined); // it was killed before it led: nothing to tell
      return participant;
    },
    log,
  );
  await start();
  return election;
}
