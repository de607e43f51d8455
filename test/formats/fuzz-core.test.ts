// Property tests for the three core parsers (text, dbcop, jsonl) with a seeded PRNG: random
// inputs, random mutations of valid files and every truncation prefix of small valid files.
// Property: a parser returns a History that passes assertHistory (and, if the format's writer
// accepts it, survives write → parse unchanged) or throws an InputError; nothing else, no hang.
// POLYSI_FUZZ_SCALE (default 1) multiplies the case counts; POLYSI_FUZZ_SEED picks the seed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { assertHistory, TXN_ABORTED, TXN_UNKNOWN, type History, valueLabel } from '../../src/history/model.ts';
import { parsePolysiText, writePolysiText } from '../../src/formats/polysi-text.ts';
import { parseDbcopBincode, writeDbcopBincode } from '../../src/formats/dbcop-bincode.ts';
import { parseJsonl, writeJsonl } from '../../src/formats/jsonl.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { mulberry32 } from '../support/prng.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

// Seeds: in-repo histories always; the shared real histories too when they are there (the fuzz
// runs either way; the real dbcop file's own test needs them).
const NO_DATA = needsData();
const DATA = `${DATA_DIR}/`;
const EXAMPLE = fileURLToPath(new URL('../../examples/long-fork.txt', import.meta.url));
const SCALE = Math.max(0.01, Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1') || 1);
const SEED = Number(process.env['POLYSI_FUZZ_SEED'] ?? '20240611') >>> 0;
const n = (base: number): number => Math.max(1, Math.round(base * SCALE));


interface Fmt {
  name: string;
  parse(bytes: Uint8Array): History;
  write(h: History): Uint8Array;
  /** Bytes that make mutations likely to stay near the grammar. */
  alphabet: Uint8Array;
  seeds: Uint8Array[];
}

const enc = new TextEncoder();
const dec = new TextDecoder(); // non-fatal: invalid UTF-8 becomes U+FFFD, as readFile('utf8') does

function mixedHistory(): History {
  const b = new HistoryBuilder('mixed');
  const s1 = b.session('s1'), s2 = b.session('s2');
  const t1 = b.beginTxn(s1, 't1');
  b.write(t1, 1, 1);
  b.read(t1, 2, null);
  const t2 = b.beginTxn(s2, 't2', TXN_ABORTED);
  b.write(t2, 2, 2);
  const t3 = b.beginTxn(s2, 't3');
  b.read(t3, 1, 1);
  b.write(t3, 3, (1n << 63n) + 5n); // beyond 2^53, within u64
  return b.build();
}

function listHistory(): History {
  const b = new HistoryBuilder('lists');
  const t1 = b.beginTxn(b.session('a'), 'x', TXN_UNKNOWN);
  b.append(t1, 'l', 1);
  b.append(t1, 'l', 'two');
  b.readList(t1, 'l', [1, 'two']);
  b.readList(t1, 'm', []);
  return b.build();
}

const smallText = [
  new Uint8Array(readFileSync(EXAMPLE)),
  ...(NO_DATA !== false ? [] : readdirSync(`${DATA}small`).filter((f) => f.endsWith('.txt'))
    .map((f) => new Uint8Array(readFileSync(`${DATA}small/${f}`)))),
];
const textHistories = smallText.map((b) => parsePolysiText(dec.decode(b), 'seed'));

const FORMATS: Fmt[] = [
  {
    name: 'text',
    parse: (b) => parsePolysiText(dec.decode(b), 'fuzz.txt'),
    write: (h) => enc.encode(writePolysiText(h)),
    alphabet: enc.encode('rw(),-0123456789 \t\r\n\n\n'),
    seeds: [
      ...smallText,
      enc.encode('\uFEFF r( 1 , 0 , 2 , 3 ) \r\n\n w(-5,123456789012345678901,2,3)\nr(1,7,9,8)'),
    ],
  },
  {
    name: 'dbcop',
    parse: (b) => parseDbcopBincode(b, 'fuzz.bincode'),
    write: (h) => writeDbcopBincode(h),
    alphabet: Uint8Array.from([0, 0, 0, 0, 1, 1, 2, 8, 18, 0x7f, 0x80, 0xff]),
    seeds: [
      ...textHistories.map((h) => writeDbcopBincode(h)),
      writeDbcopBincode(mixedHistory()),
    ],
  },
  {
    name: 'jsonl',
    parse: (b) => parseJsonl(dec.decode(b), 'fuzz.jsonl'),
    write: (h) => enc.encode(writeJsonl(h)),
    alphabet: enc.encode('{}[]",:0123456789-nul rwappendsiontxops\n'),
    seeds: [
      ...textHistories.slice(0, 2).map((h) => enc.encode(writeJsonl(h))),
      enc.encode(writeJsonl(mixedHistory())),
      enc.encode(writeJsonl(listHistory())),
      enc.encode('{"session":1,"ops":[["w","k",{"int":"-99999999999999999999"}],["r","k",[null,"x"]]]}\n'),
    ],
  },
];

// A real dbcop file too large for every prefix: sample prefixes and mutations of it instead.
const REAL_DBCOP = NO_DATA !== false ? new Uint8Array(0)
  : new Uint8Array(readFileSync(`${DATA}polysi/valid/fig7/20_10_15_10000_0.5_uniform.bincode`));

/** Runs one case; returns 'ok' or 'error', fails the test on any other outcome. */
function check(fmt: Fmt, bytes: Uint8Array, what: string): 'ok' | 'error' {
  let h: History;
  try {
    h = fmt.parse(bytes);
  } catch (e) {
    if (e instanceof InputError) {
      assert.ok(Number.isFinite(e.loc), `${fmt.name} ${what}: loc ${e.loc}`);
      assert.ok(e.message.startsWith('fuzz.'), `${fmt.name} ${what}: message ${e.message}`);
      return 'error';
    }
    assert.fail(`${fmt.name} ${what}: threw ${String(e)} for ${JSON.stringify(Array.from(bytes.subarray(0, 200)))}`);
  }
  assertHistory(h);
  let out: Uint8Array | null = null;
  try {
    out = fmt.write(h);
  } catch (e) {
    // A writer may refuse (e.g. a text write of value 0 is fine, a write of a list is not), but
    // only with its own "cannot write" Error.
    assert.ok(e instanceof Error && e.message.startsWith('cannot write'), `${fmt.name} ${what}: writer threw ${String(e)}`);
  }
  if (out !== null) {
    const back = fmt.parse(out);
    assert.equal(diffHistories(h, back), null, `${fmt.name} ${what}: write → parse changed the history`);
  }
  return 'ok';
}

function mutate(rand: () => number, src: Uint8Array, alphabet: Uint8Array): Uint8Array {
  const bytes = Array.from(src);
  const edits = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rand() * (bytes.length + 1));
    const pick = (): number => (rand() < 0.7 ? alphabet[Math.floor(rand() * alphabet.length)]! : Math.floor(rand() * 256));
    switch (Math.floor(rand() * 5)) {
      case 0: if (at < bytes.length) bytes[at]! ^= 1 << Math.floor(rand() * 8); break; // flip a bit
      case 1: if (at < bytes.length) bytes[at] = pick(); break; // replace
      case 2: bytes.splice(at, 0, pick()); break; // insert
      case 3: bytes.splice(at, 1 + Math.floor(rand() * 3)); break; // delete
      default: { // duplicate a chunk (repeats records, txn ids, lengths)
        const len = Math.floor(rand() * 24);
        bytes.splice(at, 0, ...bytes.slice(at, at + len));
      }
    }
  }
  return Uint8Array.from(bytes);
}

for (const fmt of FORMATS) {
  test(`fuzz ${fmt.name}: every truncation prefix of small valid files`, { timeout: 60_000 }, (t) => {
    let cases = 0;
    const tally = { ok: 0, error: 0 };
    for (const seed of fmt.seeds) {
      tally[check(fmt, seed, 'seed')]++; // the seed itself must parse
      for (let len = 0; len < seed.length; len++) {
        tally[check(fmt, seed.subarray(0, len), `prefix ${len}`)]++;
        cases++;
      }
    }
    t.diagnostic(`${cases} prefixes: ${JSON.stringify(tally)}`);
    assert.ok(cases > 100, `${cases} prefixes`);
    if (fmt.name === 'dbcop') assert.equal(tally.ok, fmt.seeds.length); // only the whole file is valid
  });

  test(`fuzz ${fmt.name}: random mutations of valid files`, { timeout: 60_000 }, (t) => {
    const rand = mulberry32(SEED ^ fmt.name.length);
    const tally = { ok: 0, error: 0 };
    for (let i = 0; i < n(1500); i++) {
      const seed = fmt.seeds[Math.floor(rand() * fmt.seeds.length)]!;
      tally[check(fmt, mutate(rand, seed, fmt.alphabet), `mutation ${i} (seed ${SEED})`)]++;
    }
    t.diagnostic(`mutations: ${JSON.stringify(tally)}`);
    // The mutations must exercise both outcomes, or they test nothing.
    assert.ok(tally.error > 0 && (tally.ok > 0 || fmt.name === 'dbcop'), JSON.stringify(tally));
  });

  test(`fuzz ${fmt.name}: random inputs`, { timeout: 60_000 }, (t) => {
    const rand = mulberry32(SEED + 7 * fmt.name.length);
    const tally = { ok: 0, error: 0 };
    for (let i = 0; i < n(1000); i++) {
      const len = Math.floor(rand() * 160);
      const bytes = new Uint8Array(len);
      const near = rand() < 0.5; // half from the format's alphabet, half arbitrary bytes
      for (let j = 0; j < len; j++) {
        bytes[j] = near ? fmt.alphabet[Math.floor(rand() * fmt.alphabet.length)]! : Math.floor(rand() * 256);
      }
      tally[check(fmt, bytes, `random ${i} (seed ${SEED})`)]++;
    }
    t.diagnostic(`random inputs: ${JSON.stringify(tally)}`);
  });
}

test('fuzz dbcop: sampled prefixes and mutations of a real file', { skip: NO_DATA, timeout: 60_000 }, () => {
  const rand = mulberry32(SEED ^ 0xdbc0);
  const fmt = FORMATS.find((f) => f.name === 'dbcop')!;
  assert.equal(check(fmt, REAL_DBCOP, 'real file'), 'ok');
  for (let i = 0; i < n(150); i++) {
    const len = Math.floor(rand() * REAL_DBCOP.length);
    assert.equal(check(fmt, REAL_DBCOP.subarray(0, len), `real prefix ${len}`), 'error');
  }
  for (let i = 0; i < n(150); i++) check(fmt, mutate(rand, REAL_DBCOP, fmt.alphabet), `real mutation ${i}`);
});

test('jsonl: pathological nesting and huge literals are InputErrors', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  for (const line of [
    `{"session":1,"ops":[["r",1,[${deep}]]]}`,
    `{"session":1,"ops":${deep}}`,
    `{"session":${deep},"ops":[]}`,
    `{"session":1,"ops":[["w",1,{"int":"${'9'.repeat(5000)}"}],["w",1,{"int":"x"}]]}`,
  ]) {
    assert.throws(() => parseJsonl(line, 'deep.jsonl'), InputError);
  }
});

test('text: a very long line and a huge integer are handled', () => {
  assert.throws(() => parsePolysiText(`r(1,2,3,4)${' '.repeat(1_000_000)}x`, 'long.txt'), InputError);
  const h = parsePolysiText(`w(1,${'7'.repeat(10_000)},1,1)\n`, 'huge.txt');
  assert.equal(valueLabel(h, 1), '7'.repeat(10_000));
});
