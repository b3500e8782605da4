import { z } from "zod";

import { compareText } from "@/lib/compare-text";

// What Patroni (PostgreSQL high availability) writes about a cluster, whichever store keeps it
// (the etcd kind's patroni layout, the ZooKeeper kind's patroni system): its members' JSON, a
// pending switchover, its history of timelines, and who it would promote. Pure; each kind reads
// the keys or nodes and tells how a primary's hold ended in its own terms (revisions and leases,
// zxids and sessions).
//   <scope>/members/<name>  JSON: role, state, conn_url, api_url, timeline, xlog_location, tags
//   <scope>/failover        {"leader":"pg0","member":"pg1"} while a switchover is asked for, then {}
//   <scope>/history         JSON list of [timeline, LSN, reason, timestamp, new leader]

const memberSchema = z.looseObject({
  role: z.string().optional(),
  state: z.string().optional(),
  api_url: z.string().optional(),
  timeline: z.number().int().optional(),
  xlog_location: z.number().optional(),
  tags: z.looseObject({ nofailover: z.boolean().optional() }).optional(),
});

export type PatroniMember = {
  name: string;
  /** Patroni's words: master/primary, replica, standby_leader...; null when its JSON could not be read. */
  role: string | null;
  /** running, streaming, stopped, starting... */
  state: string | null;
  timeline: number | null;
  /** WAL position in bytes (a replica's: replayed), as Patroni last wrote it. */
  xlogLocation: number | null;
  apiUrl: string | null;
  /** tags.nofailover: Patroni never promotes it. */
  isNoFailover: boolean;
  /** The data was no JSON object Patroni writes: a member with nothing known of it. */
  isUnreadable: boolean;
};

/** A switchover or failover asked for: from whom (none: whoever leads) to whom (none: the best standby). */
export type PatroniRequest = { leader: string | null; member: string | null; scheduledAt: string | null };

export type PatroniHistory = { entries: number; lastReason: string | null; lastLeader: string | null };

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A member from its key's or node's data (null: none read). */
export function readPatroniMember(name: string, json: string | null): PatroniMember {
  const parsed = memberSchema.safeParse(parseJson(json));
  if (!parsed.success) return { name, role: null, state: null, timeline: null, xlogLocation: null, apiUrl: null, isNoFailover: false, isUnreadable: true };
  const member = parsed.data;
  return {
    name,
    role: member.role ?? null,
    state: member.state ?? null,
    timeline: member.timeline ?? null,
    xlogLocation: member.xlog_location ?? null,
    apiUrl: member.api_url ?? null,
    isNoFailover: member.tags?.nofailover === true,
    isUnreadable: false,
  };
}

const requestSchema = z.looseObject({ leader: z.string().optional(), member: z.string().optional(), scheduled_at: z.string().optional() });

/** The request the `failover` data holds; null for `{}` (none pending), none, or data Patroni would not write. */
export function readPatroniRequest(json: string | null): PatroniRequest | null {
  const parsed = requestSchema.safeParse(parseJson(json));
  if (!parsed.success || (parsed.data.leader === undefined && parsed.data.member === undefined)) return null;
  return { leader: parsed.data.leader ?? null, member: parsed.data.member ?? null, scheduledAt: parsed.data.scheduled_at ?? null };
}

/** How many timelines Patroni recorded (one line per promotion after the first), and its last line's reason and leader. */
export function readPatroniHistory(json: string | null): PatroniHistory | null {
  const parsed = parseJson(json);
  if (!Array.isArray(parsed)) return null;
  const last = parsed.at(-1) as unknown;
  const line = Array.isArray(last) ? last : [];
  return { entries: parsed.length, lastReason: typeof line[2] === "string" ? line[2] : null, lastLeader: typeof line[4] === "string" ? line[4] : null };
}

const HEALTHY_STATES = new Set(["running", "streaming"]);

/** Bytes of WAL a standby is behind the primary, as their last member data says; null when unknown. */
function lagOf(member: PatroniMember, primary: PatroniMember | undefined): number | null {
  if (primary?.xlogLocation == null || member.xlogLocation === null) return null;
  return Math.max(0, primary.xlogLocation - member.xlogLocation);
}

export type PatroniStandbys<M extends PatroniMember> = {
  /** The member the leader names, when its data was read. */
  primary: M | undefined;
  /** Every other member, by name. */
  standbys: M[];
  /** Each standby's lag behind the primary in bytes (null: unknown). */
  lagBytes: Map<string, number | null>;
  /**
   * Who Patroni would promote, first to last: the member a pending switchover names, then running
   * replicas by lag (least first), then the rest by name. Members tagged nofailover, and ones whose
   * data could not be read, are standbys but never candidates.
   */
  candidates: M[];
};

/** The primary (named by the leader), its standbys, their lag, and Patroni's order of candidates. */
export function rankPatroniStandbys<M extends PatroniMember>(members: readonly M[], leader: string | null, askedFor: string | null): PatroniStandbys<M> {
  const primary = leader === null ? undefined : members.find((member) => member.name === leader);
  const standbys = members.filter((member) => member !== primary);
  const lagBytes = new Map(standbys.map((member) => [member.name, lagOf(member, primary)]));
  const rank = (member: M) => (member.name === askedFor ? 0 : HEALTHY_STATES.has(member.state ?? "") ? 1 : 2);
  const lagOrMax = (member: M) => lagBytes.get(member.name) ?? Number.MAX_SAFE_INTEGER;
  const candidates = standbys
    .filter((member) => !member.isNoFailover && !member.isUnreadable)
    .sort((a, b) => rank(a) - rank(b) || lagOrMax(a) - lagOrMax(b) || compareText(a.name, b.name));
  return { primary, standbys, lagBytes, candidates };
}
