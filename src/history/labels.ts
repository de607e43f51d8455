/**
 * Labels made on demand: the names of values and transactions as the user wrote them.
 *
 * Takes: per id either a prefix and a number (label = prefix + String(number), or the prefix
 * alone when the number is NaN) or, for values only, an explicit string. Gives: `LabelTable`,
 * the immutable table a History holds (`valueLabel(h, v)`, `txnLabel(h, t)` in model.ts read
 * it), and `LabelColumn`, the growable one parsers fill through the HistoryBuilder.
 * Invariant: `get(i)` returns exactly the string the parser meant for id i; tables are never
 * changed after `freeze`.
 *
 * Why: a history has a value per write and a transaction per few operations, and almost every
 * label is a number (`17`) or a number after a short prefix (`s3:17`, `1.17`, `L17`). Making one
 * string per value and per transaction while parsing was the largest cost left in the byte
 * parsers (one String(x) per value, one string per txn, and the garbage collection of all of
 * them), yet only explanations, rendering and writers ever read a label, and then few of them.
 * Here a label costs a Float64 and an Int32 and becomes a string only when asked for.
 *
 * Transaction labels are stored in one canonical form (`splitLabel`), whatever path made them,
 * so two histories with the same labels have the same tables (tests compare Histories whole).
 */

/** Longest digit run kept as the number of a split label: 15 digits are exact as a double. */
const MAX_DIGITS = 15;

/**
 * The canonical (prefix, number) form of a label: the number is the label's trailing run of
 * decimal digits (at most 15, without leading zeros, which stay in the prefix), NaN if the label
 * does not end with a digit. Always `prefix + (isNaN(n) ? '' : String(n)) === s`.
 */
export function splitLabel(s: string): [prefix: string, n: number] {
  const len = s.length;
  let j = len;
  while (j > 0 && j > len - MAX_DIGITS) {
    const c = s.charCodeAt(j - 1);
    if (c < 48 || c > 57) break;
    j--;
  }
  if (j === len) return [s, NaN];
  while (j < len - 1 && s.charCodeAt(j) === 48) j++;
  return [s.slice(0, j), Number(s.slice(j))];
}

/** Whether ('', n) is the canonical form of String(n): n an integer in [0, 10^15) (not -0). */
export function isCanonicalNumber(n: number): boolean {
  return n >= 0 && n < 1e15 && Number.isInteger(n) && !Object.is(n, -0);
}

/** An immutable table of labels, id -> string on demand. */
export class LabelTable {
  /**
   * `pre[i]`: index into `prefixes`, or -1 for an explicit label `texts[i]`; `num[i]`: the number
   * after the prefix (NaN: none). Prefer `LabelTable.of` and the builder to the constructor.
   */
  constructor(
    readonly count: number,
    private readonly pre: Int32Array,
    private readonly num: Float64Array,
    private readonly prefixes: readonly string[],
    private readonly texts: readonly string[] | null,
  ) {}

  /** A table of the given strings, stored as explicit labels (for tests and hand-made histories). */
  static of(labels: readonly string[]): LabelTable {
    return new LabelTable(labels.length, new Int32Array(labels.length).fill(-1), new Float64Array(labels.length).fill(NaN), [], labels.slice());
  }

  /** The label of id i (i in [0, count)). */
  get(i: number): string {
    const p = this.pre[i]!;
    if (p < 0) return this.texts![i]!;
    const n = this.num[i]!;
    return n !== n ? this.prefixes[p]! : this.prefixes[p]! + String(n);
  }

  /** Every label, in id order (for writers, which read them all). */
  toArray(): string[] {
    const out = new Array<string>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.get(i);
    return out;
  }
}

/** A growable label table, filled id by id. */
export class LabelColumn {
  private pre = new Int32Array(1024);
  private num = new Float64Array(1024);
  private readonly prefixes: string[] = [''];
  private readonly prefixIndex = new Map<string, number>([['', 0]]);
  private texts: string[] | null = null;
  length = 0;

  /** The id of a prefix, for `pushNumber`; prefix '' is 0. */
  prefix(s: string): number {
    let p = this.prefixIndex.get(s);
    if (p === undefined) {
      p = this.prefixes.length;
      this.prefixes.push(s);
      this.prefixIndex.set(s, p);
    }
    return p;
  }

  /** Appends the label prefix + String(n) (the prefix alone if n is NaN). */
  pushNumber(prefixId: number, n: number): void {
    const i = this.length;
    if (i === this.pre.length) this.grow();
    this.pre[i] = prefixId;
    this.num[i] = n;
    if (this.texts !== null) this.texts.push('');
    this.length = i + 1;
  }

  /** Appends s in canonical form (splitLabel). */
  pushSplit(s: string): void {
    const [prefix, n] = splitLabel(s);
    this.pushNumber(this.prefix(prefix), n);
  }

  /** Appends s as it is (for labels that need not be canonical: values). */
  pushText(s: string): void {
    const i = this.length;
    if (i === this.pre.length) this.grow();
    if (this.texts === null) this.texts = new Array<string>(i).fill('');
    this.pre[i] = -1;
    this.num[i] = NaN;
    this.texts.push(s);
    this.length = i + 1;
  }

  get(i: number): string {
    const p = this.pre[i]!;
    if (p < 0) return this.texts![i]!;
    const n = this.num[i]!;
    return n !== n ? this.prefixes[p]! : this.prefixes[p]! + String(n);
  }

  /** Makes room for at least n labels in all. */
  reserve(n: number): void {
    if (n > this.pre.length) this.grow(n);
  }

  private grow(min = 0): void {
    const cap = Math.max(min, this.pre.length * 2);
    const pre = new Int32Array(cap), num = new Float64Array(cap);
    pre.set(this.pre);
    num.set(this.num);
    this.pre = pre;
    this.num = num;
  }

  /**
   * The immutable table of ids `order[0], order[1], ...` (new id j has the label of old id
   * order[j]), or of ids 0 .. length-1 when order is null. Prefixes are renumbered by first use,
   * so the table depends only on the labels' canonical forms, not on interning order.
   */
  freeze(order: Int32Array | null = null): LabelTable {
    const n = order === null ? this.length : order.length;
    const pre = new Int32Array(n), num = new Float64Array(n);
    const texts = this.texts === null ? null : new Array<string>(n);
    const remap = new Int32Array(this.prefixes.length).fill(-1);
    const prefixes: string[] = [];
    for (let j = 0; j < n; j++) {
      const i = order === null ? j : order[j]!;
      let p = this.pre[i]!;
      if (p >= 0) {
        let q = remap[p]!;
        if (q < 0) { q = remap[p] = prefixes.length; prefixes.push(this.prefixes[p]!); }
        p = q;
      }
      pre[j] = p;
      num[j] = this.num[i]!;
      if (texts !== null) texts[j] = this.texts![i]!;
    }
    return new LabelTable(n, pre, num, prefixes, texts);
  }
}
