/**
 * `polysi run --cluster FILE [--faults ...]`: opens a cluster for a run (issue 24). Each node of
 * the cluster file gets a fault proxy on loopback (proxy.ts); the sessions connect through the
 * proxies (cluster-target.ts), so that a partition is the proxy dropping or stalling; the
 * nemesis (nemesis.ts) injects and heals the faults asked for.
 *
 * Takes: the cluster file's path, the isolation asked for, the seed and the driver options.
 * Gives: an OpenCluster: the ResolvedTarget to run against, the nodes for the nemesis, and
 * `close()` (closes the proxies). Invariant: every proxy opened is closed by `close()`, also
 * when opening fails half-way (then before the error is thrown).
 */

import { openTarget, redactUrl, type DriverOptions, type ResolvedTarget } from '../targets.ts';
import type { IsolationLevel } from '../types.ts';
import { readClusterFile, type ClusterFile } from '../cluster.ts';
import { InputError } from '../../history/errors.ts';
import { ClusterTarget } from './cluster-target.ts';
import { FAULT_KINDS, Nemesis, possibleFaults, type FaultKind, type NemesisNode, type NemesisOptions } from './nemesis.ts';
import { FaultProxy } from './proxy.ts';

export { FAULT_KINDS, Nemesis, possibleFaults, type FaultKind };

/** A cluster file that cannot be used (unreadable, not the documented shape, a node without a port). */
export class ClusterFileError extends Error {}

/** Ports a URL without one means, by scheme. */
const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, postgresql: 5432, mysql: 3306, mariadb: 3306, etcd: 2379 };

export interface OpenCluster {
  readonly spec: ClusterFile;
  readonly resolved: ResolvedTarget & { target: ClusterTarget };
  readonly nodes: readonly NemesisNode[];
  /** A nemesis over these nodes (not started). */
  nemesis(opts: NemesisOptions): Nemesis;
  close(): Promise<void>;
}

/** Parses `--faults kill,pause,partition,stall`; throws RangeError naming the unknown kind. */
export function parseFaultKinds(text: string): FaultKind[] {
  const kinds = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (kinds.length === 0) throw new RangeError(`--faults takes a list of ${FAULT_KINDS.join(', ')}`);
  for (const k of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(k)) throw new RangeError(`--faults: unknown fault "${k}"; expected ${FAULT_KINDS.join(', ')}`);
  }
  return [...new Set(kinds)] as FaultKind[];
}

export async function openCluster(
  path: string, isolation: IsolationLevel | undefined, seed: number, driver: DriverOptions,
): Promise<OpenCluster> {
  let spec: ClusterFile;
  try {
    spec = await readClusterFile(path);
  } catch (err) {
    if (err instanceof InputError) throw new ClusterFileError(err.message);
    throw err;
  }
  const proxies: FaultProxy[] = [];
  const close = async () => { await Promise.allSettled(proxies.map((p) => p.close())); };
  try {
    const nodes: NemesisNode[] = [];
    const members: { name: string; target: ResolvedTarget['target'] }[] = [];
    let first: ResolvedTarget | null = null;
    for (const n of spec.nodes) {
      const url = new URL(n.url);
      const port = url.port === '' ? DEFAULT_PORTS[url.protocol.slice(0, -1)] : Number(url.port);
      if (port === undefined) throw new ClusterFileError(`cluster file ${path}: node "${n.name}": no port in ${redactUrl(n.url)}`);
      const proxy = new FaultProxy(url.hostname.replace(/^\[|\]$/g, ''), port);
      proxies.push(proxy);
      const local = await proxy.listen();
      url.hostname = '127.0.0.1';
      url.port = String(local);
      const r = await openTarget(url.href, isolation, seed, driver);
      first ??= r;
      nodes.push({ spec: n, proxy });
      members.push({ name: n.name, target: r.target });
    }
    const target = new ClusterTarget(spec.name, members, 0);
    return {
      spec,
      resolved: { ...first!, target },
      nodes,
      nemesis: (opts) => new Nemesis(nodes, opts),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
