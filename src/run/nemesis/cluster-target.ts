/**
 * A Target over several nodes (the nodes of a cluster file, each reached through its fault
 * proxy): sessions are spread round-robin, and a session whose connection was lost reconnects
 * to its node or, when that one does not answer, to the next (issue 24).
 *
 * Takes: the nodes' names and Targets, and how long a session keeps trying to reconnect
 * (`reconnectMs`: 0 before the run, so an unreachable cluster is said at once; the run sets it).
 * Gives: a Target (types.ts) and `nodeOf(session)`, the node a session's connection is on.
 * Invariant: `connect` rejects (DbError 'unreachable') only after every node refused for the
 * whole `reconnectMs`; `setup` runs once, on the first node that answers (the cluster
 * replicates it).
 *
 * This is the nemesis branch's minimum of multi-node runs; branch dist-run's multi `--db` and
 * reconnect are the general ones (the merger keeps one of the two).
 */

import { DbError, type Connection, type Target } from '../types.ts';

export interface ClusterNode {
  readonly name: string;
  readonly target: Target;
}

/** Pause between rounds of reconnect attempts over the nodes. */
export const RECONNECT_PAUSE_MS = 200;

export class ClusterTarget implements Target {
  readonly name: string;
  /** `current[s]`: the node index session s is (or was last) connected to. */
  private readonly current = new Map<number, number>();

  constructor(clusterName: string, readonly nodes: readonly ClusterNode[], public reconnectMs: number) {
    if (nodes.length === 0) throw new Error('internal error: a cluster without nodes');
    this.name = `cluster ${clusterName} (${nodes.map((n) => n.name).join(", ")})`;
  }

  /** The name of the node session s is on. */
  nodeOf(session: number): string {
    return this.nodes[this.current.get(session) ?? session % this.nodes.length]!.name;
  }

  async setup(keys: number, kinds: { registers: boolean; lists: boolean }): Promise<void> {
    await this.onAny(0, (t) => t.setup(keys, kinds));
  }

  async connect(session: number): Promise<Connection> {
    const first = this.current.get(session) ?? session % this.nodes.length;
    const { value, node } = await this.onAny(first, (t) => t.connect(session));
    this.current.set(session, node);
    return value;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.nodes.map((n) => n.target.close()));
  }

  /**
   * `f` on node `first`, then the next ones in turn, round after round, until one answers or
   * `reconnectMs` has passed (then the last node's error, naming every node that refused).
   */
  private async onAny<T>(first: number, f: (t: Target) => Promise<T>): Promise<{ value: T; node: number }> {
    const n = this.nodes.length;
    const deadline = performance.now() + this.reconnectMs;
    for (;;) {
      let last: DbError | null = null;
      for (let i = 0; i < n; i++) {
        const node = (first + i) % n;
        try {
          return { value: await f(this.nodes[node]!.target), node };
        } catch (err) {
          if (!(err instanceof DbError)) throw err;
          last = err;
        }
      }
      if (performance.now() + RECONNECT_PAUSE_MS > deadline) {
        throw new DbError(`${this.name}: no node answered within ${this.reconnectMs / 1000} s (last: ${last!.message})`, 'unreachable', last!.code);
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS));
    }
  }
}
