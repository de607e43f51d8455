/**
 * What the history says about the transactions of a counterexample: their operations, the value
 * each external read returned and whom it read from, each transaction's final write per key.
 *
 * Takes: a Validated history. Gives: `FactIndex`, built once per explanation (one pass over the
 * resolved reads and final writes, so only a violation pays for it), and display helpers.
 */

import { describeOp, OP_APPEND, OP_READ_LIST, type History, valueLabel, txnLabel, txnNodeLabel } from '../history/model.ts';
import { INIT_TXN } from '../result/types.ts';
import type { Validated } from '../validate/validate.ts';
import type { CxTxn } from '../result/counterexample.ts';
import type { NamingFacts } from './name.ts';

/** How people see a transaction label: with a T in front when it is a bare number. */
export function txnLabelDisplay(label: string): string {
  return /^\d+$/.test(label) ? `T${label}` : label;
}

/** How people see a key label: with "key" in front when it is a bare number. */
export function keyLabelDisplay(label: string): string {
  return /^-?\d+$/.test(label) ? `key ${label}` : label;
}

export function txnDisplay(h: History, t: number): string {
  return t === INIT_TXN ? 'init' : txnLabelDisplay(txnLabel(h, t));
}

export function keyDisplay(h: History, k: number): string {
  return keyLabelDisplay(h.keyLabels[k]!);
}

/** The value an op reads or writes, as the user wrote it (a list read as `[1 2 3]`). */
export function opValueText(h: History, op: number): string {
  const v = h.opValue[op]!;
  if (h.opKind[op] !== OP_READ_LIST) return valueLabel(h, v);
  const elems: string[] = [];
  for (let i = h.listStart[v]!; i < h.listStart[v + 1]!; i++) elems.push(valueLabel(h, h.listElems[i]!));
  return `[${elems.join(' ')}]`;
}

/** `keys`: the keys of the transaction's edges in the counterexample (its `focus` operations). */
export function txnFacts(h: History, t: number, role: CxTxn['role'], keys: ReadonlySet<number> = new Set()): CxTxn {
  if (t === INIT_TXN) return { txn: t, label: 'init', session: '-', index: -1, source: '', loc: '', ops: ['writes the initial value of every key'], focus: [], role };
  const ops: string[] = [];
  const focus: number[] = [];
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if (keys.has(h.opKey[op]!)) focus.push(ops.length);
    ops.push(describeOp(h, op));
  }
  const s = h.txnSession[t]!;
  const loc = h.txnLoc[t] ?? -1;
  const node = txnNodeLabel(h, t);
  return {
    txn: t, label: txnLabel(h, t), session: h.sessionLabels[s]!, index: t - h.sessionTxnStart[s]!, source: h.source, loc: loc < 0 ? '' : `${h.locUnit} ${loc}`,
    ops, focus, role, ...(node === null ? {} : { node }),
  };
}

export class FactIndex {
  /** (txn, key) -> its external reads of the key (indices into v.reads, in program order). */
  private readonly reads = new Map<number, number[]>();
  private readonly writes = new Map<number, number>();
  private readonly nKeys: number;

  constructor(readonly v: Validated) {
    const h = v.history;
    this.nKeys = Math.max(1, h.keyLabels.length);
    for (let i = 0; i < v.reads.count; i++) {
      const at = v.reads.txn[i]! * this.nKeys + v.reads.key[i]!;
      const rs = this.reads.get(at);
      if (rs === undefined) this.reads.set(at, [i]); else rs.push(i);
    }
    for (const rs of this.reads.values()) rs.sort((a, b) => v.reads.op[a]! - v.reads.op[b]!);
    for (let i = 0; i < v.writes.count; i++) this.writes.set(v.writes.txn[i]! * this.nKeys + v.writes.key[i]!, v.writes.op[i]!);
  }

  /**
   * t's external read of key: its op and the writer it read from (INIT_TXN for the initial
   * value); null if none. A txn that re-read the key and saw another version has several
   * (docs/levels.md, "Re-reads"): `writer` picks the one that read from it, else the first.
   */
  readOf(t: number, key: number, writer?: number | null): { op: number; writer: number } | null {
    const rs = this.reads.get(t * this.nKeys + key);
    if (rs === undefined) return null;
    // A list read "reads from" every writer whose appends it shows (the weak levels' observation),
    // not only from the last one: after an exact match, the first read that shows writer's append.
    const i = (writer === undefined || writer === null ? undefined
      : rs.find((j) => this.v.reads.writer[j] === writer) ?? rs.find((j) => this.listShows(this.v.reads.op[j]!, key, writer))) ?? rs[0]!;
    return { op: this.v.reads.op[i]!, writer: this.v.reads.writer[i]! };
  }

  /** Does list read `op` of key show one of `writer`'s appends to it? */
  private listShows(op: number, key: number, writer: number): boolean {
    const h = this.v.history;
    if (writer < 0 || h.opKind[op] !== OP_READ_LIST) return false;
    const l = h.opValue[op]!;
    const elems = new Set(h.listElems.subarray(h.listStart[l]!, h.listStart[l + 1]!));
    for (let w = h.txnOpStart[writer]!; w < h.txnOpStart[writer + 1]!; w++) {
      if (h.opKind[w] === OP_APPEND && h.opKey[w] === key && elems.has(h.opValue[w]!)) return true;
    }
    return false;
  }

  /**
   * The writer whose version t read before `overwriter`'s (the source of an anti-dependency
   * t -RW(key)-> overwriter): `preferred` when one of t's reads of key read from it, else the
   * list chain's writer just before the overwriter, else the initial state, else any other writer.
   */
  rwSource(t: number, key: number, overwriter: number, preferred?: number): number | null {
    const rs = this.reads.get(t * this.nKeys + key);
    if (rs === undefined) return null;
    const writers = rs.map((i) => this.v.reads.writer[i]!);
    if (preferred !== undefined && writers.includes(preferred)) return preferred;
    const chain = this.v.lists.chains.get(key);
    if (chain !== undefined) {
      const at = chain.indexOf(overwriter);
      const pred = at === 0 ? INIT_TXN : at > 0 ? chain[at - 1]! : chain.length > 0 ? chain[chain.length - 1]! : INIT_TXN;
      if (writers.includes(pred)) return pred;
    }
    if (writers.includes(INIT_TXN)) return INIT_TXN;
    return writers.find((w) => w !== overwriter) ?? writers[0]!;
  }

  readValue(t: number, key: number, writer?: number | null): string | null {
    const r = this.readOf(t, key, writer);
    return r === null ? null : opValueText(this.v.history, r.op);
  }

  /** The value t wrote last to key (its final write or append); the initial value for INIT_TXN. */
  writtenValue(t: number, key: number): string | null {
    if (t === INIT_TXN) return valueLabel(this.v.history, 0);
    const op = this.writes.get(t * this.nKeys + key);
    return op === undefined ? null : opValueText(this.v.history, op);
  }
}

/** What naming (name.ts) asks of the history: the counterexample's sessions and its transactions' external reads. */
export function namingFacts(facts: FactIndex, oneSession: boolean): NamingFacts {
  return {
    oneSession,
    readSource: (t, k) => facts.readOf(t, k)?.writer ?? null,
    readAt: (t, k) => facts.readOf(t, k)?.op ?? null,
  };
}
