/**
 * A simulated serializable store, recorded as test/db/harness.ts records a database: the shape
 * of the PostgreSQL SERIALIZABLE histories of test/db/isolation.test.ts without a server.
 *
 * Takes: a PRNG and a shape (sessions, txns per session, op attempts per txn, keys, read
 * fraction). Gives: a History built as harness.ts builds one (sessions in order, each txn in
 * its order, aborted txns kept with the ops they ran), and how many txns aborted.
 *
 * The store: multi-version, snapshot at a txn's first event (its begin), first-updater-wins (a
 * write to a key that a txn committed after the snapshot aborts the writer at once, its write
 * recorded as the harness records it), and at commit a serialization check: the txn commits
 * only if the dependency graph of the committed txns (SO, WW in commit order, WR, RW from each
 * reader of a version to the writer of the next) stays acyclic with it. Every history is
 * SER-valid by construction, with as much concurrency as a serializable store allows (more
 * than PostgreSQL's SSI, whose dangerous-structure rule also aborts some serializable txns).
 * With `check: false` the store is plain SI (first-updater-wins only): many of its histories
 * violate SER, which shows the shape reaches the checker's violation paths too.
 * A plan never reads a key it already touched (harness.ts's rule).
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, type History } from '../../src/history/model.ts';
import type { Rng } from './prng.ts';

export interface SerializableShape {
  sessions: number;
  txnsPerSession: number;
  opsPerTxn: number;
  keys: number;
  readFraction: number;
  /** The commit-time serialization check (default true; false: plain SI). */
  check?: boolean;
}

interface Op { read: boolean; key: number; value: number | null }
interface Txn { session: number; ops: Op[]; committed: boolean }
interface Version { ts: number; value: number; by: number }

export function serializableStoreHistory(rng: Rng, shape: SerializableShape): { history: History; aborted: number } {
  const check = shape.check ?? true;
  const versions: Version[][] = Array.from({ length: shape.keys }, () => [{ ts: 0, value: 0, by: -1 }]);
  const txns: Txn[] = [];
  const perSession: number[][] = Array.from({ length: shape.sessions }, () => []);
  // The committed txns' dependency graph (adjacency by txn index), who read each key's latest version, each session's last commit.
  const succ = new Map<number, number[]>();
  const readersOfLatest: number[][] = Array.from({ length: shape.keys }, () => []);
  const lastCommitted: number[] = new Array<number>(shape.sessions).fill(-1);
  let clock = 0, nextValue = 1;
  interface Running { id: number; start: number; plan: { read: boolean; key: number }[]; pos: number; writes: Map<number, number>; reads: Map<number, number> }
  const running: (Running | null)[] = new Array<Running | null>(shape.sessions).fill(null);
  const left: number[] = new Array<number>(shape.sessions).fill(shape.txnsPerSession);
  const versionAt = (key: number, ts: number): number => {
    const vs = versions[key]!;
    let i = 0;
    while (i + 1 < vs.length && vs[i + 1]!.ts <= ts) i++;
    return i;
  };
  for (;;) {
    const busy: number[] = [];
    for (let s = 0; s < shape.sessions; s++) if (running[s] !== null || left[s]! > 0) busy.push(s);
    if (busy.length === 0) break;
    const s = busy[Math.floor(rng() * busy.length)]!;
    const a = running[s];
    if (a === null || a === undefined) {
      left[s]!--;
      const plan: { read: boolean; key: number }[] = [];
      const touched = new Set<number>();
      for (let i = 0; i < shape.opsPerTxn; i++) {
        const read = rng() < shape.readFraction, key = Math.floor(rng() * shape.keys);
        if (read && touched.has(key)) continue;
        touched.add(key);
        plan.push({ read, key });
      }
      const id = txns.length;
      txns.push({ session: s, ops: [], committed: false });
      perSession[s]!.push(id);
      running[s] = { id, start: clock, plan, pos: 0, writes: new Map(), reads: new Map() };
      continue;
    }
    const t = txns[a.id]!;
    if (a.pos < a.plan.length) {
      const step = a.plan[a.pos++]!;
      if (step.read) {
        const i = versionAt(step.key, a.start);
        a.reads.set(step.key, i);
        const v = versions[step.key]![i]!.value;
        t.ops.push({ read: true, key: step.key, value: v === 0 ? null : v });
      } else {
        const value = nextValue++;
        t.ops.push({ read: false, key: step.key, value });
        a.writes.set(step.key, value);
        const vs = versions[step.key]!;
        if (vs[vs.length - 1]!.ts > a.start) running[s] = null; // first-updater-wins: aborted at once
      }
      continue;
    }
    running[s] = null;
    // First-committer-wins as well (a concurrent txn may have committed a key since it was written here).
    let lost = false;
    for (const key of a.writes.keys()) { const vs = versions[key]!; if (vs[vs.length - 1]!.ts > a.start) lost = true; }
    if (lost) continue;
    if (check) {
      // Edges into the txn (from committed ones) and out of it (to committed ones): a cycle
      // forms iff some out-neighbour reaches some in-neighbour.
      const into = new Set<number>(), outOf = new Set<number>();
      if (lastCommitted[s]! >= 0) into.add(lastCommitted[s]!);
      for (const [key, i] of a.reads) {
        const vs = versions[key]!;
        if (vs[i]!.by >= 0) into.add(vs[i]!.by);
        for (let j = i + 1; j < vs.length; j++) outOf.add(vs[j]!.by);
      }
      for (const key of a.writes.keys()) {
        const vs = versions[key]!;
        if (vs[vs.length - 1]!.by >= 0) into.add(vs[vs.length - 1]!.by);
        for (const r of readersOfLatest[key]!) into.add(r);
      }
      const seen = new Set<number>(), stack = [...outOf];
      let cyclic = false;
      while (stack.length > 0) {
        const u = stack.pop()!;
        if (into.has(u)) { cyclic = true; break; }
        if (seen.has(u)) continue;
        seen.add(u);
        for (const w of succ.get(u) ?? []) stack.push(w);
      }
      if (cyclic) continue;
      for (const u of into) { const l = succ.get(u); if (l === undefined) succ.set(u, [a.id]); else l.push(a.id); }
      succ.set(a.id, [...outOf]);
      for (const key of a.reads.keys()) readersOfLatest[key]!.push(a.id);
    }
    t.committed = true;
    lastCommitted[s] = a.id;
    clock++;
    for (const [key, value] of a.writes) { versions[key]!.push({ ts: clock, value, by: a.id }); readersOfLatest[key] = []; }
  }
  // Built as harness.ts's buildHistory: sessions in order, each in its own order.
  const b = new HistoryBuilder('<serializable store>', 'record');
  for (let s = 0; s < shape.sessions; s++) b.session(s);
  let aborted = 0, n = 0;
  for (let s = 0; s < shape.sessions; s++) {
    for (const id of perSession[s]!) {
      const t = txns[id]!;
      if (!t.committed) aborted++;
      const x = b.beginTxn(b.session(s), `t${n++}`, t.committed ? TXN_COMMITTED : TXN_ABORTED);
      for (const op of t.ops) if (op.read) b.read(x, op.key, op.value); else b.write(x, op.key, op.value!);
    }
  }
  return { history: b.build(), aborted };
}
