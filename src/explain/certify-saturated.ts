/**
 * The certificate of a counterexample of a level decided by saturation (read uncommitted, read
 * committed, read atomic, causal consistency): an independent check before it is reported.
 *
 * Takes: the History and the Counterexample. Gives: a Certificate. Nothing from src/levels is
 * used: each edge is re-derived from the operations of its transactions, then every choice of
 * the write orders (2^constraints, at most CERTIFY_CONSTRAINTS_MAX) must hold a cycle the level
 * forbids, read off the definitions (docs/levels.md):
 * - every level: a cycle of SO, WR and WW edges (the commit order would be circular);
 * - read committed: also t3 -RW(x)-> t2 with t2 -SO-> t3, or t2 -WR(y)-> t3 where t3 read y before
 *   it read x (t3 had observed t2 before its read of x);
 * - read atomic: also t3 -RW-> t2 with a single SO or WR edge t2 -> t3;
 * - causal consistency: also t3 -RW-> t2 with a path of SO and WR edges from t2 to t3;
 * - read uncommitted: only cycles of SO and WW edges.
 */

import { OP_APPEND, OP_READ, OP_WRITE, TXN_ABORTED, TXN_COMMITTED, INITIAL_VALUE, type History, txnLabel } from '../history/model.ts';
import { INIT_TXN } from '../result/types.ts';
import type { Certificate, Counterexample, CxEdge } from '../result/counterexample.ts';
import { CERTIFY_CONSTRAINTS_MAX, externalReads, ownAppendsBefore } from './certify.ts';

export function certifySaturated(h: History, cx: Counterexample): Certificate {
  for (const e of cx.edges) {
    const why = problem(h, cx, e);
    if (why !== null) return { status: 'failed', choices: 0, reason: `edge ${e.id} (${e.kind} ${e.from}->${e.to}): ${why}` };
  }
  const m = cx.constraints.length;
  if (m > CERTIFY_CONSTRAINTS_MAX) return { status: 'uncertified', choices: 0, reason: `${m} write orders: too many to enumerate (limit ${CERTIFY_CONSTRAINTS_MAX})` };
  for (let choice = 0; choice < 1 << m; choice++) {
    const chosen = cx.edges.filter((e) => e.constraint < 0 || (e.side === ((choice >> e.constraint) & 1 ? 'or' : 'either')));
    if (!forbidden(h, cx.level, chosen)) {
      return { status: 'failed', choices: 1 << m, reason: `choice ${choice} of the write orders leaves no cycle that ${cx.level} forbids` };
    }
  }
  return { status: 'certified', choices: 1 << m, reason: '' };
}

function forbidden(h: History, level: Counterexample['level'], es: readonly CxEdge[]): boolean {
  const commitOrder = es.filter((e) => e.kind !== 'RW' && (level !== 'ru' || e.kind !== 'WR'));
  if (cyclic(commitOrder)) return true;
  if (level === 'ru') return false;
  const obs = es.filter((e) => e.kind === 'SO' || e.kind === 'WR');
  for (const rw of es.filter((e) => e.kind === 'RW')) {
    const t3 = rw.from, t2 = rw.to;
    switch (level) {
      case 'tcc':
        if (reaches(obs, t2, t3)) return true;
        break;
      case 'ra':
        if (obs.some((e) => e.from === t2 && e.to === t3)) return true;
        break;
      case 'rc':
        if (obs.some((e) => e.from === t2 && e.to === t3 && (e.kind === 'SO' || observedBefore(h, t3, e, rw)))) return true;
        break;
      default:
        throw new Error(`certifySaturated: ${level} is not a saturation level`);
    }
  }
  return false;
}

function reaches(es: readonly CxEdge[], from: number, to: number): boolean {
  const seen = new Set([from]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    if (queue[i] === to) return true;
    for (const e of es) if (e.from === queue[i] && !seen.has(e.to)) { seen.add(e.to); queue.push(e.to); }
  }
  return false;
}

function cyclic(es: readonly CxEdge[]): boolean {
  const nodes = new Set(es.flatMap((e) => [e.from, e.to]));
  return [...nodes].some((t) => es.some((e) => e.from === t && reaches(es, e.to, t)));
}

/** The values t wrote or appended to key (the final one last). */
function written(h: History, t: number, key: number): number[] {
  const out: number[] = [];
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if (h.opKey[op] === key && (h.opKind[op] === OP_WRITE || h.opKind[op] === OP_APPEND)) out.push(h.opValue[op]!);
  }
  return out;
}

/**
 * Read committed's premise: t3 observed wr's writer (a read β of wr's key saw its write) before
 * the read α of rw's key that returned rw's source (β before α in program order; with re-reads,
 * any such pair).
 */
function observedBefore(h: History, t3: number, wr: CxEdge, rw: CxEdge): boolean {
  const betas = readsSeeing(h, t3, wr.key, wr.from);
  const alphas = rw.readFrom === null ? [] : readsSeeing(h, t3, rw.key, rw.readFrom);
  return betas.some((b) => alphas.some((a) => b < a));
}

/** Did one of t's external reads of key see `writer`'s write? */
function sawWriteOf(h: History, t: number, key: number, writer: number): boolean {
  return readsSeeing(h, t, key, writer).length > 0;
}

/** t's external reads of key that saw `writer`'s write (a register: its final value; a list: one of its elements). */
function readsSeeing(h: History, t: number, key: number, writer: number): number[] {
  return externalReads(h, t, key).filter((op) => readSaw(h, t, op, key, writer));
}

function readSaw(h: History, t: number, op: number, key: number, writer: number): boolean {
  const v = h.opValue[op]!;
  if (h.opKind[op] === OP_READ) {
    if (writer === INIT_TXN) return v === INITIAL_VALUE;
    const w = written(h, writer, key);
    return w.length > 0 && w[w.length - 1] === v;
  }
  // The reader's own appends before the read end the list; what precedes them is the version read.
  const own = ownAppendsBefore(h, t, op, key);
  const elems = h.listElems.subarray(h.listStart[v]!, Math.max(h.listStart[v]!, h.listStart[v + 1]! - own));
  if (writer === INIT_TXN) return elems.length === 0;
  return written(h, writer, key).some((x) => elems.includes(x));
}

function problem(h: History, cx: Counterexample, e: CxEdge): string | null {
  for (const t of [e.from, e.to]) {
    if (t === INIT_TXN) continue;
    if (!Number.isInteger(t) || t < 0 || t >= h.txnCount) return `transaction ${t} does not exist`;
    if (h.txnStatus[t] === TXN_ABORTED) return `transaction ${txnLabel(h, t)} aborted`;
  }
  if (e.from === e.to) return 'a self-loop';
  const c = e.constraint < 0 ? null : cx.constraints[e.constraint] ?? null;
  const sideOk = (first: number, second: number) => c !== null && (e.side === 'either' ? c.a === first && c.b === second : c.b === first && c.a === second);
  switch (e.kind) {
    case 'SO':
      return h.txnSession[e.from] === h.txnSession[e.to] && e.from < e.to && h.txnStatus[e.from] === TXN_COMMITTED ? null : 'not in session order';
    case 'WR':
      return sawWriteOf(h, e.to, e.key, e.from) ? null : 'the reader did not see this writer\'s write';
    case 'WW':
      if (written(h, e.from, e.key).length === 0 || written(h, e.to, e.key).length === 0) return 'not both writers of the key';
      if (e.status === 'certain') return isListKey(h, e.key) ? null : 'a certain write order of a register';
      return sideOk(e.from, e.to) ? null : 'its direction does not match its side';
    case 'RW': {
      if (e.readFrom === null || !sawWriteOf(h, e.from, e.key, e.readFrom)) return 'the reader did not read the version it is said to have read';
      if (written(h, e.to, e.key).length === 0) return 'the overwriter does not write the key';
      if (e.status === 'certain') return e.readFrom === INIT_TXN ? null : 'a certain anti-dependency not from the initial value';
      return sideOk(e.readFrom, e.to) ? null : 'it does not follow from its side';
    }
    default:
      return 'unknown kind';
  }
}

function isListKey(h: History, key: number): boolean {
  for (let op = 0; op < h.opCount; op++) if (h.opKey[op] === key && h.opKind[op] === OP_APPEND) return true;
  return false;
}
