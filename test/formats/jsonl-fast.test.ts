// The JSON Lines reader scans plain transaction lines as bytes (src/formats/jsonl-fast.ts) and
// sends every other line through JSON.parse. Differential test: on randomized files (the
// recorder's shape, fields in any order, odd whitespace, CRLF, escapes, unicode keys and
// values, huge integers, {"int": ...}, lists, fractional and exponent times, missing fields)
// and on random byte mutations of them, the fast reader (in memory and streamed in random chunk
// sizes) must give the same History as the JSON.parse-only reference, or the same error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonl, parseJsonlGeneral, readJsonl } from '../../src/formats/jsonl.ts';
import { HistoryInput } from '../../src/formats/io-read.ts';
import type { History } from '../../src/history/model.ts';
import { mulberry32 } from '../support/prng.ts';

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

function ws(rng: Rng): string {
  return rng() < 0.8 ? '' : pick(rng, [' ', '\t', '  ', '\r', ' \t ']);
}

function key(rng: Rng): string {
  const r = rng();
  if (r < 0.6) return String(Math.floor(rng() * 20));
  if (r < 0.7) return `"${Math.floor(rng() * 20)}"`; // the same key as the integer
  if (r < 0.78) return `"k${Math.floor(rng() * 5)}"`;
  if (r < 0.82) return pick(rng, ['"ключ"', '"\\u006b1"', '"k\\"q"', '"😀"', '"007"', '"-0"']);
  if (r < 0.86) return pick(rng, ['-3', '-0', '2147483648', '9007199254740991', '123456789012345']);
  if (r < 0.9) return pick(rng, messy ? ['9007199254740993', '1.0', '1e2', '0.5'] : ['1.0', '1e2', '2E0']); // rounding or errors: the general path judges
  return String(2 ** 31 - 1 - Math.floor(rng() * 3));
}

let nextValue = 1;
/** Whether this file may hold values, kinds and fields that are errors (half the files). */
let messy = false;
function value(rng: Rng): string {
  const r = rng();
  if (r < 0.5) return String(nextValue++);
  if (r < 0.6) return 'null';
  if (r < 0.68) return `"v${Math.floor(rng() * 6)}"`;
  if (r < 0.72) return pick(rng, ['"ü"', '"a\\nb"', '"\\u00fc"', '"tab\\t"', '""']);
  if (r < 0.78) return pick(rng, ['0', '-0', '-7', '2147483648', '4294967296', '999999999999999']);
  if (r < 0.84) return pick(rng, ['{"int":"123456789012345678901"}', '{"int":"5"}', '{ "int" : "-0" }']);
  if (r < 0.88) return pick(rng, messy ? ['12345678901234567', '1.5', 'true', '{}', '[1]'] : ['12345678901234567', '1234567890123456', '3.0']);
  return String(Math.floor(rng() * 50));
}

function op(rng: Rng): string {
  const kind = pick(rng, messy ? ['"r"', '"w"', '"append"', '"r"', '"w"', '"x"'] : ['"r"', '"w"', '"append"']);
  const v = kind === '"r"' && rng() < 0.3
    ? `[${Array.from({ length: Math.floor(rng() * 4) }, () => value(rng)).join(`,${ws(rng)}`)}]`
    : value(rng);
  return `[${ws(rng)}${kind}${ws(rng)},${ws(rng)}${key(rng)}${ws(rng)},${ws(rng)}${v}${ws(rng)}]`;
}

/**
 * Txn names that collide, or nearly: the same name as a string and an integer, `L<line>` (the
 * name of a line without "txn"), leading zeros, digit runs past 15 digits, signs.
 */
function txnName(rng: Rng): string {
  const r = Math.floor(rng() * 12);
  return pick(rng, [`"t${r}"`, String(r), `"${r}"`, `"L${r}"`, `"0${r}"`, `"00"`, `"x${'9'.repeat(16)}${r}"`,
    `"${'1'.repeat(16)}"`, `-${r}`, `"-${r}"`, '"-0"', '-0', `"a${r}b"`, '""', `"${r}.${r}"`]);
}

function txnLine(rng: Rng, i: number, sessions: string[]): string {
  const fields: string[] = [];
  const s = pick(rng, sessions);
  fields.push(`"session":${ws(rng)}${rng() < 0.8 ? `"${s}"` : /^[0-9]+$/.test(s) ? s : `"${s}"`}`);
  if (rng() < 0.9) fields.push(`"txn":${rng() < 0.7 ? `"${s}.${i}"` : rng() < 0.5 || !messy ? String(i) : txnName(rng)}`);
  if (rng() < 0.7) fields.push(`"status":"${pick(rng, messy ? ['committed', 'aborted', 'unknown', 'Committed'] : ['committed', 'aborted', 'unknown'])}"`);
  fields.push(`"ops":[${Array.from({ length: Math.floor(rng() * 5) }, () => op(rng)).join(`,${ws(rng)}`)}]`);
  if (rng() < 0.6) {
    const a = Math.round(rng() * 1e6) / 1000;
    const b = a + Math.round(rng() * 1e6) / 1000;
    const fmt = (x: number): string => pick(rng, [String(x), String(x), x.toExponential(), `${x}0`, x === 0 ? '-0' : String(x)]);
    if (rng() < 0.95 || !messy) fields.push(`"start":${fmt(a)}`);
    if (rng() < 0.95 || !messy) fields.push(`"end":${rng() < 0.05 && messy ? String(a - 1) : fmt(b)}`);
  }
  if (rng() < 0.1) fields.push(`"error":${pick(rng, messy ? ['"40001"', '"déjà"', '"a\\"b"', '5'] : ['"40001"', '"déjà"', '"a\\"b"'])}`);
  if (rng() < 0.15) fields.push(`"node":${pick(rng, messy ? ['"n1"', '"n2"', '"ñ"', '""', '"n\\"1"', '2', 'null'] : ['"n1"', '"n2"', '"n3"', '"ñ"', '"n\\"1"'])}`);
  if (rng() < 0.03) fields.push(pick(rng, messy ? ['"extra":1', '"session":"1"', '"ops":[]'] : ['"session":"1"', '"ops":[]']));
  for (let j = fields.length - 1; j > 0; j--) { // any field order
    if (rng() < 0.3) { const k = Math.floor(rng() * (j + 1)); [fields[j], fields[k]] = [fields[k]!, fields[j]!]; }
  }
  return `${ws(rng)}{${ws(rng)}${fields.join(`${ws(rng)},${ws(rng)}`)}${ws(rng)}}${ws(rng)}`;
}

function randomFile(rng: Rng): string {
  const sessions = ['0', '1', '2', 's-a', 'ß'].slice(0, 1 + Math.floor(rng() * 5));
  const lines: string[] = [];
  if (rng() < 0.5) lines.push(`{"format":"polysi-history","version":1${rng() < 0.7 ? `,"sessions":${JSON.stringify(sessions)}` : ''}}`);
  const n = Math.floor(rng() * 25);
  for (let i = 0; i < n; i++) lines.push(rng() < 0.05 ? pick(rng, ['', ' ', '\t\r', '\u00a0']) : txnLine(rng, i, sessions));
  const eol = rng() < 0.3 ? '\r\n' : '\n';
  return (rng() < 0.1 ? '\uFEFF' : '') + lines.join(eol) + (rng() < 0.5 ? eol : '');
}

function outcome(f: () => History): History | string {
  try {
    return f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

async function outcomeAsync(f: () => Promise<History>): Promise<History | string> {
  try {
    return await f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

function mutate(rng: Rng, text: string): string {
  const bytes = new TextEncoder().encode(text);
  const out = Array.from(bytes);
  const edits = 1 + Math.floor(rng() * 3);
  for (let i = 0; i < edits && out.length > 0; i++) {
    const at = Math.floor(rng() * out.length);
    const r = rng();
    const b = pick(rng, [0x22, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d, 0x3a, 0x20, 0x30, 0x2d, 0x2e, 0x65, 0x5c, 0x6e, 0x0a]);
    if (r < 0.4) out[at] = b; else if (r < 0.7) out.splice(at, 0, b); else out.splice(at, 1);
  }
  return new TextDecoder().decode(new Uint8Array(out));
}

test('fast JSONL reader = JSON.parse reference on 3,000 random files and 3,000 mutations', async () => {
  const rng = mulberry32(2026);
  let histories = 0, errors = 0;
  for (let i = 0; i < 6000; i++) {
    nextValue = 1;
    messy = i % 4 >= 2;
    let text = randomFile(rng);
    if (i % 2 === 1) text = mutate(rng, text);
    const want = outcome(() => parseJsonlGeneral(text, 'f.jsonl'));
    assert.deepStrictEqual(outcome(() => parseJsonl(text, 'f.jsonl')), want, `case ${i} in memory: ${JSON.stringify(text)}`);
    const bytes = new TextEncoder().encode(text);
    const got = await outcomeAsync(() => readJsonl(HistoryInput.fromBytes(bytes, 'f.jsonl', { chunkBytes: 1 + Math.floor(rng() * 200) })));
    assert.deepStrictEqual(got, want, `case ${i} streamed: ${JSON.stringify(text)}`);
    if (typeof want === 'string') errors++; else histories++;
  }
  // Both outcomes must be well represented, or the test compares little.
  assert.ok(histories > 1000 && errors > 1000, `histories ${histories}, errors ${errors}`);
});

test('the recorder shape takes the fast path and gives the reference History', () => {
  const lines = ['{"format":"polysi-history","version":1,"sessions":["0","1"]}'];
  for (let i = 0; i < 200; i++) {
    lines.push(`{"session":"${i % 2}","txn":"${i % 2}.${i >> 1}","status":"${i % 7 === 0 ? 'aborted' : 'committed'}",` +
      `"ops":[["r",${i % 13},${i === 0 ? 'null' : i}],["w",${i % 11},${i + 1000}],["append",${i % 5},${i + 5000}],["r",${i % 5},[${i + 5000}]]],` +
      `"start":${i * 1.5},"end":${i * 1.5 + 0.125}${i % 7 === 0 ? ',"error":"40001"' : ''}}`);
  }
  const text = lines.join('\n');
  const h = parseJsonl(text, 'rec.jsonl');
  assert.deepStrictEqual(h, parseJsonlGeneral(text, 'rec.jsonl'));
  assert.equal(h.opCount, 800);
  assert.equal(h.txnError?.filter((e) => e === '40001').length, 29);
});

test('start / end times: the fast reader gives the double JSON.parse gives, for 20,000 random literals', () => {
  const rng = mulberry32(99);
  const digits = (n: number): string => Array.from({ length: n }, () => String(Math.floor(rng() * 10))).join('');
  const literal = (): string => {
    const int = rng() < 0.2 ? '0' : `${1 + Math.floor(rng() * 9)}${digits(Math.floor(rng() * 12))}`;
    const frac = rng() < 0.7 ? `.${digits(1 + Math.floor(rng() * 12))}` : '';
    const exp = rng() < 0.2 ? `${pick(rng, ['e', 'E'])}${pick(rng, ['', '+', '-'])}${Math.floor(rng() * 30)}` : '';
    return `${rng() < 0.1 ? '-' : ''}${int}${frac}${exp}`;
  };
  const lines: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const a = literal(), b = literal();
    const [s, e] = JSON.parse(a) <= JSON.parse(b) ? [a, b] : [b, a];
    lines.push(`{"session":1,"txn":${i},"ops":[],"start":${s},"end":${e}}`);
  }
  const text = lines.join('\n');
  const h = parseJsonl(text, 't.jsonl');
  const want = parseJsonlGeneral(text, 't.jsonl');
  for (let t = 0; t < h.txnCount; t++) {
    assert.ok(Object.is(h.txnStart![t], want.txnStart![t]) && Object.is(h.txnEnd![t], want.txnEnd![t]), `line ${t + 1}: ${lines[t]}`);
  }
});

test('start / end times of 15-18 significant digits around 2^53 (recorder times): the double JSON.parse gives, 20,000 literals', () => {
  const rng = mulberry32(2053);
  const digits = (n: number): string => Array.from({ length: n }, () => String(Math.floor(rng() * 10))).join('');
  const literal = (): string => {
    // The digits as an integer: near 2^53 = 9007199254740992 (either side), or random of 15-18 digits.
    const near = rng() < 0.5;
    const all = near
      ? String(9007199254740992 + Math.floor(rng() * 64) - 32) + (rng() < 0.3 ? digits(1 + Math.floor(rng() * 2)) : '')
      : `${1 + Math.floor(rng() * 9)}${digits(14 + Math.floor(rng() * 4))}`;
    const point = 1 + Math.floor(rng() * (all.length - 1)); // an integer part of 1 .. length-1 digits
    const lead = rng() < 0.1 ? `0.${'0'.repeat(Math.floor(rng() * 4))}${all}` : `${all.slice(0, point)}.${all.slice(point)}`;
    return `${rng() < 0.05 ? '-' : ''}${lead}`;
  };
  const lines: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const a = literal(), b = literal();
    const [s, e] = JSON.parse(a) <= JSON.parse(b) ? [a, b] : [b, a];
    lines.push(`{"session":1,"txn":${i},"ops":[],"start":${s},"end":${e}}`);
  }
  const text = lines.join('\n');
  const h = parseJsonl(text, 't.jsonl');
  for (let t = 0; t < h.txnCount; t++) {
    const [s, e] = [/"start":([^,]*)/.exec(lines[t]!)![1]!, /"end":([^}]*)/.exec(lines[t]!)![1]!];
    assert.ok(Object.is(h.txnStart![t], JSON.parse(s)) && Object.is(h.txnEnd![t], JSON.parse(e)), `line ${t + 1}: ${lines[t]}`);
  }
});
