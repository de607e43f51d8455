// Property tests for the parsers of the "more formats" (Elle EDN / JSON, Cobra, dbcop JSON and
// text), seeded: random bytes, random mutations of valid inputs, and every truncation prefix of
// small valid inputs. Properties:
// - a parser returns a History passing assertHistory, or throws an InputError; nothing else,
//   and no hang (each test has a timeout);
// - a History it returns, if the format's writer accepts it, reads back the same;
// - a truncated input is an error, except where the format cannot tell (documented per format:
//   a cut at a line boundary of line-oriented layouts, at a record boundary of Cobra logs);
// - the streaming readers give the same result (or the same error) whatever the chunk size.
// POLYSI_FUZZ_SCALE (default 1) multiplies the case counts; POLYSI_FUZZ_SEED picks the seed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { InputError } from '../../src/history/errors.ts';
import { assertHistory, type History } from '../../src/history/model.ts';
import { parseEdnBytes } from '../../src/formats/elle-edn.ts';
import { parseElleJsonBytes } from '../../src/formats/elle-json.ts';
import { writeJepsen } from '../../src/formats/elle-writer.ts';
import { parseCobraFiles } from '../../src/formats/cobra.ts';
import { parseDbcopJsonBytes, writeDbcopJson } from '../../src/formats/dbcop-json.ts';
import { parseDbcopHist, writeDbcopHist } from '../../src/formats/dbcop-hist.ts';
import { notesOf } from '../../src/formats/io-notes.ts';
import { contentDiff } from '../../src/cli/convert.ts';
import { mulberry32 } from '../support/prng.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

// Seeds: hand-written inputs always; the shared Elle histories too when they are there.
const NO_DATA = needsData();
const ELLE = `${DATA_DIR}/elle/`;
const SCALE = Math.max(0.01, Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1') || 1);
const SEED = Number(process.env['POLYSI_FUZZ_SEED'] ?? '4242') >>> 0;
const n = (base: number): number => Math.max(1, Math.round(base * SCALE));
const TIMEOUT = { timeout: Math.max(120_000, 120_000 * SCALE) };


const enc = new TextEncoder();
const dec = new TextDecoder(); // non-fatal, as readFile(..., 'utf8') is

interface Seed {
  bytes: Uint8Array;
  /** May the prefix of this length parse successfully (the cut is undetectable)? */
  cutOk(len: number): boolean;
}

interface Fmt {
  name: string;
  parse(bytes: Uint8Array, chunkBytes?: number): History;
  write?(h: History): string;
  alphabet: Uint8Array;
  seeds: Seed[];
  streaming: boolean;
}

/** Line-per-form layouts: a cut is undetectable when what is left ends with a complete line. */
function lineCut(text: string, formEnd: number): (len: number) => boolean {
  return (len) => {
    let p = text.slice(0, len);
    // Trailing blanks, commas and a (possibly cut) comment line are not forms.
    for (;;) {
      const before = p;
      p = p.replace(/[\s,]+$/, '');
      const nl = p.lastIndexOf('\n');
      if (p.slice(nl + 1).trimStart().startsWith(';')) p = p.slice(0, nl + 1);
      if (p === before) break;
    }
    if (p === '') return false; // no forms at all is an error
    return p.charCodeAt(p.length - 1) === formEnd && (len === p.length ? text.length === len || /[\s,]/.test(text[len]!) : true);
  };
}

/** Layouts with one enclosing structure: only the whole input (up to trailing blanks) parses. */
function wholeCut(text: string): (len: number) => boolean {
  const full = text.trimEnd().length;
  return (len) => len >= full;
}

function textSeed(text: string, cut: (text: string) => (len: number) => boolean): Seed {
  return { bytes: enc.encode(text), cutOk: cut(text) };
}

const PAIRING = `{:type :invoke, :f :txn, :value [[:w :x 1] [:r :y nil]], :process 0, :index 0}
{:type :invoke, :f :start, :value nil, :process :nemesis, :index 1}
{:type :invoke, :f :txn, :value [[:append "k" 1] [:r "k" nil]], :process 1, :index 2}
{:type :ok, :f :txn, :value [[:w :x 1] [:r :y 5]], :process 0, :index 4, :time 1.5}
{:type :fail, :f :txn, :value [[:append "k" 1] [:r "k" nil]], :process 1, :index 5}
{:type :ok, :f :txn, :value [[:r "k" [1 2]] [:r 3 nil]], :process 3, :index 9}
`;

const ednSources = [
  ...(NO_DATA !== false ? [] : [readFileSync(`${ELLE}paper-example.edn`, 'utf8'), readFileSync(`${ELLE}si-without-g-single.edn`, 'utf8')]),
  PAIRING,
];
const ednHistories = ednSources.map((s) => parseEdnBytes(enc.encode(s)));

const EDN: Fmt = {
  name: 'edn',
  parse: (b, chunkBytes) => parseEdnBytes(b, 'f.edn', chunkBytes === undefined ? {} : { chunkBytes }),
  write: (h) => writeJepsen(h, 'edn'),
  alphabet: enc.encode('{}[]()#_:;, \n"\\0123456789-+.abcdefghijklmnopqrstuvwxyz^~@`\'NM/'),
  seeds: [
    ...ednSources.map((s) => textSeed(s, (t) => lineCut(t, 0x7d))),
    textSeed(`[${PAIRING}]\n`, wholeCut),
    textSeed(`#jepsen.history.Op{:type :ok, :value [[:w 1 #_2 3]] :extra #{\\a ##Inf 1/2 sym}}\n`, (t) => lineCut(t, 0x7d)),
  ],
  streaming: true,
};

const ELLE_JSON: Fmt = {
  name: 'elle-json',
  parse: (b, chunkBytes) => parseElleJsonBytes(b, 'f.json', chunkBytes === undefined ? {} : { chunkBytes }),
  write: (h) => writeJepsen(h, 'json'),
  alphabet: enc.encode('{}[],:"\\ \n0123456789-+.eEtruefalsnokivp'),
  seeds: [
    ...ednHistories.map((h) => textSeed(writeJepsen(h, 'json'), wholeCut)),
    textSeed(writeJepsen(ednHistories[ednHistories.length - 1]!, 'json').slice(1).replace(/\]\n$/, '\n').replace(/,\n/g, '\n'), (t) => lineCut(t, 0x7d)),
    textSeed('[{"type":"ok","value":[["w",12345678901234567890,"\\u00e9\\n"],["r","x",null]],"time":1e3}]', wholeCut),
  ],
  streaming: true,
};

function rec(tag: string, ...xs: bigint[]): number[] {
  const b = Buffer.alloc(1 + 8 * xs.length);
  b[0] = tag.charCodeAt(0);
  xs.forEach((x, i) => b.writeBigInt64BE(BigInt.asIntN(64, x), 1 + 8 * i));
  return [...b];
}

function cobraSeed(records: number[][]): Seed {
  const bounds = new Set<number>([0]);
  let at = 0;
  for (const r of records) bounds.add((at += r.length));
  return { bytes: new Uint8Array(records.flat()), cutOk: (len) => bounds.has(len) };
}

const COBRA: Fmt = {
  name: 'cobra',
  parse: (b) => parseCobraFiles('logs', [{ label: 'T1', path: 'T1.log', bytes: b }]),
  alphabet: new Uint8Array([0x53, 0x57, 0x52, 0x43, 0x41, 0x00, 0x01, 0x02, 0xbe, 0xeb, 0xde, 0xad, 0xef, 0xff]),
  seeds: [
    cobraSeed([rec('S', 1n), rec('W', 10n, 1n, 5n), rec('R', 0xbebeebeen, 0xbebeebeen, 2n, 9n), rec('C', 1n),
      rec('S', 2n), rec('R', 1n, 10n, 1n, 5n), rec('W', 11n, 2n, 6n), rec('A', 2n),
      rec('S', 3n), rec('R', 0xdeadbeefn, 0xdeadbeefn, 3n, 0n), rec('R', 2n, 11n, 2n, 6n)]),
    cobraSeed([rec('S', -1n), rec('W', -10n, -1n, -5n), rec('C', -1n)]),
  ],
  streaming: false,
};

const DBCOP_JSON_TEXT = `{"params":{"id":7,"n_node":2,"n_variable":10,"n_transaction":2,"n_event":3},
"info":"x","start":"2022-07-22T21:44:17+08:00","end":"",
"data":[
 [{"events":[{"write":true,"variable":1,"value":5,"success":true},{"write":false,"variable":2,"value":0,"success":true}],"success":true},
  {"events":[{"write":true,"variable":3,"value":6,"success":false,"start_time":1,"end_time":2}],"success":false}],
 [{"events":[{"write":false,"variable":1,"value":5,"success":true}],"success":true}]
]}
`;

const DBCOP_JSON: Fmt = {
  name: 'dbcop-json',
  parse: (b) => parseDbcopJsonBytes(b, 'f.json'),
  write: writeDbcopJson,
  alphabet: enc.encode('{}[],:"\\ \n0123456789-.eEtruefalsnwrivbcdpm_'),
  seeds: [
    textSeed(DBCOP_JSON_TEXT, wholeCut),
    textSeed('[[{"events":[{"Write":{"variable":"x","version":1}},["r","x",null]],"committed":true}],[]]', wholeCut),
  ],
  streaming: false,
};

const DBCOP_HIST: Fmt = {
  name: 'dbcop-hist',
  parse: (b) => parseDbcopHist(dec.decode(b), 'f.hist'),
  write: writeDbcopHist,
  alphabet: enc.encode('[]!:=?-/ \t\r\nxyz_0123456789'),
  seeds: [
    '// session 1\n[x:=1 y:=1] [z==2 z:=3]\n[y:=3]!\n---\n// session 2\n[a==1 b:=3] [c:=3]\n[d==?]\n',
    '[x:=1]\r\n---\n---\n [ x==1  y:=18446744073709551615 ]! \n',
  ].map((t) => textSeed(t, (text) => (len) => {
    const p = text.slice(0, len).replace(/[ \t]+$/, '');
    return p === '' || p.endsWith('\n');
  })),
  streaming: false,
};

const FORMATS: Fmt[] = [EDN, ELLE_JSON, COBRA, DBCOP_JSON, DBCOP_HIST];

/** Runs a parse: 'ok' with the History, or 'error' with the InputError; anything else fails the test. */
function attempt(fmt: Fmt, bytes: Uint8Array, chunkBytes?: number): { h?: History; err?: InputError } {
  try {
    const h = fmt.parse(bytes, chunkBytes);
    assertHistory(h);
    return { h };
  } catch (e) {
    if (e instanceof InputError) return { err: e };
    throw new Error(`${fmt.name}: a non-InputError escaped on ${JSON.stringify(dec.decode(bytes.slice(0, 300)))}: ${String((e as Error)?.stack ?? e)}`);
  }
}

/** A History the parser returned must survive its own writer (when the writer accepts it). */
function checkWriteBack(fmt: Fmt, h: History, input: Uint8Array): void {
  if (fmt.write === undefined) return;
  let text: string;
  try {
    text = fmt.write(h);
  } catch (e) {
    assert.ok(e instanceof Error && /^cannot write /.test(e.message), `${fmt.name} writer threw ${String(e)}`);
    return;
  }
  const back = attempt(fmt, enc.encode(text));
  assert.ok(back.h !== undefined, `${fmt.name}: written text does not parse: ${back.err?.message}\ninput: ${dec.decode(input.slice(0, 300))}`);
  assert.equal(contentDiff(h, back.h), null, `${fmt.name}: write -> parse changed the history; input: ${dec.decode(input.slice(0, 300))}`);
}

function outcomeText(r: { h?: History; err?: InputError }): string {
  if (r.err !== undefined) return `error ${r.err.message}`;
  const h = r.h!;
  return JSON.stringify([h.sessionLabels, [...h.sessionTxnStart], h.txnLabelTable.toArray(), [...h.txnStatus], [...h.txnOpStart], [...h.opKind],
    [...h.opKey], [...h.opValue], h.keyLabels, h.valueLabelTable.toArray(), [...h.listStart], [...h.listElems], [...h.txnLoc], notesOf(h)]);
}

function mutate(rnd: () => number, src: Uint8Array, alphabet: Uint8Array): Uint8Array {
  const out = [...src];
  const edits = 1 + Math.floor(rnd() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rnd() * (out.length + 1));
    const byte = rnd() < 0.8 ? alphabet[Math.floor(rnd() * alphabet.length)]! : Math.floor(rnd() * 256);
    const r = rnd();
    if (r < 0.35 && at < out.length) out[at] = byte;
    else if (r < 0.65) out.splice(at, 0, byte);
    else if (r < 0.9 && at < out.length) out.splice(at, 1 + Math.floor(rnd() * 3));
    else if (out.length > 0) {
      // Duplicate a slice: repeated structure (double invokes, duplicate ids) is interesting.
      const from = Math.floor(rnd() * out.length);
      out.splice(at, 0, ...out.slice(from, from + 1 + Math.floor(rnd() * 40)));
    }
  }
  return new Uint8Array(out);
}

for (const fmt of FORMATS) {
  test(`fuzz-more ${fmt.name}: the seeds parse`, () => {
    for (const s of fmt.seeds) {
      const r = attempt(fmt, s.bytes);
      assert.ok(r.h !== undefined, `${fmt.name} seed: ${r.err?.message}`);
      assert.ok(r.h.txnCount > 0);
      checkWriteBack(fmt, r.h, s.bytes);
    }
  });

  test(`fuzz-more ${fmt.name}: random bytes`, TIMEOUT, () => {
    const rnd = mulberry32(SEED ^ 0x1111);
    for (let i = 0; i < n(400); i++) {
      const len = Math.floor(rnd() * 120);
      const bytes = new Uint8Array(len);
      const biased = rnd() < 0.7;
      for (let j = 0; j < len; j++) bytes[j] = biased ? fmt.alphabet[Math.floor(rnd() * fmt.alphabet.length)]! : Math.floor(rnd() * 256);
      const r = attempt(fmt, bytes);
      if (r.h !== undefined) checkWriteBack(fmt, r.h, bytes);
    }
  });

  test(`fuzz-more ${fmt.name}: mutations of valid inputs`, TIMEOUT, () => {
    const rnd = mulberry32(SEED ^ 0x2222);
    let parsed = 0;
    for (let i = 0; i < n(600); i++) {
      const seed = fmt.seeds[i % fmt.seeds.length]!;
      const bytes = mutate(rnd, seed.bytes, fmt.alphabet);
      const r = attempt(fmt, bytes);
      if (r.h !== undefined) {
        parsed++;
        checkWriteBack(fmt, r.h, bytes);
      }
      if (fmt.streaming) {
        // Same outcome (History or error message) when streamed through a small buffer.
        const chunk = 1 + Math.floor(rnd() * 24);
        assert.equal(outcomeText(attempt(fmt, bytes, chunk)), outcomeText(r), `${fmt.name} chunk ${chunk}: ${dec.decode(bytes)}`);
      }
    }
    assert.ok(parsed > 0, 'some mutations still parse (the mutator is not destroying everything)');
  });

  test(`fuzz-more ${fmt.name}: every truncation prefix is an error unless undetectable`, TIMEOUT, () => {
    for (const seed of fmt.seeds) {
      const full = attempt(fmt, seed.bytes).h!;
      for (let len = 0; len < seed.bytes.length; len++) {
        const prefix = seed.bytes.subarray(0, len);
        const r = attempt(fmt, prefix);
        if (r.h === undefined) continue;
        assert.ok(seed.cutOk(len), `${fmt.name}: prefix of ${len}/${seed.bytes.length} bytes parsed as a shorter history: ${JSON.stringify(dec.decode(prefix))}`);
        assert.ok(r.h.opCount <= full.opCount);
        if (fmt.streaming) assert.equal(outcomeText(attempt(fmt, prefix, 1 + (len % 7))), outcomeText(r));
      }
    }
  });
}
