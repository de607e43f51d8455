/**
 * `polysi run`'s flags for several nodes (issue 24): `--db` given more than once (optionally
 * `--db NAME=URL`), `--replica [NAME=]URL`, `--read-only-sessions N`, `--session-init SQL`,
 * `--barrier-timeout S`. Kept apart from run.ts, which calls `nodePlan` and `openNodes`.
 *
 * Takes: run's parsed flag values. Gives: the plan (names and URLs, checked) and the opened
 * MultiTarget. Invariants: names are unique and plain (letters, digits, `_.-`); several servers
 * must all be database URLs (two embedded stores would be two databases, not two nodes of one);
 * a usage mistake is a UsageError before anything is opened.
 */

import { UsageError } from './args.ts';
import { MultiTarget, type NamedTarget } from '../run/multi-target.ts';
import { openTarget, redactUrl, type DriverOptions, type ResolvedTarget } from '../run/targets.ts';
import type { IsolationLevel } from '../run/types.ts';

/** The flags this module reads, for run.ts's parseCommandArgs. */
export const NODE_FLAGS = {
  replica: { type: 'string', multiple: true },
  'read-only-sessions': { type: 'string' },
  'session-init': { type: 'string', multiple: true },
  'barrier-timeout': { type: 'string' },
} as const;

export const NODES_USAGE = `several nodes (docs/distributed.md):
  --db [NAME=]URL       given more than once: the nodes of one database (named n1, n2, ... unless NAME=);
                        sessions round-robin over them, every txn records its node
  --replica [NAME=]URL  a read-only replica (repeatable; named r1, r2, ...): the read-only sessions read there
  --read-only-sessions N  the last N sessions run read-only txns (default: one per replica, else 0)
  --session-init SQL    a statement run on every connection after it opens (repeatable, in order),
                        e.g. "SET SESSION wsrep_sync_wait=1"
  --barrier-timeout S   how long to wait for the tables to show on every node and replica (default 60)`;

/** Default of `--barrier-timeout` (s); and how long a session keeps trying its node and the next ones. */
export const BARRIER_TIMEOUT_S_DEFAULT = 60;
export const RECONNECT_MS_DEFAULT = 10_000;

export interface NodeFlagValues {
  db: string[];
  replica?: string[] | undefined;
  'read-only-sessions'?: string | undefined;
  'session-init'?: string[] | undefined;
  'barrier-timeout'?: string | undefined;
}

export interface NodeSpec {
  readonly name: string;
  readonly url: string;
}

export interface NodePlan {
  readonly nodes: readonly NodeSpec[];
  readonly replicas: readonly NodeSpec[];
  readonly readOnlySessions: number;
  readonly barrierTimeoutMs: number;
}

const NAMED = /^([A-Za-z][A-Za-z0-9_.-]*)=(.+)$/;

function usage(message: string): never {
  throw new UsageError('run', message);
}

/** `[NAME=]URL` specs as named servers: `prefix1, prefix2, ...` unless named. */
function named(specs: readonly string[], prefix: string, flag: string): NodeSpec[] {
  return specs.map((spec, i) => {
    const m = NAMED.exec(spec);
    const s = m === null ? { name: `${prefix}${i + 1}`, url: spec } : { name: m[1]!, url: m[2]! };
    if (!/^(postgres|postgresql|mysql|mariadb):\/\//.test(s.url)) {
      usage(`${flag} ${redactUrl(s.url)}: with several nodes or replicas each must be a database URL (postgres://... or mysql://...)`);
    }
    return s;
  });
}

/**
 * The plan of a run over several servers, or null for one server (one `--db`, no replica): then
 * run.ts opens it as always. `--session-init` alone does not need a plan (it is a driver option).
 */
export function nodePlan(v: NodeFlagValues, sessions: number): NodePlan | null {
  const replicaSpecs = v.replica ?? [];
  const roText = v['read-only-sessions'];
  if (v.db.length <= 1 && replicaSpecs.length === 0) {
    if (roText !== undefined) usage('--read-only-sessions needs --replica, or --db given more than once');
    if (v['barrier-timeout'] !== undefined) usage('--barrier-timeout needs --replica, or --db given more than once');
    return null;
  }
  const nodes = named(v.db, 'n', '--db');
  const replicas = named(replicaSpecs, 'r', '--replica');
  const seen = new Set<string>();
  for (const m of [...nodes, ...replicas]) {
    if (seen.has(m.name)) usage(`the name ${m.name} is given to two servers; each --db / --replica name must be unique`);
    seen.add(m.name);
  }
  let readOnlySessions = replicas.length;
  if (roText !== undefined) {
    const n = Number(roText);
    if (roText.trim() === '' || !Number.isInteger(n) || n < 0) usage(`--read-only-sessions takes an integer ≥ 0, got "${roText}"`);
    readOnlySessions = n;
  }
  if (readOnlySessions > sessions) usage(`--read-only-sessions ${readOnlySessions} is more than the ${sessions} sessions`);
  if (readOnlySessions === sessions && replicas.length > 0) usage('every session would be read-only: nothing would write (lower --read-only-sessions)');
  const bt = v['barrier-timeout'];
  const barrierS = bt === undefined ? BARRIER_TIMEOUT_S_DEFAULT : Number(bt);
  if (bt !== undefined && (bt.trim() === '' || !Number.isFinite(barrierS) || barrierS <= 0)) usage(`--barrier-timeout takes a number of seconds > 0, got "${bt}"`);
  return { nodes, replicas, readOnlySessions, barrierTimeoutMs: barrierS * 1000 };
}

/** Opens every server of `plan` (nothing connected yet) as one MultiTarget. */
export async function openNodes(
  plan: NodePlan, sessions: number, isolation: IsolationLevel | undefined, seed: number, driver: DriverOptions,
): Promise<ResolvedTarget & { target: MultiTarget }> {
  const open = async (m: NodeSpec): Promise<{ named: NamedTarget; resolved: ResolvedTarget }> => {
    const resolved = await openTarget(m.url, isolation, seed, driver);
    return { named: { name: m.name, target: resolved.target }, resolved };
  };
  const nodes = await Promise.all(plan.nodes.map(open));
  const replicas = await Promise.all(plan.replicas.map(open));
  const first = nodes[0]!.resolved;
  const target = new MultiTarget(nodes.map((n) => n.named), replicas.map((r) => r.named), sessions, plan.readOnlySessions);
  return { target, isolation: first.isolation, defaultCheck: first.defaultCheck };
}
