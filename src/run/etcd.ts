/**
 * etcd as a Target (issue 24), through the npm `etcd3` client (gRPC; loaded on first use) and
 * etcd's transaction API.
 *
 * Takes: `etcd://HOST:PORT[,HOST:PORT...]` (the members' client addresses; no TLS, no auth).
 * Gives: a Target whose sessions each talk to one member (session s to member s mod n), over a
 * client of their own.
 *
 * How a transaction is run, so that the history is what etcd did (an optimistic transaction,
 * what etcd's own STM does at its serializable level, without its retry loop):
 * - the first read of a key not yet written by the transaction is a linearizable Range; its
 *   header revision R is the transaction's snapshot, and every later read is a Range at R;
 *   reads of keys the transaction wrote return its own writes; `append` reads the list the same
 *   way and buffers the longer list;
 * - `commit` sends one Txn: if every key read still has the mod revision it had at R, put every
 *   buffered write; if not, nothing (the transaction aborts: DbError `aborted`, code
 *   `compare-failed`). A read-only transaction sends nothing: it read one snapshot, R.
 * So a committed transaction's reads are the values at its commit revision (or at R for a
 * read-only one), and both revisions fall between its start and its end: etcd's documented
 * guarantee, strict serializability, is what the checker should find (`--check strict-ser`).
 *
 * Invariants: nothing is retried, by us or by the client (its default policy retries a call
 * three times, which could apply a Txn twice: it is replaced by one that runs each call once);
 * a failed Range aborts (nothing was written); a Txn that fails without an answer is `unknown`;
 * every call has the transaction's deadline; `connect` waits for an unavailable member up to
 * the connect deadline (default 10 s), so a session whose member restarts goes on there. Keys live under `<prefix>/`, cleared by `setup`.
 */

import { DbError, type Connection, type IsolationLevel, type RegisterValue, type Target } from './types.ts';
import { importOptional } from '../util/optional.ts';
import { CONNECT_TIMEOUT_MS_DEFAULT, TXN_TIMEOUT_MS_DEFAULT, type SqlTargetOptions } from './sql-connection.ts';

type Etcd3Module = typeof import('etcd3');
type Etcd3Client = InstanceType<Etcd3Module['Etcd3']>;
type KV = Etcd3Client['kv'];
let etcdModule: Promise<Etcd3Module> | null = null;

function loadEtcd3(): Promise<Etcd3Module> {
  etcdModule ??= importOptional('etcd3', () => import('etcd3')).then((m) => ((m as unknown as { default?: Etcd3Module }).default ?? m));
  return etcdModule;
}

/** A fault-handling policy that runs each call once (etcd3's default retries: see the header). */
const ONCE = {
  execute: <T>(fn: (ctx: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> =>
    Promise.resolve().then(() => fn({ signal: new AbortController().signal })),
};

/** The members of an `etcd://` URL, as the client's `http://HOST:PORT` hosts. */
export function parseEtcdUrl(spec: string): string[] {
  const m = /^etcd:\/\/([^/?#]*)\/?$/i.exec(spec);
  const expected = 'expected etcd://HOST:PORT[,HOST:PORT...] (the members\' client addresses)';
  if (m === null) throw new Error(`${expected}, got "${spec}"`);
  const hosts = m[1]!.split(',');
  for (const h of hosts) {
    if (!/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/.test(h)) throw new Error(`${expected}: "${h}" is not HOST:PORT`);
  }
  return hosts.map((h) => `http://${h}`);
}

/**
 * A failure's name for the run summary: the gRPC status (UNAVAILABLE, DEADLINE_EXCEEDED...),
 * which etcd3 puts at the head of its errors' messages ("14 UNAVAILABLE: ..."), else the
 * error's class (etcd3's GRPC...Error, EtcdError...).
 */
function grpcCode(err: unknown): string {
  const status = /^\d+ ([A-Z_]+):/.exec(err instanceof Error ? err.message : '');
  if (status !== null) return status[1]!;
  const cls = (err as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof cls === 'string' && cls !== 'Error' && cls !== 'Object' ? cls : 'error';
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class EtcdTarget implements Target {
  readonly name: string;
  private readonly hosts: string[];
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;

  constructor(spec: string, opts: SqlTargetOptions = {}) {
    this.hosts = parseEtcdUrl(spec);
    this.name = spec;
    const prefix = opts.tablePrefix ?? 'polysi';
    if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) throw new Error(`key prefix '${prefix}': use lower-case letters, digits and _`);
    this.prefix = prefix;
    this.timeoutMs = opts.txnTimeoutMs === 0 ? 0 : opts.txnTimeoutMs ?? TXN_TIMEOUT_MS_DEFAULT;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS_DEFAULT;
  }

  /** The member session `session` talks to (its client URL). */
  memberOf(session: number): string {
    return this.hosts[session % this.hosts.length]!;
  }

  private async client(host: string): Promise<Etcd3Client> {
    const { Etcd3 } = await loadEtcd3();
    return new Etcd3({
      hosts: host,
      dialTimeout: 10_000,
      faultHandling: { host: () => ONCE as never, global: ONCE as never },
    });
  }

  private deadline(): { deadline?: number } {
    return this.timeoutMs > 0 ? { deadline: Date.now() + this.timeoutMs } : {};
  }

  async setup(): Promise<void> {
    const c = await this.client(this.hosts[0]!);
    try {
      // Cleared: values left by an earlier run would be reads of nobody's write.
      const key = Buffer.from(`${this.prefix}/`);
      await c.kv.deleteRange({ key, range_end: prefixEnd(key) }, this.deadline());
    } catch (err) {
      throw new DbError(`${this.name}: setup failed: ${message(err)}`, 'unreachable', grpcCode(err));
    } finally {
      c.close();
    }
  }

  async drop(): Promise<void> {
    await this.setup();
  }

  async connect(session: number): Promise<Connection> {
    const host = this.memberOf(session);
    const c = await this.client(host);
    // A first call, so an unreachable member is said at connect, not at the first read. It is
    // tried until the connect deadline: a session that lost its member (killed, restarting)
    // reconnects to the same member once it is back.
    const until = Date.now() + this.connectTimeoutMs;
    for (;;) {
      try {
        await c.kv.range({ key: Buffer.from(`${this.prefix}/`), count_only: true }, { deadline: until });
        break;
      } catch (err) {
        if (Date.now() + 200 >= until || grpcCode(err) !== 'UNAVAILABLE') {
          c.close();
          throw new DbError(`${this.name}: cannot connect to ${host}: ${message(err)}`, 'unreachable', grpcCode(err));
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    return new EtcdConnection(c.kv, () => c.close(), this.prefix, () => this.deadline());
  }

  async close(): Promise<void> {
    // Each connection owns its client.
  }
}

/** The smallest key after every key that starts with `key` (etcd's prefix range end). */
function prefixEnd(key: Buffer): Buffer {
  const end = Buffer.from(key);
  end[end.length - 1]!++;
  return end;
}

/** One session's optimistic transactions (see the header). */
class EtcdConnection implements Connection {
  /** The snapshot revision (the first read's), or null before the first read. */
  private snapshot: string | null = null;
  /** Keys read from the store, with the mod revision they had at the snapshot ('0': absent). */
  private readonly readRevs = new Map<string, string>();
  /** Buffered writes, by key, as they will be put. */
  private readonly writes = new Map<string, string>();
  private failed: DbError | null = null;

  constructor(
    private readonly kv: KV,
    private readonly closeClient: () => void,
    private readonly prefix: string,
    private readonly deadline: () => { deadline?: number },
  ) {}

  async begin(_isolation: IsolationLevel): Promise<void> {
    this.snapshot = null;
    this.readRevs.clear();
    this.writes.clear();
    this.failed = null;
  }

  /** The value of `key` as this transaction sees it: its own write, else the snapshot's. */
  private async get(key: string): Promise<string | null> {
    const own = this.writes.get(key);
    if (own !== undefined) return own;
    if (this.failed !== null) throw this.failed;
    let res;
    try {
      res = await this.kv.range({ key: Buffer.from(key), ...(this.snapshot === null ? {} : { revision: this.snapshot }) }, this.deadline());
    } catch (err) {
      // Nothing was written: the transaction is over, certainly not committed.
      this.failed = new DbError(`etcd: read of ${key} failed: ${message(err)}`, 'aborted', grpcCode(err));
      throw this.failed;
    }
    this.snapshot ??= res.header.revision;
    const kv = res.kvs[0];
    if (!this.readRevs.has(key)) this.readRevs.set(key, kv === undefined ? '0' : kv.mod_revision);
    return kv === undefined ? null : kv.value.toString();
  }

  async read(key: number): Promise<RegisterValue> {
    const v = await this.get(`${this.prefix}/r/${key}`);
    return v === null ? null : Number(v);
  }

  async write(key: number, value: number): Promise<void> {
    if (this.failed !== null) throw this.failed;
    this.writes.set(`${this.prefix}/r/${key}`, String(value));
  }

  async append(key: number, element: number): Promise<void> {
    const k = `${this.prefix}/l/${key}`;
    const list = (await this.get(k)) ?? '';
    this.writes.set(k, `${list}${element},`);
  }

  async readList(key: number): Promise<number[]> {
    const v = await this.get(`${this.prefix}/l/${key}`);
    return v === null || v === '' ? [] : v.slice(0, -1).split(',').map(Number);
  }

  async commit(): Promise<void> {
    if (this.failed !== null) throw this.failed;
    if (this.writes.size === 0) return; // read-only: it read one snapshot
    const compare = [...this.readRevs].map(([key, rev]) => ({ key: Buffer.from(key), target: 'Mod' as const, result: 'Equal' as const, mod_revision: rev }));
    const success = [...this.writes].map(([key, value]) => ({ request_put: { key: Buffer.from(key), value: Buffer.from(value) } }));
    let res;
    try {
      res = await this.kv.txn({ compare, success, failure: [] }, this.deadline());
    } catch (err) {
      // The Txn may have been applied before the answer was lost.
      throw new DbError(`etcd: commit's Txn got no answer: ${message(err)}`, 'unknown', grpcCode(err));
    } finally {
      this.writes.clear();
    }
    if (!res.succeeded) throw new DbError('etcd: a key read was changed before the commit (Txn compare failed)', 'aborted', 'compare-failed');
  }

  async rollback(): Promise<void> {
    this.writes.clear();
    this.readRevs.clear();
    this.snapshot = null;
  }

  async close(): Promise<void> {
    this.closeClient();
  }
}

export function openEtcd(spec: string, opts: SqlTargetOptions = {}): Target {
  return new EtcdTarget(spec, opts);
}
