/**
 * Writes a History as a Jepsen / Elle history, in EDN (one map per line) or JSON (an array
 * with one operation object per line, as elle-cli reads it).
 *
 * Takes: a History. Gives: the text, or an Error `cannot write <source> as <format>: <why>`
 * naming what could not be represented. Each transaction becomes an :invoke (reads nil) followed by its completion
 * (:ok committed, :fail aborted, :info unknown) on the process named by its session label.
 * Invariant: reading the output back (elle-common.ts) gives the same sessions, transactions,
 * statuses and operations (keys and values by label); when that cannot hold, we refuse:
 * - a key both written/read as a register and appended/read as a list;
 * - two keys (or two values, or two sessions) with the same label: they would merge;
 * - a value label that is neither an integer nor a quoted string;
 * - a read of the initial value in a transaction that did not commit (Elle reads nil there as
 *   "unknown", so the read would be dropped);
 * - a session without transactions (Elle sessions exist only through their operations).
 * Transaction labels and source locations are not kept (Elle numbers operations by :index).
 */

import {
  INITIAL_VALUE,
  OP_APPEND,
  OP_READ,
  OP_READ_LIST,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  txnLabel,
  valueLabel,
  type History,
} from '../history/model.ts';
import { CANONICAL_INT } from './io-int.ts';
import { predicateRefusal } from './io-predicates.ts';

export type JepsenSyntax = 'edn' | 'json';

const KEYWORD_NAME = /^[A-Za-z*!_?<>=.+\-][A-Za-z0-9*!_?<>=.+\-/#]*$/;

/** The project's writer convention (docs/formats.md): an Error "cannot write <source> as <format>: <why>". */
function refuse(h: History, to: string, why: string): never {
  throw new Error(`cannot write ${h.source} as ${to}: ${why}`);
}

/** A key, value or process label rendered as a literal of the target syntax. */
function atom(label: string, syntax: JepsenSyntax, allowKeyword: boolean): string {
  if (CANONICAL_INT.test(label)) return label;
  if (allowKeyword && syntax === 'edn' && label.charCodeAt(0) === 58 && KEYWORD_NAME.test(label.slice(1))) return label;
  return JSON.stringify(label);
}

function checkUnique(h: History, labels: readonly string[], used: Uint8Array | null, what: string, to: string): void {
  const seen = new Set<string>();
  for (let i = 0; i < labels.length; i++) {
    if (used !== null && used[i] === 0) continue;
    const l = labels[i]!;
    if (seen.has(l)) refuse(h, to, `two different ${what} are both named ${JSON.stringify(l)}`);
    seen.add(l);
  }
}

/** Renders `h`; throws Error('cannot write ...') if the result would not read back the same. */
export function writeJepsen(h: History, syntax: JepsenSyntax): string {
  const to = syntax === 'edn' ? 'Elle EDN' : 'Elle JSON';
  const predicates = predicateRefusal(h);
  if (predicates !== null) refuse(h, to, predicates);
  const nKeys = h.keyLabels.length;
  const keyKinds = new Uint8Array(nKeys); // bit 1 register, bit 2 list
  const usedKey = new Uint8Array(nKeys);
  const usedValue = new Uint8Array(h.valueCount);
  for (let op = 0; op < h.opCount; op++) {
    const k = h.opKey[op]!;
    const kind = h.opKind[op]!;
    usedKey[k] = 1;
    keyKinds[k]! |= kind === OP_READ || kind === OP_WRITE ? 1 : 2;
    if (kind === OP_READ_LIST) {
      const l = h.opValue[op]!;
      for (let i = h.listStart[l]!; i < h.listStart[l + 1]!; i++) usedValue[h.listElems[i]!] = 1;
    } else {
      usedValue[h.opValue[op]!] = 1;
    }
  }
  for (let k = 0; k < nKeys; k++) {
    if (keyKinds[k] === 3) refuse(h, to, `key ${h.keyLabels[k]} is used both as a register and as a list`);
  }
  checkUnique(h, h.keyLabels, usedKey, 'keys', to);
  checkUnique(h, h.sessionLabels, null, 'sessions', to);
  usedValue[INITIAL_VALUE] = 0;
  checkUnique(h, h.valueLabelTable.toArray(), usedValue, 'values', to);
  const valueText: string[] = new Array<string>(h.valueCount);
  valueText[INITIAL_VALUE] = syntax === 'edn' ? 'nil' : 'null';
  for (let v = 1; v < h.valueCount; v++) {
    if (usedValue[v] === 0) continue;
    const l = valueLabel(h, v);
    if (CANONICAL_INT.test(l)) valueText[v] = l;
    else if (l.charCodeAt(0) === 34 && isJsonString(l)) valueText[v] = l;
    else refuse(h, to, `value ${l} is neither an integer nor a string`);
  }
  const keyText = h.keyLabels.map((l) => atom(l, syntax, true));
  for (let s = 0; s < h.sessionCount; s++) {
    if (h.sessionTxnStart[s] === h.sessionTxnStart[s + 1]) refuse(h, to, `session ${h.sessionLabels[s]} has no transactions`);
  }

  const nil = syntax === 'edn' ? 'nil' : 'null';
  const sep = syntax === 'edn' ? ' ' : ',';
  const mop = (f: string, k: number, v: string): string =>
    syntax === 'edn' ? `[:${f} ${keyText[k]} ${v}]` : `["${f}",${keyText[k]},${v}]`;
  const lines: string[] = [];
  let index = 0;
  for (let s = 0; s < h.sessionCount; s++) {
    const proc = atom(h.sessionLabels[s]!, syntax, true);
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      const status = h.txnStatus[t]!;
      const invoked: string[] = [];
      const done: string[] = [];
      for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
        const k = h.opKey[op]!;
        const v = h.opValue[op]!;
        switch (h.opKind[op]) {
          case OP_WRITE: {
            const m = mop('w', k, valueText[v]!);
            invoked.push(m);
            done.push(m);
            break;
          }
          case OP_APPEND: {
            const m = mop('append', k, valueText[v]!);
            invoked.push(m);
            done.push(m);
            break;
          }
          case OP_READ:
            if (v === INITIAL_VALUE && status !== TXN_COMMITTED) {
              refuse(h, to, `transaction ${txnLabel(h, t)} did not commit but reads the initial value of ${h.keyLabels[k]}; Elle would read that nil as "unknown"`);
            }
            invoked.push(mop('r', k, nil));
            done.push(mop('r', k, valueText[v]!));
            break;
          default: {
            const elems: string[] = [];
            for (let i = h.listStart[v]!; i < h.listStart[v + 1]!; i++) elems.push(valueText[h.listElems[i]!]!);
            invoked.push(mop('r', k, nil));
            done.push(mop('r', k, `[${elems.join(sep)}]`));
          }
        }
      }
      const type = status === TXN_COMMITTED ? 'ok' : status === TXN_ABORTED ? 'fail' : 'info';
      lines.push(opText(syntax, 'invoke', proc, invoked, sep, index++));
      lines.push(opText(syntax, type, proc, done, sep, index++));
    }
  }
  // An empty history is `[]`: an empty file reads as a truncated one.
  if (syntax === 'edn') return lines.length === 0 ? '[]\n' : `${lines.join('\n')}\n`;
  return `[${lines.join(',\n')}]\n`;
}

function opText(syntax: JepsenSyntax, type: string, proc: string, mops: string[], sep: string, index: number): string {
  if (syntax === 'edn') return `{:type :${type}, :f :txn, :value [${mops.join(sep)}], :process ${proc}, :index ${index}}`;
  return `{"type":"${type}","f":"txn","value":[${mops.join(sep)}],"process":${proc},"index":${index}}`;
}

function isJsonString(l: string): boolean {
  try {
    return typeof JSON.parse(l) === 'string';
  } catch {
    return false;
  }
}
