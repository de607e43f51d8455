/**
 * Naming the phantom: counterexamples of a predicate history (docs/levels.md, "Predicates";
 * docs/explain.md, "Names").
 *
 * Takes: a counterexample explained on the lowered history (validate/predicate-lower.ts), the
 * input history, and which reads of the lowered history are predicate observations. Gives: the
 * same counterexample about the input: its transactions' operations as the input has them
 * (selects, inserts, deletes), each anti-dependency that comes from a predicate read said so in
 * the summary ("t1's predicate read `value % 3 = 0` saw row 4 absent, and t2's insert of 42
 * made it match"), and its class and description by Adya's and Hermitage's names:
 * - anti-dependencies that are all predicate ones, two or more of them: **G2** (Adya's G2
 *   without G2-item), described **predicate write skew** when two are adjacent, else **phantom**;
 * - exactly one, a predicate one, closed by the writer's own write-read back to the reader:
 *   **PMP** (Hermitage's predicate-many-preceders), described **phantom**; exactly one otherwise:
 *   Adya's **G-single**, described **phantom**;
 * - with an item anti-dependency among them the class stays (G2-item, G-single, ...): PL-2.99
 *   forbids it as an item anomaly; the summary still names each predicate anti-dependency
 *   ("a G2-item through a phantom").
 * Invariant: only names and texts change; the cycle, its edges and the certificate (checked on
 * the lowered history, whose reads are the versions the predicate reads observed) are kept.
 */

import { describeOp, INITIAL_VALUE, OP_COUNT, OP_READ, OP_WRITE, opWhere, type History } from '../history/model.ts';
import { INIT_TXN } from '../result/types.ts';
import type { Counterexample } from '../result/counterexample.ts';
import type { Lowered } from '../validate/predicate-lower.ts';

/**
 * Per `(txn, key)` pair with a predicate observation (as `txn * keys + key`), the writers of the
 * versions those observations read (INIT_TXN for the initial one). An anti-dependency is a
 * predicate one when it starts at such a read: the same txn may also read the row as an item (a
 * returned row), as in PMP, and that read's anti-dependency is an item one.
 */
export function predicateReads(low: Lowered): Map<number, Set<number>> {
  const h = low.history, out = new Map<number, Set<number>>();
  const nKeys = h.keyLabels.length;
  // The observed versions, as key * values + value, and which (txn, key) pairs read each.
  const observed = new Map<number, number[]>();
  for (let t = 0; t < h.txnCount; t++) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      if (low.predicate[op] !== 1) continue;
      const k = h.opKey[op]!, v = h.opValue[op]!;
      if (v === INITIAL_VALUE) { addWriter(out, t * nKeys + k, INIT_TXN); continue; }
      const id = k * h.valueCount + v;
      const readers = observed.get(id);
      if (readers === undefined) observed.set(id, [t * nKeys + k]); else readers.push(t * nKeys + k);
    }
  }
  if (observed.size === 0) return out;
  for (let t = 0; t < h.txnCount; t++) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      if (h.opKind[op] !== OP_WRITE) continue;
      const readers = observed.get(h.opKey[op]! * h.valueCount + h.opValue[op]!);
      if (readers !== undefined) for (const r of readers) addWriter(out, r, t);
    }
  }
  return out;
}

function addWriter(m: Map<number, Set<number>>, at: number, writer: number): void {
  const s = m.get(at);
  if (s === undefined) m.set(at, new Set([writer])); else s.add(writer);
}

/** Whether an RW edge from `at` (`txn * keys + key`) that read `readFrom`'s version starts at a predicate observation. */
function fromPredicate(pred: Map<number, Set<number>>, at: number, readFrom: number | null): boolean {
  const writers = pred.get(at);
  return writers !== undefined && (readFrom === null || writers.has(readFrom));
}

/**
 * `(txn, key)` pairs read only by predicate observations, as `txn * keys + key`: a txn that read a
 * row both by a predicate and by an item read made one external read of it (validation keeps
 * the first), whose anti-dependencies are item ones (as check/rr-predicates.ts counts them).
 * Coarser than `predicateReads` (no version): what repeatable read's re-check of a shown cycle
 * uses, whose edges do not all carry the version they read.
 */
export function predicateOnlyPairs(low: Lowered): Set<number> {
  const h = low.history, out = new Set<number>(), item = new Set<number>();
  const nKeys = h.keyLabels.length;
  for (let t = 0; t < h.txnCount; t++) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      if (low.predicate[op] === 1) out.add(t * nKeys + h.opKey[op]!);
      else if (h.opKind[op] === OP_READ) item.add(t * nKeys + h.opKey[op]!);
    }
  }
  for (const x of item) out.delete(x);
  return out;
}

export function namePhantom(cx: Counterexample, input: History, low: Lowered, pred: Map<number, Set<number>>): Counterexample {
  if (cx.cycle === null) return withInputOps(cx, input);
  const nKeys = low.history.keyLabels.length;
  const edges = cx.cycle.edges.map((id) => cx.edges[id]!);
  const isPred = edges.map((e) => e.kind === 'RW' && fromPredicate(pred, e.from * nKeys + e.key, e.readFrom));
  const rw = edges.filter((e) => e.kind === 'RW').length;
  const predRw = isPred.filter(Boolean).length;
  if (predRw === 0) return withInputOps(cx, input);
  if (predRw < rw) {
    // A G2-item through a phantom (check/rr-search.ts finds these at rr): the item
    // anti-dependency keeps the class, and the phantom on the cycle is named.
    const said = edges.filter((_, i) => isPred[i]).map((e) => phantomSentence(input, low, e.from, e.to, e.key));
    return withInputOps({ ...cx, summary: `${said.join(' ')} ${cx.summary} (a G2-item through a phantom: the cycle has an item anti-dependency too)` }, input);
  }
  const suffix = /-(process|realtime)$/.exec(cx.class)?.[0] ?? '';
  let adjacent = false;
  for (let i = 0; i < edges.length; i++) if (edges[i]!.kind === 'RW' && edges[(i + 1) % edges.length]!.kind === 'RW' && edges.length > 1) adjacent = true;
  let cls: string, description: 'phantom' | 'predicate write skew';
  if (rw >= 2) { cls = `G2${suffix}`; description = adjacent ? 'predicate write skew' : 'phantom'; } else {
    const pmp = edges.length === 2 && edges.some((e) => e.kind === 'WR');
    cls = pmp ? 'PMP' : `G-single${suffix}`;
    description = 'phantom';
  }
  const said = edges.filter((_, i) => isPred[i]).map((e) => phantomSentence(input, low, e.from, e.to, e.key));
  const out: Counterexample = {
    ...cx,
    class: cls as Counterexample['class'],
    description,
    summary: `${said.join(' ')} ${cx.summary}`,
  };
  return withInputOps(out, input);
}

/** "t1's predicate read `P` (line 3) saw row 4 absent, and t2's insert of 42 made it match." */
function phantomSentence(input: History, low: Lowered, reader: number, writer: number, key: number): string {
  const lh = low.history, pt = input.predicates!;
  let readOp = -1, writeOp = -1;
  for (let op = lh.txnOpStart[reader]!; op < lh.txnOpStart[reader + 1]!; op++) if (low.predicate[op] === 1 && lh.opKey[op] === key) { readOp = low.origin[op]!; break; }
  for (let op = lh.txnOpStart[writer]!; op < lh.txnOpStart[writer + 1]!; op++) if (lh.opKey[op] === key && lh.opKind[op] === OP_WRITE) writeOp = low.origin[op]!;
  const row = lh.keyLabels[key]!;
  const what = readOp >= 0 && pt.text[input.opValue[readOp]!] !== undefined ? `predicate read \`${pt.text[input.opValue[readOp]!]}\` (${opWhere(input, readOp)})` : 'predicate read';
  const write = writeOp >= 0 ? describeOp(input, writeOp) : `write of row ${row}`;
  const missed = readOp >= 0 && input.opKind[readOp] === OP_COUNT ? 'did not count' : 'did not return';
  return `${lh.txnLabelTable.get(reader)}'s ${what} ${missed} row ${row}: it missed ${lh.txnLabelTable.get(writer)}'s ${write}, which makes the row match (a predicate anti-dependency).`;
}

/** The counterexample's transactions with the input's operations (selects, inserts, deletes) instead of their lowering. */
function withInputOps(cx: Counterexample, input: History): Counterexample {
  const txns = cx.txns.map((t) => {
    if (t.txn < 0) return t;
    const ops: string[] = [];
    for (let op = input.txnOpStart[t.txn]!; op < input.txnOpStart[t.txn + 1]!; op++) ops.push(describeOp(input, op));
    return { ...t, ops, focus: ops.map((_, i) => i) };
  });
  return { ...cx, txns };
}
