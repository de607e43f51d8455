// The PolySI text parser scans bytes (src/formats/polysi-text.ts). Differential test: on
// randomized files (odd blanks, CRLF, blank lines, a byte-order mark, leading zeros, -0,
// negative and huge integers, txns spread over lines in any order), streamed in random chunk
// sizes, it must give the same History as a reference parser written here the plain way
// (split, regex, HistoryBuilder's general key / value), and on a broken line fail on that line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { InputError } from '../../src/history/errors.ts';
import { OP_READ, OP_WRITE, type History } from '../../src/history/model.ts';
import { intKey, intValue } from '../../src/formats/io-int.ts';
import { parsePolysiText, readPolysiText } from '../../src/formats/polysi-text.ts';
import { HistoryInput } from '../../src/formats/io-read.ts';
import { mulberry32 } from '../support/prng.ts';

const LINE = /^[ \t\r]*([rw])[ \t\r]*\([ \t\r]*(-?[0-9]+)[ \t\r]*,[ \t\r]*(-?[0-9]+)[ \t\r]*,[ \t\r]*(-?[0-9]+)[ \t\r]*,[ \t\r]*(-?[0-9]+)[ \t\r]*\)[ \t\r]*$/;

/** The reference: one regex per line; the same semantics as the format's documentation. */
function reference(text: string, source: string): History {
  const b = new HistoryBuilder(source, 'line');
  const txns = new Map<string, { t: number; s: string }>();
  let firstInit = true;
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((l, i) => {
    if (/^[ \t\r]*$/.test(l)) return;
    const m = LINE.exec(l);
    if (m === null) throw new Error(`reference: line ${i + 1} is not an operation`);
    const key = intKey(m[2]!), v = intValue(m[3]!), s = String(intKey(m[4]!)), tx = String(intKey(m[5]!));
    let e = txns.get(tx);
    if (e === undefined) { e = { t: b.beginTxn(b.session(s), tx, undefined, i + 1), s }; txns.set(tx, e); }
    if (e.s !== s) throw new Error('reference: txn in two sessions');
    const kind = m[1] === 'w' ? OP_WRITE : OP_READ;
    const value = v === 0 ? null : v;
    if (kind === OP_WRITE) b.write(e.t, key, value, i + 1); else b.read(e.t, key, value, i + 1);
    if (e.t === 0 && (kind !== OP_WRITE || value !== null)) firstInit = false;
  });
  if (b.txnCount > 0 && firstInit) b.omitTxn(0);
  return b.build();
}

function randomText(rng: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const blank = (): string => (rng() < 0.7 ? '' : pick([' ', '\t', '  ', ' \t', '\r', ' \r ']));
  const int = (small: number): string => {
    const r = rng();
    if (r < 0.75) return String(Math.floor(rng() * small));
    if (r < 0.8) return `00${Math.floor(rng() * small)}`;
    if (r < 0.85) return `-${Math.floor(rng() * small)}`;
    if (r < 0.88) return '-0';
    if (r < 0.92) return String(2 ** 31 + Math.floor(rng() * 1000)); // past the int tables
    if (r < 0.96) return `9007199254740${990 + Math.floor(rng() * 20)}`; // around 2^53
    return `1234567890123456789${Math.floor(rng() * 10)}`; // beyond doubles
  };
  const sessions = 1 + Math.floor(rng() * 4);
  const out: string[] = [];
  if (rng() < 0.2) out.push('\uFEFF');
  const crlf = rng() < 0.3;
  const n = Math.floor(rng() * 60);
  const txnSession = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    if (rng() < 0.05) { out.push(`${blank()}${crlf ? '\r\n' : '\n'}`); continue; }
    const tx = String(1 + Math.floor(rng() * 12));
    let s = txnSession.get(tx);
    if (s === undefined) { s = String(1 + Math.floor(rng() * sessions)); txnSession.set(tx, s); }
    const parts = [int(8), rng() < 0.2 ? '0' : int(1000), s, tx];
    out.push(`${blank()}${pick(['r', 'w'])}${blank()}(${parts.map((p) => `${blank()}${p}${blank()}`).join(',')})${blank()}`);
    out.push(i + 1 < n || rng() < 0.5 ? (crlf ? '\r\n' : '\n') : '');
  }
  return out.join('');
}

async function streamed(text: string, chunk: number): Promise<History> {
  const inp = HistoryInput.fromBytes(new TextEncoder().encode(text), 'x.txt', { chunkBytes: chunk });
  return readPolysiText(inp);
}

test('byte scanner = reference parser on 2,000 random files, streamed in random chunks', async () => {
  const rng = mulberry32(42);
  let compared = 0;
  for (let i = 0; i < 2000; i++) {
    const text = randomText(rng);
    let want: History;
    try {
      want = reference(text, 'x.txt');
    } catch {
      continue; // -0 and 0 collapse, so a random txn may land in two sessions: not this test's point
    }
    const got = await streamed(text, 1 + Math.floor(rng() * 64));
    assert.deepStrictEqual(got, want, `case ${i}: ${JSON.stringify(text)}`);
    assert.deepStrictEqual(parsePolysiText(text, 'x.txt'), want, `case ${i} (in memory)`);
    compared++;
  }
  assert.ok(compared > 1500, `only ${compared} cases compared`);
});

test('a broken line (non-ASCII, a stray character) fails on that line with a column in characters', async () => {
  const rng = mulberry32(7);
  for (let i = 0; i < 300; i++) {
    const lines = randomText(rng).split('\n').filter((l) => LINE.test(l));
    if (lines.length === 0) continue;
    const bad = Math.floor(rng() * lines.length);
    const l = lines[bad]!;
    const at = Math.floor(rng() * (l.length + 1));
    const junk = ['é', 'x', '€', '😀', '(', ')'][Math.floor(rng() * 6)]!;
    lines[bad] = l.slice(0, at) + junk + l.slice(at);
    if (LINE.test(lines[bad]!)) continue;
    const text = lines.join('\n');
    let err: unknown;
    try { await streamed(text, 1 + Math.floor(rng() * 32)); } catch (e) { err = e; }
    // The first broken line is `bad` unless the edit made an earlier txn/session clash: none here
    // (only one line changed), so the error names line bad + 1.
    assert.ok(err instanceof InputError, `case ${i}: no error for ${JSON.stringify(lines[bad])}`);
    assert.equal(err.loc, bad + 1, `case ${i}: ${err.message}`);
    const col = /column ([0-9]+)/.exec(err.message);
    assert.ok(col !== null, err.message);
    // The column counts UTF-16 characters of the line, as before the byte scanner.
    assert.ok(Number(col[1]) <= lines[bad]!.length + 1, err.message);
    assert.ok(err.message.includes(JSON.stringify(lines[bad]!.trim()).slice(1, 10)), err.message);
  }
});
