/**
 * A Target over several nodes and replicas of one distributed database (issue 24): `polysi run`
 * with `--db` given more than once, and `--replica`.
 *
 * Takes: the nodes (writable servers, names and Targets), the replicas (read-only servers), the
 * number of read-only sessions, and how long a session keeps trying to reconnect. Gives: a
 * Target whose connections say which node they are on (`Connection.node`, recorded with every
 * txn), `nodeOf(session)`, and `barrier`, which waits until every server shows the tables.
 *
 * Session assignment (docs/distributed.md): the last `readOnlySessions` sessions are read-only;
 * they go round-robin over the replicas (over the nodes when there are none). The other sessions
 * go round-robin over the nodes: session s (of the writable ones, counted from 0) on node
 * s mod N. A session whose connection was lost reconnects to its server, else to the next one of
 * the same pool (nodes, or replicas), round after round until `reconnectMs` has passed.
 *
 * Invariants: `setup` runs once, on the first node (the database replicates it), then marks the
 * run with a token; `barrier` passes only when every node and replica shows that token and all
 * the tables (the relations' too) and rows, so no session starts on a server that lacks them. `connect` rejects (DbError
 * 'unreachable') only after every server of the session's pool refused.
 */

import { DbError, type Connection, type IsolationLevel, type RegisterValue, type TableKinds, type Target } from './types.ts';

export interface NamedTarget {
  readonly name: string;
  readonly target: Target;
}

/** Pause between rounds of reconnect attempts, and between the barrier's looks. */
export const RECONNECT_PAUSE_MS = 200;
export const BARRIER_POLL_MS = 100;

/** Which pool (nodes or replicas) and which member of it each session starts on. */
export interface SessionPlace {
  readonly pool: 'node' | 'replica';
  readonly index: number;
}

/**
 * The place of session s among `sessions`: the last `readOnly` are read-only (round-robin over
 * the replicas, over the nodes when there are none), the others round-robin over the nodes.
 */
export function placeSession(s: number, sessions: number, nodes: number, replicas: number, readOnly: number): SessionPlace {
  const firstReadOnly = sessions - readOnly;
  if (s < firstReadOnly) return { pool: 'node', index: s % nodes };
  const r = s - firstReadOnly;
  return replicas > 0 ? { pool: 'replica', index: r % replicas } : { pool: 'node', index: r % nodes };
}

export class MultiTarget implements Target {
  readonly name: string;
  /** `current[s]`: the index in its pool of the server session s is (or was last) on. */
  private readonly current = new Map<number, number>();
  /** Reconnects to another server than the session's previous one. */
  failovers = 0;

  constructor(
    readonly nodes: readonly NamedTarget[],
    readonly replicas: readonly NamedTarget[],
    readonly sessions: number,
    readonly readOnlySessions: number,
    public reconnectMs = 0,
  ) {
    if (nodes.length === 0) throw new Error('internal error: a multi-node target without nodes');
    if (readOnlySessions > sessions) throw new Error('internal error: more read-only sessions than sessions');
    const names = (xs: readonly NamedTarget[]) => xs.map((x) => `${x.name}=${x.target.name}`).join(', ');
    this.name = `${nodes.length} node${nodes.length === 1 ? '' : 's'} (${names(nodes)})` +
      (replicas.length === 0 ? '' : ` and ${replicas.length} replica${replicas.length === 1 ? '' : 's'} (${names(replicas)})`);
  }

  /** Whether session s runs read-only transactions only. */
  isReadOnly(s: number): boolean {
    return s >= this.sessions - this.readOnlySessions;
  }

  private pool(s: number): readonly NamedTarget[] {
    return placeSession(s, this.sessions, this.nodes.length, this.replicas.length, this.readOnlySessions).pool === 'node' ? this.nodes : this.replicas;
  }

  /** The name of the server session s is on (or will first be). */
  nodeOf(s: number): string {
    const place = placeSession(s, this.sessions, this.nodes.length, this.replicas.length, this.readOnlySessions);
    return this.pool(s)[this.current.get(s) ?? place.index]!.name;
  }

  async setup(keys: number, kinds: TableKinds): Promise<void> {
    await this.nodes[0]!.target.setup(keys, kinds);
  }

  /**
   * Marks the run on the first node, then waits until every node and replica shows the mark and
   * the tables and rows of `setup` (`kinds`: the relations' tables too, or a predicate session on
   * a lagging replica would start before its relation exists there); rejects (DbError
   * 'unreachable') after `timeoutMs` naming the servers that still lack them and what they lack.
   */
  async barrier(keys: number, kinds: TableKinds, timeoutMs: number, token: string): Promise<number> {
    const t0 = performance.now();
    const first = this.nodes[0]!.target;
    if (first.markRun === undefined) return 0; // a target without tables (none today)
    await first.markRun(token);
    let waiting = [...this.nodes, ...this.replicas];
    for (;;) {
      const why = await Promise.all(waiting.map((m) => m.target.runVisible?.(keys, kinds, token) ?? Promise.resolve(null)));
      const lacking = waiting.map((m, i) => ({ m, why: why[i] })).filter((x) => x.why !== null);
      if (lacking.length === 0) return performance.now() - t0;
      if (performance.now() - t0 + BARRIER_POLL_MS > timeoutMs) {
        throw new DbError(`the tables set up on ${this.nodes[0]!.name} are not visible after ${timeoutMs / 1000} s on ` +
          lacking.map((x) => `${x.m.name} (${x.m.target.name}: ${x.why})`).join(', ') +
          ' (is it a node or replica of the same cluster? --barrier-timeout S waits longer)', 'unreachable', 'barrier');
      }
      waiting = lacking.map((x) => x.m);
      await new Promise((resolve) => setTimeout(resolve, BARRIER_POLL_MS));
    }
  }

  async connect(s: number): Promise<Connection> {
    const pool = this.pool(s);
    const place = placeSession(s, this.sessions, this.nodes.length, this.replicas.length, this.readOnlySessions);
    const before = this.current.get(s);
    const first = before ?? place.index;
    const deadline = performance.now() + this.reconnectMs;
    for (;;) {
      let last: DbError | null = null;
      for (let i = 0; i < pool.length; i++) {
        const at = (first + i) % pool.length;
        try {
          const conn = await pool[at]!.target.connect(s);
          if (before !== undefined && before !== at) this.failovers++;
          this.current.set(s, at);
          return new NodeConnection(conn, pool[at]!.name);
        } catch (err) {
          if (!(err instanceof DbError)) throw err;
          last = err;
        }
      }
      if (performance.now() + RECONNECT_PAUSE_MS > deadline) {
        if (pool.length === 1) throw last!;
        throw new DbError(`no ${pool === this.nodes ? 'node' : 'replica'} answered (${pool.map((m) => m.name).join(', ')}; last: ${last!.message})`,
          'unreachable', last!.code);
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS));
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.nodes, ...this.replicas].map((m) => m.target.close()));
  }

  async drop(): Promise<void> {
    await this.nodes[0]!.target.drop?.();
  }
}

/**
 * A Connection that says which server it is on; every call goes to the wrapped one, the
 * predicate operations (issue 22) too when it has them (without them a predicate run over
 * several nodes stopped at its first select: "this target has no select").
 */
class NodeConnection implements Connection {
  readonly readRow?: Connection['readRow'];
  readonly insert?: Connection['insert'];
  readonly update?: Connection['update'];
  readonly delete?: Connection['delete'];
  readonly select?: Connection['select'];
  readonly count?: Connection['count'];

  constructor(private readonly conn: Connection, readonly node: string) {
    if (conn.readRow !== undefined) this.readRow = (rel, key) => conn.readRow!(rel, key);
    if (conn.insert !== undefined) this.insert = (rel, key, value) => conn.insert!(rel, key, value);
    if (conn.update !== undefined) this.update = (rel, key, value) => conn.update!(rel, key, value);
    if (conn.delete !== undefined) this.delete = (rel, key) => conn.delete!(rel, key);
    if (conn.select !== undefined) this.select = (rel, p) => conn.select!(rel, p);
    if (conn.count !== undefined) this.count = (rel, p) => conn.count!(rel, p);
  }

  begin(isolation: IsolationLevel): Promise<void> { return this.conn.begin(isolation); }
  read(key: number): Promise<RegisterValue> { return this.conn.read(key); }
  write(key: number, value: number): Promise<void> { return this.conn.write(key, value); }
  append(key: number, element: number): Promise<void> { return this.conn.append(key, element); }
  readList(key: number): Promise<number[]> { return this.conn.readList(key); }
  commit(): Promise<void> { return this.conn.commit(); }
  rollback(): Promise<void> { return this.conn.rollback(); }
  close(): Promise<void> { return this.conn.close(); }
}
