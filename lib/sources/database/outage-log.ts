// A database cluster's reads failing and answering again: one log line per outage and one when
// it ends, not one per read.

export type OutageLog = {
  /** A read failed with `line`: said once per outage. */
  failed(line: string): void;
  /** A read answered (`what` it found): said once, when it ends an outage. */
  answered(what: string): void;
};

export function createOutageLog(cluster: string, log: (line: string) => void): OutageLog {
  let isFailing = false;
  return {
    failed(line) {
      if (!isFailing) log(`database ${cluster}: ${line}; its locks are stale until a read answers`);
      isFailing = true;
    },
    answered(what) {
      if (isFailing) log(`database ${cluster}: reads answer again (${what})`);
      isFailing = false;
    },
  };
}
