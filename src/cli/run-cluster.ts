/**
 * `polysi run`'s cluster and fault flags (issue 24): `--cluster FILE`, `--faults KINDS`,
 * `--fault-every S`, `--fault-duration S`, `--reconnect S`. Kept apart from run.ts, which calls
 * `openRunCluster` (the cluster's nodes and replicas, through their fault proxies, become the
 * plan of several --db / --replica: run-nodes.ts) and `startFaults` once the recording is open.
 *
 * Takes: run's parsed flag values. Gives: the cluster opened (its proxies listening) and, during
 * the run, a nemesis writing every fault to the recording. Invariant: faults are only asked for
 * with a cluster; a fault the cluster's commands cannot do is said before the run starts.
 */

import { UsageError } from './args.ts';
import type { JsonlRecorder } from '../run/recorder.ts';
import { ClusterFileError, FAULT_KINDS, openCluster, parseFaultKinds, possibleFaults, type FaultKind, type Nemesis, type OpenCluster } from '../run/nemesis/index.ts';
import { BARRIER_TIMEOUT_S_DEFAULT, nodePlan, type NodeFlagValues, type NodePlan } from './run-nodes.ts';

/** The flags this module reads, for run.ts's parseCommandArgs. */
export const CLUSTER_FLAGS = {
  cluster: { type: 'string' },
  faults: { type: 'string' },
  'fault-every': { type: 'string' },
  'fault-duration': { type: 'string' },
  reconnect: { type: 'string' },
} as const;

export const CLUSTER_USAGE = `cluster and faults (docs/distributed.md):
  --cluster FILE        the nodes and replicas of a cluster file (instead of --db / --replica), each
                        behind a fault proxy on loopback; sessions as with several --db
  --faults KINDS        inject faults, one at a time, on nodes chosen by --seed: ${FAULT_KINDS.join(', ')}
                        (kill/pause use the file's kill+start / pause+resume commands; partition drops
                        the node's connections, stall holds them)
  --fault-every S       quiet seconds before each fault (default 5); --fault-duration S (default 3)
  --reconnect S         how long a session that lost its connection keeps trying its node and the
                        next ones (default 30, at least the fault duration + 10)`;

export interface ClusterFlagValues {
  cluster?: string | undefined;
  faults?: string | undefined;
  'fault-every'?: string | undefined;
  'fault-duration'?: string | undefined;
  reconnect?: string | undefined;
  db: string;
}

/** The fault and cluster flags, and run-nodes.ts's (a cluster's nodes are run as several --db). */
export type RunClusterFlags = ClusterFlagValues & Omit<NodeFlagValues, 'db'>;

export interface FaultPlan {
  kinds: FaultKind[];
  everyMs: number;
  durationMs: number;
  reconnectMs: number;
}

function seconds(v: string | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError('run', `--${name} takes a number of seconds > 0, got "${v}"`);
  return n;
}

/** The fault flags checked (null: no --faults); usage errors for faults without a cluster. */
export function faultPlan(v: ClusterFlagValues, dbGiven: boolean): FaultPlan | null {
  if (v.cluster !== undefined && dbGiven) throw new UsageError('run', '--cluster and --db both name the target; give one');
  const faultFlag = v.faults !== undefined || v['fault-every'] !== undefined || v['fault-duration'] !== undefined;
  if (faultFlag && v.cluster === undefined) throw new UsageError('run', '--faults needs --cluster FILE (the nodes and their kill/start/pause/resume commands)');
  if (v.faults === undefined && (v['fault-every'] !== undefined || v['fault-duration'] !== undefined)) {
    throw new UsageError('run', '--fault-every and --fault-duration need --faults');
  }
  const durationMs = seconds(v['fault-duration'], 'fault-duration', 3) * 1000;
  const reconnectMs = Math.max(seconds(v.reconnect, 'reconnect', 30) * 1000, durationMs + 10_000);
  if (v.faults === undefined) return v.cluster === undefined ? null : { kinds: [], everyMs: 0, durationMs, reconnectMs };
  let kinds: FaultKind[];
  try {
    kinds = parseFaultKinds(v.faults);
  } catch (err) {
    throw new UsageError('run', (err as Error).message);
  }
  return { kinds, everyMs: seconds(v['fault-every'], 'fault-every', 5) * 1000, durationMs, reconnectMs };
}

/**
 * Opens the cluster of `--cluster` (a proxy per node and replica) and its plan of several
 * servers; a cluster file that is wrong, or faults its commands cannot do, are usage errors
 * (exit 2, every proxy closed).
 */
export async function openRunCluster(file: string, plan: FaultPlan, v: RunClusterFlags, sessions: number): Promise<OpenCluster & { plan: NodePlan }> {
  let c: OpenCluster;
  try {
    c = await openCluster(file);
  } catch (err) {
    if (err instanceof ClusterFileError) throw new UsageError('run', err.message);
    throw err;
  }
  try {
    const possible = possibleFaults(c.members, plan.kinds);
    const missing = plan.kinds.filter((k) => !possible.some((p) => p.kind === k));
    if (missing.length > 0) {
      throw new UsageError('run', `--faults ${missing.join(',')}: no node of ${file} has the commands for ${missing.length === 1 ? 'it' : 'them'} ` +
        '(kill needs "kill" and "start", pause needs "pause" and "resume")');
    }
    const named = (ms: readonly { name: string; url: string }[]) => ms.map((m) => `${m.name}=${m.url}`);
    const nodes = nodePlan({
      db: named(c.proxied.nodes), replica: named(c.proxied.replicas),
      'read-only-sessions': v['read-only-sessions'], 'barrier-timeout': v['barrier-timeout'],
    }, sessions);
    // One node and no replica is still run as a node (it records its name and reconnects).
    const bt = v['barrier-timeout'];
    return { ...c, plan: nodes ?? { nodes: c.proxied.nodes, replicas: [], readOnlySessions: 0, barrierTimeoutMs: (bt === undefined ? BARRIER_TIMEOUT_S_DEFAULT : Number(bt)) * 1000 } };
  } catch (err) {
    await c.close();
    throw err;
  }
}

/** Starts the nemesis of `plan` (null when no faults were asked for); faults go to `recorder`. */
export function startFaults(c: OpenCluster, plan: FaultPlan, seed: number, recorder: JsonlRecorder, log: (s: string) => void): Nemesis | null {
  if (plan.kinds.length === 0) return null;
  const nemesis = c.nemesis({
    kinds: plan.kinds, everyMs: plan.everyMs, durationMs: plan.durationMs, seed,
    onFault: (kind, node, start, end) => {
      recorder.recordFault(kind, node, start, end);
      log(`polysi run: fault: ${kind} ${node} ${Number.isNaN(end) ? 'NOT HEALED' : `for ${((end - start) / 1000).toFixed(1)} s`}`);
    },
    onNote: (text) => log(`polysi run: fault: ${text}`),
  });
  nemesis.start();
  return nemesis;
}
