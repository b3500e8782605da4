import { readdirSync, readFileSync } from "node:fs";

// CPU time of processes from /proc (Linux), to say where a benchmark's CPU went: the server,
// PostgreSQL (postmaster and every backend), the load generator.

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux build that matters.
const CLOCK_TICKS_PER_SECOND = 100;

type ProcStat = { ppid: number; cpuSeconds: number };

function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // The process ended between listing and reading: it has no CPU time left to count.
    return null;
  }
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis don't.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND };
}

/** CPU seconds used so far by one process. */
export function processCpuSeconds(pid: number): number {
  return readStat(pid)?.cpuSeconds ?? 0;
}

/** CPU seconds used so far by a process and its living children (PostgreSQL's backends). */
export function processTreeCpuSeconds(rootPid: number): number {
  let total = processCpuSeconds(rootPid);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat?.ppid === rootPid) total += stat.cpuSeconds;
  }
  return total;
}

/** The postmaster's pid, from a backend's parent. */
export function parentPid(pid: number): number {
  const stat = readStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return stat.ppid;
}
