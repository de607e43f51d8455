/**
 * Independent checks of what the checker reports, above all its cycle counterexamples.
 *
 * Takes: the History, the isolation level, and a `CheckResult` (or one `CycleAnomaly`).
 * Gives: a list of problems (empty when the report holds up). It re-derives every edge from the raw operations,
 * sharing no code with the pipeline, so a checker that reports a right verdict for a wrong
 * reason (an invented edge, a cycle that does not close, two adjacent RW edges under SI) fails.
 *
 * Edge justifications (INIT_TXN = -1 is the implicit initial txn, which writes value 0 of
 * every key and never reads):
 * - SO: `from` and `to` are in one session, `from` comes first and committed (a txn of unknown
 *   outcome orders nothing after it).
 * - WR(key): `to` reads `key` (before writing it) and gets the value `from` wrote last to
 *   `key` (0 for INIT_TXN).
 * - WW(key): both write `key`; `to` is not the initial txn.
 * - RW(key): `from` reads `key` before writing it, `to` writes `key`, and they differ.
 * List-append keys: appends count as writes (the last element appended is the "value"), and a
 * list read is a read whose value is the last element of the list minus the txn's own earlier
 * appends (the empty list reads the initial state).
 * Whether WW/RW directions hold in some version order is the solver's business; what can be
 * checked without re-solving is that each edge is possible at all, and that no aborted txn
 * takes part.
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
import { INIT_TXN, type CheckResult, type CycleAnomaly, type DepEdge, type Level } from '../../src/result/types.ts';

function lastWrite(h: History, t: number, key: number): number | undefined {
  if (t === INIT_TXN) return INITIAL_VALUE;
  let v: number | undefined;
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if ((h.opKind[op] === OP_WRITE || h.opKind[op] === OP_APPEND) && h.opKey[op] === key) v = h.opValue[op]!;
  }
  return v;
}

/** The value a list read at `op` of txn `t` observed from others: last element before own appends. */
function listReadValue(h: History, t: number, op: number): number | undefined {
  const key = h.opKey[op]!;
  const own: number[] = [];
  for (let o = h.txnOpStart[t]!; o < op; o++) if (h.opKind[o] === OP_APPEND && h.opKey[o] === key) own.push(h.opValue[o]!);
  const l = h.opValue[op]!;
  const start = h.listStart[l]!, end = h.listStart[l + 1]! - own.length;
  if (end < start) return undefined;
  for (let i = 0; i < own.length; i++) if (h.listElems[end + i] !== own[i]) return undefined;
  return end === start ? INITIAL_VALUE : h.listElems[end - 1]!;
}

/**
 * True if `t` reads `key` before writing it (an external read; reads after its own write are
 * internal and create no dependency), with the given value unless `value` is undefined.
 */
function readsExternally(h: History, t: number, key: number, value: number | undefined): boolean {
  if (t === INIT_TXN) return false;
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if (h.opKey[op] !== key) continue;
    if (h.opKind[op] === OP_READ_LIST) {
      const v = listReadValue(h, t, op);
      if (v !== undefined && (value === undefined || v === value)) return true;
      continue;
    }
    if (h.opKind[op] === OP_WRITE) return false;
    if (h.opKind[op] === OP_READ && (value === undefined || h.opValue[op] === value)) return true;
  }
  return false;
}

function writes(h: History, t: number, key: number): boolean {
  return lastWrite(h, t, key) !== undefined;
}

function edgeProblem(h: History, e: DepEdge): string | null {
  const inRange = (t: number): boolean => t === INIT_TXN || (Number.isInteger(t) && t >= 0 && t < h.txnCount);
  if (!inRange(e.from) || !inRange(e.to)) return 'txn out of range';
  if (e.from === e.to) return 'self-loop';
  for (const t of [e.from, e.to]) if (t !== INIT_TXN && h.txnStatus[t] === TXN_ABORTED) return `aborted txn ${t} on the cycle`;
  if (e.to === INIT_TXN) return 'edge into the initial txn';
  if (e.kind !== 'SO' && (e.key < 0 || e.key >= h.keyLabels.length)) return 'key out of range';
  switch (e.kind) {
    case 'SO':
      if (e.from === INIT_TXN) return 'SO from the initial txn';
      // Only a txn the client saw commit orders the later txns of its session (checking.md).
      if (h.txnStatus[e.from] !== TXN_COMMITTED) return 'SO out of a txn whose commit the client never saw';
      return h.txnSession[e.from] === h.txnSession[e.to] && e.from < e.to ? null : 'not in session order';
    case 'WR': {
      const v = lastWrite(h, e.from, e.key);
      if (v === undefined) return '`from` does not write the key';
      return readsExternally(h, e.to, e.key, v) ? null : '`to` does not read the value `from` wrote last';
    }
    case 'WW':
      return writes(h, e.from, e.key) && writes(h, e.to, e.key) ? null : 'not both writers of the key';
    case 'RW':
      return readsExternally(h, e.from, e.key, undefined) && writes(h, e.to, e.key) ? null : '`from` does not read or `to` does not write the key';
    default:
      return `unknown edge kind ${String((e as DepEdge).kind)}`;
  }
}

export function verifyCycle(h: History, level: Level, cycle: CycleAnomaly): string[] {
  const problems: string[] = [];
  const edges = cycle.edges;
  if (edges.length === 0) return ['empty cycle'];
  edges.forEach((e, i) => {
    const p = edgeProblem(h, e);
    if (p !== null) problems.push(`edge ${i} ${e.kind} ${e.from}->${e.to} key ${e.key} (${h.keyLabels[e.key] ?? '-'}): ${p}`);
    const next = edges[(i + 1) % edges.length]!;
    if (e.to !== next.from) problems.push(`edge ${i} ends at ${e.to} but edge ${(i + 1) % edges.length} starts at ${next.from}`);
    if (level === 'si' && e.kind === 'RW' && next.kind === 'RW') {
      problems.push(`edges ${i} and ${(i + 1) % edges.length} are adjacent RW edges (allowed by SI)`);
    }
  });
  return problems;
}

/**
 * Everything checkable about a `CheckResult` without re-solving: the level echoes the request,
 * a violation carries at least one anomaly and a valid verdict none, every cycle is a genuine
 * witness (see `verifyCycle`), and every non-cycle anomaly points at an operation of the txn it
 * names, on the key it names.
 */
export function verifyResult(h: History, level: Level, r: CheckResult): string[] {
  const problems: string[] = [];
  if (r.level !== level) problems.push(`result level ${r.level}, asked for ${level}`);
  if (r.verdict === 'violation' && r.anomalies.length === 0) problems.push('violation without anomalies');
  if (r.verdict === 'valid' && r.anomalies.length !== 0) problems.push('valid verdict with anomalies');
  r.anomalies.forEach((a, i) => {
    if (a.type === 'cycle') {
      for (const p of verifyCycle(h, level, a)) problems.push(`anomaly ${i} (cycle): ${p}`);
      return;
    }
    const inTxn = a.txn >= 0 && a.txn < h.txnCount && a.op >= h.txnOpStart[a.txn]! && a.op < h.txnOpStart[a.txn + 1]!;
    if (!inTxn) problems.push(`anomaly ${i} (${a.name}): op ${a.op} is not an operation of txn ${a.txn}`);
    else if (h.opKey[a.op] !== a.key) problems.push(`anomaly ${i} (${a.name}): key ${a.key} but op ${a.op} is on key ${h.opKey[a.op]}`);
  });
  return problems;
}

/** A cycle rendered for failure messages: `T3 -WW(x)-> T5 -RW(x)-> T3`. */
export function renderCycle(h: History, cycle: CycleAnomaly): string {
  const name = (t: number): string => (t === INIT_TXN ? 'INIT' : `txn ${t}`);
  const parts = cycle.edges.map((e) => `${name(e.from)} -${e.kind}${e.kind === 'SO' ? '' : `(key ${e.key} ${h.keyLabels[e.key] ?? '?'})`}->`);
  const last = cycle.edges[cycle.edges.length - 1];
  return `${parts.join(' ')} ${last === undefined ? '' : name(last.to)}`;
}
