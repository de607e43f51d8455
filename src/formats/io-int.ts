/**
 * Integer literals shared by the parsers and writers: exact, BigInt-safe raw keys and values.
 *
 * Takes: decimal integer literals (optional '-', digits). Gives: the raw key / value the
 * HistoryBuilder interns: a JS number when the integer is a safe integer, otherwise the exact
 * value (a canonical decimal string for keys and labels, a bigint for values).
 * Invariant: one integer always maps to one raw value (`007`, `7` and `-0`/`0` collapse), and a
 * number and a string/bigint never stand for the same integer, so interning never splits or
 * merges integers.
 */

/** `0`, or an optional '-' then digits without a leading zero: the only form labels use. */
export const CANONICAL_INT = /^(?:0|-?[1-9][0-9]*)$/;

/** Canonical decimal form of a well-formed literal (`-?[0-9]+`): strips leading zeros, `-0` → `0`. */
export function canonicalDecimal(lit: string): string {
  const neg = lit.charCodeAt(0) === 45; // '-'
  let i = neg ? 1 : 0;
  while (i < lit.length - 1 && lit.charCodeAt(i) === 48) i++;
  const digits = lit.slice(i);
  return digits === '0' || !neg ? digits : `-${digits}`;
}

/** Raw key (or session / txn identity) for a literal: a number if safe, else its canonical decimal. */
export function intKey(lit: string): number | string {
  const c = canonicalDecimal(lit);
  const n = Number(c);
  return Number.isSafeInteger(n) ? n : c;
}

/** Raw value for a literal: a number if safe, else an exact bigint. */
export function intValue(lit: string): number | bigint {
  const c = canonicalDecimal(lit);
  const n = Number(c);
  return Number.isSafeInteger(n) ? n : BigInt(c);
}

/** Raw value for an exact bigint: a number if it is a safe integer, so `5n` and `5` intern alike. */
export function normBigint(b: bigint): number | bigint {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

/** A label as a u64 (a safe number, else a bigint), or null if it is not an integer in [0, 2^64). */
export function u64OfLabel(label: string): number | bigint | null {
  if (!CANONICAL_INT.test(label) || label.charCodeAt(0) === 45) return null;
  const n = Number(label);
  if (Number.isSafeInteger(n)) return n;
  const big = BigInt(label);
  return big < 1n << 64n ? big : null;
}
