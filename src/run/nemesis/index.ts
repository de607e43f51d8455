/**
 * `polysi run --cluster FILE [--faults ...]`: opens a cluster for a run (issue 24). Each node and
 * replica of the cluster file gets a fault proxy on loopback (proxy.ts); the sessions connect
 * through the proxies (the run opens the proxied URLs as several nodes: run/multi-target.ts), so
 * that a partition is the proxy dropping or stalling; the nemesis (nemesis.ts) injects and heals
 * the faults asked for.
 *
 * Takes: the cluster file's path. Gives: an OpenCluster: the proxied URLs, the members for the
 * nemesis, and `close()` (closes the proxies). Invariant: every proxy opened is closed by
 * `close()`, also when opening fails half-way (then before the error is thrown).
 */

import { redactUrl } from '../targets.ts';
import { readClusterFile, type ClusterFile, type ClusterMember } from '../cluster.ts';
import { InputError } from '../../history/errors.ts';
import { FAULT_KINDS, Nemesis, possibleFaults, type FaultKind, type NemesisNode, type NemesisOptions } from './nemesis.ts';
import { FaultProxy } from './proxy.ts';

export { FAULT_KINDS, Nemesis, possibleFaults, type FaultKind };

/** A cluster file that cannot be used (unreadable, not the documented shape, a node without a port). */
export class ClusterFileError extends Error {}

/** Ports a URL without one means, by scheme. */
const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, postgresql: 5432, mysql: 3306, mariadb: 3306, etcd: 2379 };

export interface OpenCluster {
  readonly spec: ClusterFile;
  /** The nodes and replicas with their URLs pointing at their proxies (same names). */
  readonly proxied: { readonly nodes: readonly ProxiedMember[]; readonly replicas: readonly ProxiedMember[] };
  /** The nodes and replicas for the nemesis, each with its proxy. */
  readonly members: readonly NemesisNode[];
  /** A nemesis over these members (not started). */
  nemesis(opts: NemesisOptions): Nemesis;
  /** Closes every proxy. */
  close(): Promise<void>;
}

export interface ProxiedMember {
  readonly name: string;
  readonly url: string;
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

/**
 * Reads the cluster file and puts a listening fault proxy in front of every node and replica;
 * the run connects to the proxied URLs (as several --db / --replica: cli/run-nodes.ts).
 */
export async function openCluster(path: string): Promise<OpenCluster> {
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
    const members: NemesisNode[] = [];
    const proxy = async (m: ClusterMember): Promise<ProxiedMember> => {
      const url = new URL(m.url);
      const port = url.port === '' ? DEFAULT_PORTS[url.protocol.slice(0, -1)] : Number(url.port);
      if (port === undefined) throw new ClusterFileError(`cluster file ${path}: "${m.name}": no port in ${redactUrl(m.url)}`);
      const p = new FaultProxy(url.hostname.replace(/^\[|\]$/g, ''), port);
      proxies.push(p);
      const local = await p.listen();
      url.hostname = '127.0.0.1';
      url.port = String(local);
      members.push({ spec: m, proxy: p });
      return { name: m.name, url: url.href };
    };
    const nodes: ProxiedMember[] = [];
    for (const m of spec.nodes) nodes.push(await proxy(m));
    const replicas: ProxiedMember[] = [];
    for (const m of spec.replicas) replicas.push(await proxy(m));
    return { spec, proxied: { nodes, replicas }, members, nemesis: (opts) => new Nemesis(members, opts), close };
  } catch (err) {
    await close();
    throw err;
  }
}
