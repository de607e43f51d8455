/**
 * A brute-force oracle for histories with list-append keys (and register keys beside them):
 * the reference the pipeline's list handling is tested against.
 *
 * Takes: a `History` of at most `LIST_ORACLE_TXNS_MAX` txns whose keys are each either a
 * register (writes, single-value reads) or a list (appends, list reads). Gives: 'valid' or
 * 'violation' for strong session SI or serializability.
 *
 * It is operational and shares no code with the pipeline under `src/` (only the History model
 * types and constants), nor with the register oracle in brute-force.ts: the state of every key
 * is a sequence of values (a register holds at most one, the last written; a list holds its
 * elements in order; both start empty, which reads as the initial value or the empty list).
 * A transaction is *run* against a state, op by op in program order, with its own effects
 * visible to its later ops: a read must return exactly the current local state, a write
 * replaces the register, an append adds to the end of the list. Nothing is inferred from values:
 * there is no writer lookup, no version-order chain, no notion of "intermediate" or "garbage"
 * read; a read that no reachable state explains is simply never matched. So every list anomaly
 * (an order no run of appends produces, duplicates, partial runs, INT) is a violation here by
 * construction, and the pipeline must name it.
 * - SER: some serial order of the included txns runs every txn; session order: each txn runs
 *   after every committed txn earlier in its session.
 * - SI: some sequence of start(T) / commit(T) events: T runs against the committed state at its
 *   start (its snapshot), every committed txn before it in its session has committed by then
 *   (strong session SI; a txn of unknown outcome orders nothing after it), and no active txn writes or appends to a key T writes or appends to
 *   (first-committer-wins); commit(T) installs T's final state of every key it changed.
 * Outcomes: committed txns take part, aborted ones never do, and the history is valid iff some
 * choice of in/out for the unknown-outcome txns is.
 *
 * Preconditions (checked, they throw): at most LIST_ORACLE_TXNS_MAX txns; no key used both as
 * a register and as a list; every written or appended value is unique per key and never the
 * initial value (the pipeline rejects those histories as unsupported input, so there is no
 * verdict to compare).
 */

import {
  INITIAL_VALUE,
  OP_APPEND,
  OP_READ,
  OP_READ_LIST,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  type History,
} from '../../src/history/model.ts';

export type ListOracleLevel = 'si' | 'ser';
export type ListOracleVerdict = 'valid' | 'violation';

export const LIST_ORACLE_TXNS_MAX = 8;

/** One operation of a txn's program. */
type Step =
  | { kind: 'read'; key: number; value: number }
  | { kind: 'write'; key: number; value: number }
  | { kind: 'append'; key: number; value: number }
  | { kind: 'read-list'; key: number; list: readonly number[] };

interface Program {
  readonly session: number;
  readonly status: number;
  readonly steps: readonly Step[];
  /** Keys the txn writes or appends to (its write set, for first-committer-wins). */
  readonly writeSet: ReadonlySet<number>;
}

/** The state of every key: a sequence of values (see the module comment). */
type State = readonly (readonly number[])[];

function programs(h: History): Program[] {
  if (h.txnCount > LIST_ORACLE_TXNS_MAX) {
    throw new Error(`list oracle: ${h.txnCount} transactions (limit ${LIST_ORACLE_TXNS_MAX})`);
  }
  const kindOf = new Map<number, 'register' | 'list'>();
  const written = new Set<string>();
  const out: Program[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const steps: Step[] = [];
    const writeSet = new Set<number>();
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const key = h.opKey[op]!, v = h.opValue[op]!, kind = h.opKind[op]!;
      const want = kind === OP_APPEND || kind === OP_READ_LIST ? 'list' : 'register';
      const have = kindOf.get(key);
      if (have !== undefined && have !== want) throw new Error(`list oracle: key ${key} is both a register and a list`);
      kindOf.set(key, want);
      if (kind === OP_WRITE || kind === OP_APPEND) {
        if (v === INITIAL_VALUE) throw new Error(`list oracle: txn ${t} writes the initial value`);
        if (written.has(`${key}/${v}`)) throw new Error(`list oracle: value ${v} of key ${key} written twice`);
        written.add(`${key}/${v}`);
        writeSet.add(key);
      }
      if (kind === OP_READ) steps.push({ kind: 'read', key, value: v });
      else if (kind === OP_WRITE) steps.push({ kind: 'write', key, value: v });
      else if (kind === OP_APPEND) steps.push({ kind: 'append', key, value: v });
      else steps.push({ kind: 'read-list', key, list: Array.from(h.listElems.subarray(h.listStart[v]!, h.listStart[v + 1]!)) });
    }
    out.push({ session: h.txnSession[t]!, status: h.txnStatus[t]!, steps, writeSet });
  }
  return out;
}

/**
 * Runs a txn against `state`: null if some read does not return the local state, else the
 * txn's final local state of every key it changed.
 */
function run(p: Program, state: State): Map<number, readonly number[]> | null {
  const local = new Map<number, readonly number[]>();
  const current = (key: number): readonly number[] => local.get(key) ?? state[key]!;
  for (const s of p.steps) {
    const cur = current(s.key);
    switch (s.kind) {
      case 'read': {
        const seen = cur.length === 0 ? INITIAL_VALUE : cur[cur.length - 1]!;
        if (seen !== s.value) return null;
        break;
      }
      case 'read-list':
        if (cur.length !== s.list.length || cur.some((v, i) => v !== s.list[i])) return null;
        break;
      case 'write':
        local.set(s.key, [s.value]);
        break;
      case 'append':
        local.set(s.key, [...cur, s.value]);
        break;
    }
  }
  return local;
}

function install(state: State, effects: ReadonlyMap<number, readonly number[]>): State {
  const next = state.slice();
  for (const [k, list] of effects) next[k] = list;
  return next;
}

function stateKey(state: State): string {
  return state.map((l) => l.join(' ')).join('|');
}

/** Each session's included txns, in session order. */
function sessionsOf(h: History, included: readonly boolean[]): number[][] {
  const out: number[][] = [];
  for (let s = 0; s < h.sessionCount; s++) {
    const list: number[] = [];
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) if (included[t]) list.push(t);
    out.push(list);
  }
  return out;
}

/**
 * What the client knows of session order: T may begin only after every *committed* txn earlier
 * in its session has committed. A txn of unknown outcome may commit at any later time, so it
 * orders nothing after it (docs/checking.md, "Session order").
 */
function mustFollowOf(h: History, sessions: readonly number[][]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const list of sessions) {
    const before: number[] = [];
    for (const t of list) {
      out.set(t, before.slice());
      if (h.txnStatus[t] === TXN_COMMITTED) before.push(t);
    }
  }
  return out;
}

/** SER: depth-first over serial orders; (done set, state) pairs that failed are remembered. */
function serialRunExists(h: History, progs: readonly Program[], included: readonly boolean[]): boolean {
  const sessions = sessionsOf(h, included);
  const members = sessions.flat();
  const mustFollow = mustFollowOf(h, sessions);
  const done = new Set<number>();
  const failed = new Set<string>();
  const dfs = (state: State): boolean => {
    if (done.size === members.length) return true;
    const memo = `${members.map((t) => (done.has(t) ? '1' : '0')).join('')}#${stateKey(state)}`;
    if (failed.has(memo)) return false;
    for (const t of members) {
      if (done.has(t) || !mustFollow.get(t)!.every((a) => done.has(a))) continue;
      const effects = run(progs[t]!, state);
      if (effects === null) continue;
      done.add(t);
      const ok = dfs(install(state, effects));
      done.delete(t);
      if (ok) return true;
    }
    failed.add(memo);
    return false;
  };
  return dfs(Array.from({ length: h.keyLabels.length }, () => []));
}

/**
 * SI: depth-first over start/commit events. A txn runs entirely at its start (its reads see
 * the snapshot and its own effects, nothing else), and its effects are installed at its commit;
 * first-committer-wins is checked at start, when two intervals begin to overlap.
 */
function siRunExists(h: History, progs: readonly Program[], included: readonly boolean[]): boolean {
  const sessions = sessionsOf(h, included);
  const members = sessions.flat();
  const mustFollow = mustFollowOf(h, sessions);
  // Active txn -> its effects. Remembering failed states by (phases, committed state) alone is
  // sound although effects were computed at start: first-committer-wins keeps every key an
  // active txn changes untouched until it commits, so its effects are a function of the
  // current committed state.
  const pending = new Map<number, Map<number, readonly number[]>>();
  const committed = new Set<number>();
  const failed = new Set<string>();
  const overlaps = (a: number, b: number): boolean => [...progs[a]!.writeSet].some((k) => progs[b]!.writeSet.has(k));
  const dfs = (state: State): boolean => {
    if (committed.size === members.length) return true;
    const memo = `${members.map((t) => (committed.has(t) ? 'c' : pending.has(t) ? 'a' : '-')).join('')}#${stateKey(state)}`;
    if (failed.has(memo)) return false;
    for (const t of members) {
      if (committed.has(t)) continue;
      const effects = pending.get(t);
      if (effects !== undefined) {
        pending.delete(t);
        committed.add(t);
        const ok = dfs(install(state, effects));
        committed.delete(t);
        pending.set(t, effects);
        if (ok) return true;
        continue;
      }
      if (!mustFollow.get(t)!.every((a) => committed.has(a))) continue;
      if ([...pending.keys()].some((u) => overlaps(t, u))) continue;
      const mine = run(progs[t]!, state);
      if (mine === null) continue;
      pending.set(t, mine);
      const ok = dfs(state);
      pending.delete(t);
      if (ok) return true;
    }
    failed.add(memo);
    return false;
  };
  return dfs(Array.from({ length: h.keyLabels.length }, () => []));
}

/**
 * The list oracle: valid iff some choice of outcome for the unknown txns has a serial run
 * (SER) or a start/commit schedule with snapshots and first-committer-wins (SI).
 */
export function bruteForceListCheck(h: History, level: ListOracleLevel): ListOracleVerdict {
  const progs = programs(h);
  const unknown: number[] = [];
  progs.forEach((p, t) => {
    if (p.status !== TXN_COMMITTED && p.status !== TXN_ABORTED) unknown.push(t);
  });
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const included = progs.map((p) => p.status === TXN_COMMITTED);
    unknown.forEach((t, i) => { included[t] = (mask & (1 << i)) !== 0; });
    if (level === 'ser' ? serialRunExists(h, progs, included) : siRunExists(h, progs, included)) return 'valid';
  }
  return 'violation';
}
