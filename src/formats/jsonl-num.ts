/**
 * JSON numbers as bytes, for the JSON Lines fast path's start / end times (jsonl-fast.ts).
 *
 * Takes: bytes and a position. Gives: `jsonNumber` returns the end of the JSON number there (or
 * BAIL) and sets `numberValue` to the double JSON.parse gives for it.
 * Invariant: `numberValue` is always the correctly rounded double (round to nearest, ties to
 * even) of the literal's decimal value, the same as JSON.parse / Number; every case this module
 * cannot certify goes through Number() on the literal's text.
 *
 * Three ways, fastest first:
 * - Clinger's fast path: the digits as an integer M below 2^53 and a decimal exponent within
 *   ±22, so M and 10^|k| are exact doubles and one IEEE division or multiplication rounds once.
 * - Recorder times of 16-19 digits (performance.now() in ms prints 17: `14409.162000000002`),
 *   M >= 2^53 and a fraction of at most 22 digits: `quotient` computes q = fl(fl(M) / 10^j), the
 *   remainder M - q·10^j in double-double arithmetic (exact products by Dekker's splitting, so
 *   the remainder is known to 2^-50 of half an ulp), and from it whether the exact quotient lies
 *   in q's rounding interval or its neighbour's; within 2^-40 of a midpoint it gives up.
 * - Anything else (exponents, more digits, a near-midpoint): Number() of the text, which rounds
 *   correctly.
 */

/** What a scanner returns when the bytes are not what it takes. */
export const BAIL = -1;

/** Set by `jsonNumber`: the literal's double. */
export let numberValue = 0;

/** 2^53: integers below it are exact doubles. */
const TWO53 = 2 ** 53;

/** Powers of ten exact as doubles (10^0 .. 10^22). */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** Powers of two 2^(i - 1100), for ulps (exact doubles: normal or subnormal). */
const POW2 = Array.from({ length: 2200 }, (_, i) => 2 ** (i - 1100));

/** Dekker's splitting constant 2^27 + 1. */
const SPLIT = 134217729;

/** The rounding error of p = fl(a·b): a·b = p + the result, exactly (Dekker; no overflow here). */
function productError(a: number, b: number, p: number): number {
  let s = SPLIT * a;
  const ah = s - (s - a), al = a - ah;
  s = SPLIT * b;
  const bh = s - (s - b), bl = b - bh;
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

/** Views of one double, to read its exponent and mantissa bits (little-endian words). */
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** Certify margin: a remainder within 2^-40 of a rounding boundary gives up (its error is < 2^-50). */
const BELOW = 1 - 2 ** -40, ABOVE = 1 + 2 ** -40;

/**
 * The correctly rounded double of M / 10^j with M = a·10^r + b (a < 10^15, r in 1..4, b < 10^r,
 * M >= 2^53) and j in 1..22; NaN if the result cannot be certified (the caller then uses Number).
 *
 * M = Mh + Ml exactly (Mh = fl(M)); q = fl(Mh / P) with P = 10^j; the remainder R = M - q·P is
 * (Mh - p1) + (Ml - p2) with q·P = p1 + p2 exactly, Mh - p1 exact (Sterbenz: p1 is within an ulp
 * of Mh), and two roundings of values below 4 half-ulps of M: |error| < 2^-50·T, where
 * T = P·ulp(q)/2 is the remainder at q's upper midpoint. So: |R| < T means q; T < R < 3T means
 * the next double up, -3T < R < -T the next down; when q is a power of two its lower neighbour
 * is nearer (the lower midpoint is at -T/2), so then only -T/2 < R < T is certified, as q.
 * Anything within 2^-40·T of a boundary, or beyond, is not certified.
 */
export function quotient(a: number, r: number, b: number, j: number): number {
  const pr = POW10[r]!;
  const h = a * pr;
  const c = productError(a, pr, h) + b; // both integers below 2^53: exact
  const mh = h + c;
  const ml = c - (mh - h); // Fast2Sum: mh + ml = M exactly (|h| >= |c|)
  const P = POW10[j]!;
  const q = mh / P;
  const p1 = q * P;
  const p2 = productError(q, P, p1);
  const rem = (mh - p1) + (ml - p2);
  f64[0] = q;
  const hi = u32[1]!;
  const biased = (hi >>> 20) & 0x7ff;
  if (biased === 0 || biased === 0x7ff) return NaN; // subnormal, infinite: not here
  const T = P * POW2[biased - 1075 - 1 + 1100]!; // P·2^(E-1), E = exponent of q's last bit: exact
  // A power of two's lower neighbour is half an ulp away, so its lower midpoint is at -T/2.
  const powerOfTwo = (hi & 0xfffff) === 0 && u32[0] === 0;
  if (rem < T * BELOW && rem > -(powerOfTwo ? T / 2 : T) * BELOW) return q;
  const ulp = 2 * POW2[biased - 1075 - 1 + 1100]!;
  if (rem > T * ABOVE && rem < 3 * T * BELOW) return q + ulp; // exact: the next double up
  if (rem < -T * ABOVE && rem > -3 * T * BELOW && !powerOfTwo) return q - ulp;
  return NaN;
}

const latin1Slice = Buffer.prototype.latin1Slice as (this: Uint8Array, from: number, to: number) => string;

/**
 * Any JSON number at p: sets numberValue to the double JSON.parse gives; returns the end or
 * BAIL (not a number, or not finite).
 */
export function jsonNumber(t: Uint8Array, p: number, e: number): number {
  const from = p;
  const neg = p < e && t[p] === 45;
  if (neg) p++;
  const intFrom = p;
  let m = 0, k = 0;
  while (p < e) {
    const d = t[p]! - 48;
    if (d < 0 || d > 9) break;
    m = m * 10 + d;
    p++;
  }
  if (p === intFrom || (t[intFrom] === 48 && p - intFrom > 1)) return BAIL;
  let dot = -1;
  if (p < e && t[p] === 46) { // fraction
    dot = p;
    const f = ++p;
    while (p < e) {
      const d = t[p]! - 48;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
      k--;
      p++;
    }
    if (p === f) return BAIL;
  }
  const digitsEnd = p;
  let exp = false;
  if (p < e && (t[p] === 101 || t[p] === 69)) { // exponent
    exp = true;
    p++;
    let eneg = false;
    if (p < e && (t[p] === 43 || t[p] === 45)) eneg = t[p++] === 45;
    const x = p;
    let ex = 0;
    while (p < e) {
      const d = t[p]! - 48;
      if (d < 0 || d > 9) break;
      if (ex < 1e6) ex = ex * 10 + d;
      p++;
    }
    if (p === x) return BAIL;
    k += eneg ? -ex : ex;
  }
  // Exact when the digits as an integer are below 2^53: the double accumulation above is then
  // exact at every step (and when M >= 2^53 the computed m is >= 2^53 too, rounding being
  // monotone).
  let v: number;
  if (m < TWO53 && k >= -22 && k <= 22) v = k < 0 ? m / POW10[-k]! : m * POW10[k]!;
  else {
    v = NaN;
    const n = digitsEnd - intFrom - (dot < 0 ? 0 : 1); // digits, integer and fraction
    if (!exp && dot >= 0 && n <= 19 && m >= TWO53) {
      // 16-19 digits (m >= 2^53 > 10^15): a = the first n - r, b = the last r = n - 15.
      const r = n - 15;
      let a = 0, b = 0, seen = 0;
      for (let i = intFrom; i < digitsEnd; i++) {
        if (i === dot) continue;
        const d = t[i]! - 48;
        if (seen++ < 15) a = a * 10 + d;
        else b = b * 10 + d;
      }
      v = quotient(a, r, b, -k);
    }
    if (v !== v) {
      numberValue = Number(latin1Slice.call(t, from, p));
      return Number.isFinite(numberValue) ? p : BAIL;
    }
  }
  numberValue = neg ? -v : v;
  return Number.isFinite(numberValue) ? p : BAIL;
}
