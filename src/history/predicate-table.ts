/**
 * The growable side of `History.predicates` (model.ts `PredicateTable`): relations and predicate
 * reads as a HistoryBuilder receives them (issue 22).
 *
 * Takes: relation declarations (a name and key ids), and predicate reads (a relation id, a
 * predicate, its result rows as (key id, value id) or its count). Gives: `PredicateTableBuilder`,
 * whose `build(keyCount)` is the immutable PredicateTable, and `rowKey` / `rowValue`, the
 * scalars the predicate language evaluates on a key id / value id.
 * Invariant: a key belongs to at most one relation; a select's result rows are keys of its
 * relation, each at most once, with present (non-initial) values; a count is >= 0. A call that
 * would break it throws an Error (parsers check first and raise an InputError naming the line).
 */

import { GrowableInt32 } from '../util/growable.ts';
import { INITIAL_VALUE, valueLabel, type History, type PredicateTable } from './model.ts';
import { parsePredicate, type Predicate, type Scalar } from './predicate.ts';

export class PredicateTableBuilder {
  private readonly relationLabels: string[] = [];
  private readonly relationIndex = new Map<string, number>();
  /** `relationKeys[r]`: key ids of relation r, in declaration order. */
  private readonly relationKeys: number[][] = [];
  /** `keyRel.get(k)`: the relation of key id k (absent: none). */
  private readonly keyRel = new Map<number, number>();
  private readonly text: string[] = [];
  private readonly parsed: Predicate[] = [];
  private readonly resultStart = new GrowableInt32(16);
  private readonly resultKeys = new GrowableInt32(16);
  private readonly resultValues = new GrowableInt32(16);
  private readonly count = new GrowableInt32(16);
  /** Stamp per key id (the last call of `read` that returned it): duplicates in one result. */
  private readonly seen = new Map<number, number>();
  private stamp = 0;

  constructor() {
    this.resultStart.push(0);
  }

  /** Whether anything was declared or read (a History gets `predicates` only then). */
  get used(): boolean {
    return this.relationLabels.length > 0 || this.text.length > 0;
  }

  get readCount(): number {
    return this.text.length;
  }

  /** The id of relation `name`, or -1 if it was not declared. */
  relationId(name: string): number {
    return this.relationIndex.get(name) ?? -1;
  }

  /** The relation of key id k, or -1 (a plain key). */
  relationOfKey(k: number): number {
    return this.keyRel.get(k) ?? -1;
  }

  /** Declares relation `name` (or extends it) with key ids `keys`; returns its id. */
  relation(name: string, keys: Iterable<number>, keyLabel: (k: number) => string): number {
    let r = this.relationIndex.get(name);
    if (r === undefined) {
      r = this.relationLabels.length;
      this.relationIndex.set(name, r);
      this.relationLabels.push(name);
      this.relationKeys.push([]);
    }
    for (const k of keys) {
      const had = this.keyRel.get(k);
      if (had === r) continue;
      if (had !== undefined) {
        throw new Error(`key ${keyLabel(k)} of relation ${name} already belongs to relation ${this.relationLabels[had]}`);
      }
      this.keyRel.set(k, r);
      this.relationKeys[r]!.push(k);
    }
    return r;
  }

  /**
   * Records predicate read p (returned): a select with `rows` (key id, value id) pairs when
   * `n` is -1, else a count of n. `relation` must be declared and each row's key in it.
   */
  read(relation: number, predicate: string | Predicate, predicateText: string, rows: readonly (readonly [number, number])[], n: number,
    keyLabel: (k: number) => string): number {
    if (relation < 0 || relation >= this.relationLabels.length) throw new Error(`predicate read over undeclared relation ${relation}`);
    const p = this.text.length;
    const rel = this.relationLabels[relation]!;
    const stamp = ++this.stamp;
    for (const [k, v] of rows) {
      if (this.keyRel.get(k) !== relation) throw new Error(`select over ${rel} returned key ${keyLabel(k)}, which is not a key of ${rel}`);
      if (v === INITIAL_VALUE) throw new Error(`select over ${rel} returned key ${keyLabel(k)} with no value (an absent row)`);
      if (this.seen.get(k) === stamp) throw new Error(`select over ${rel} returned key ${keyLabel(k)} twice`);
      this.seen.set(k, stamp);
    }
    if (n !== -1 && !(Number.isInteger(n) && n >= 0 && n <= 0x7fffffff)) throw new Error(`count over ${rel} returned ${n}, not a count`);
    if (n !== -1 && rows.length > 0) throw new Error('a count has no result rows');
    const parsed = typeof predicate === 'string' ? parsePredicate(predicate) : predicate;
    this.text.push(predicateText);
    this.parsed.push(parsed);
    for (const [k, v] of rows) { this.resultKeys.push(k); this.resultValues.push(v); }
    this.resultStart.push(this.resultKeys.length);
    this.count.push(n);
    return p;
  }

  /** The immutable table, for a History with `keyCount` keys. */
  build(keyCount: number): PredicateTable {
    const keyRelation = new Int32Array(keyCount).fill(-1);
    const relStart = new Int32Array(this.relationLabels.length + 1);
    const relKeys = new Int32Array(this.keyRel.size);
    let at = 0;
    for (let r = 0; r < this.relationKeys.length; r++) {
      const ks = this.relationKeys[r]!.slice().sort((a, b) => a - b);
      for (const k of ks) { relKeys[at++] = k; keyRelation[k] = r; }
      relStart[r + 1] = at;
    }
    return {
      relationLabels: this.relationLabels.slice(),
      relStart,
      relKeys,
      keyRelation,
      text: this.text.slice(),
      parsed: this.parsed.slice(),
      resultStart: this.resultStart.toArray(),
      resultKeys: this.resultKeys.toArray(),
      resultValues: this.resultValues.toArray(),
      count: this.count.toArray(),
    };
  }
}

const SAFE_INT = /^(?:0|-?[1-9][0-9]*)$/;

/**
 * Key k as the predicate language sees it (`key`): an integer if its label is a canonical safe
 * integer (JSON Lines identifies keys by their text: `5` and `"5"` are one key), else the label.
 */
export function rowKey(h: History, k: number): Scalar {
  const l = h.keyLabels[k]!;
  return SAFE_INT.test(l) && Number.isSafeInteger(Number(l)) ? Number(l) : l;
}

/**
 * Value v as the predicate language sees it (`value`): null for INITIAL_VALUE (on a relation
 * key: the absent row), a string for a string value, else a number (an integer beyond 2^53
 * becomes its nearest double: the language's literals are safe integers).
 */
export function rowValue(h: History, v: number): Scalar | null {
  if (v === INITIAL_VALUE) return null;
  const l = valueLabel(h, v);
  if (l.charCodeAt(0) === 34) return JSON.parse(l) as string; // the builder stores JSON.stringify(string)
  const n = Number(l);
  return Number.isNaN(n) ? l : n;
}
