// JSON numbers as bytes (src/formats/jsonl-num.ts): every literal must give exactly the double
// JSON.parse gives. The hard cases for the two-part conversion of 16-19 digit times are literals
// next to a midpoint between two doubles, where a quotient off by a fraction of an ulp rounds the
// wrong way: they are made exactly (BigInt) and cut to 16-19 digits, and the last digit moved;
// also around powers of two, whose lower neighbour is half an ulp away (this caught a bug:
// 1.9999999999999998 read as 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonNumber, numberValue, quotient } from '../../src/formats/jsonl-num.ts';
import { mulberry32 } from '../support/prng.ts';

const enc = new TextEncoder();

/** Parses `lit` (padded with bytes that must not be read) and checks it against JSON.parse. */
function check(lit: string): void {
  const bytes = enc.encode(`${lit},9`);
  const end = jsonNumber(bytes, 0, lit.length);
  assert.equal(end, lit.length, lit);
  const want = JSON.parse(lit) as number;
  assert.ok(Object.is(numberValue, want), `${lit}: got ${numberValue}, JSON.parse gives ${want}`);
}

/** The exact decimal of double x's upper midpoint (x + ulp/2), as integer digits and a point position. */
function midpointDigits(x: number): { digits: string; fracDigits: number } {
  const f = new Float64Array([x]);
  const u = new BigUint64Array(f.buffer);
  const bits = u[0]!;
  const e = Number((bits >> 52n) & 0x7ffn) - 1075;
  const mant = (bits & ((1n << 52n) - 1n)) | (1n << 52n);
  // midpoint = (2·mant + 1) · 2^(e-1); with e - 1 < 0 that is (2·mant + 1)·5^(1-e) / 10^(1-e).
  assert.ok(e - 1 < 0);
  const s = 1 - e;
  const num = (2n * mant + 1n) * 5n ** BigInt(s);
  return { digits: num.toString(), fracDigits: s };
}

/** digits with a decimal point placed fracDigits from the end, cut to `keep` significant digits. */
function literalOf(digits: string, fracDigits: number, keep: number, bump: number): string {
  const intLen = digits.length - fracDigits;
  if (intLen < 1) return ''; // below 1: not a recorder time, skip
  const head = BigInt(digits.slice(0, keep)) + BigInt(bump);
  const d = head.toString();
  if (d.length !== keep) return ''; // carried into a new digit: skip
  return `${d.slice(0, intLen)}.${d.slice(intLen)}`;
}

test('jsonNumber: 16-19 digit literals next to a midpoint between two doubles give the double JSON.parse gives', () => {
  const rng = mulberry32(1753);
  let checked = 0;
  for (let i = 0; i < 40_000; i++) {
    // A double of recorder-time size (1 .. 10^7 ms), or any size where 16-19 digits stay fractional.
    const x = rng() < 0.7 ? 1 + rng() * 1e7 : 2 ** (rng() * 40) * (1 + rng());
    const { digits, fracDigits } = midpointDigits(x);
    const keep = 16 + Math.floor(rng() * 4);
    if (digits.length - fracDigits < 1 || digits.length - fracDigits >= keep) continue;
    const lit = literalOf(digits, fracDigits, keep, Math.floor(rng() * 5) - 2);
    if (lit === '') continue;
    check(lit);
    checked++;
  }
  assert.ok(checked > 30_000);
});

test('jsonNumber: 200,000 random literals (recorder times of 16-19 digits, and any JSON number) give the double JSON.parse gives', () => {
  const rng = mulberry32(4242);
  const digits = (n: number): string => Array.from({ length: n }, () => String(Math.floor(rng() * 10))).join('');
  for (let i = 0; i < 200_000; i++) {
    let lit: string;
    const r = rng();
    if (r < 0.6) {
      const n = 16 + Math.floor(rng() * 4);
      const all = `${1 + Math.floor(rng() * 9)}${digits(n - 1)}`;
      const point = 1 + Math.floor(rng() * (n - 1));
      lit = `${all.slice(0, point)}.${all.slice(point)}`;
    } else if (r < 0.8) {
      lit = String(rng() * 10 ** Math.floor(rng() * 12)); // shortest round-trip texts, like a recorder's
    } else {
      const int = rng() < 0.2 ? '0' : `${1 + Math.floor(rng() * 9)}${digits(Math.floor(rng() * 20))}`;
      const frac = rng() < 0.8 ? `.${digits(1 + Math.floor(rng() * 20))}` : '';
      const exp = rng() < 0.1 ? `e${pick(rng, ['', '+', '-'])}${Math.floor(rng() * 30)}` : '';
      lit = `${int}${frac}${exp}`;
    }
    if (rng() < 0.05) lit = `-${lit}`;
    check(lit);
  }
});

const pick = <T>(rng: () => number, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

test('quotient: certifies most recorder times (so the fast path is taken), and gives up only near a midpoint', () => {
  const rng = mulberry32(77);
  let certified = 0;
  for (let i = 0; i < 10_000; i++) {
    const lit = String(1e4 + rng() * 1e6); // e.g. 14409.162000000002
    const [int, frac = ''] = lit.split('.');
    const all = int! + frac;
    if (all.length < 16 || all.length > 19 || BigInt(all) < 2n ** 53n) continue;
    const r = all.length - 15;
    const q = quotient(Number(all.slice(0, 15)), r, Number(all.slice(15)), frac.length);
    if (q === q) { certified++; assert.ok(Object.is(q, JSON.parse(lit)), lit); }
  }
  assert.ok(certified > 3_000, `certified ${certified}`);
});

test('jsonNumber: literals next to midpoints around powers of two (where the ulp below is half the ulp above)', () => {
  const f = new Float64Array(1);
  const u = new BigUint64Array(f.buffer);
  const step = (x: number, k: number): number => { f[0] = x; u[0] = u[0]! + BigInt(k); return f[0]!; };
  let checked = 0;
  for (let n = 0; n <= 30; n++) {
    for (let k = -8; k <= 8; k++) {
      const { digits, fracDigits } = midpointDigits(step(2 ** n, k));
      for (let keep = 16; keep <= 19; keep++) {
        if (digits.length - fracDigits >= keep) continue;
        for (let bump = -3; bump <= 3; bump++) {
          const lit = literalOf(digits, fracDigits, keep, bump);
          if (lit === '') continue;
          check(lit);
          checked++;
        }
      }
    }
  }
  assert.ok(checked > 10_000, `checked ${checked}`);
});
