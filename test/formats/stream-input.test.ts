// Inputs read once, as a stream: pipes, '-', /dev/stdin, FIFOs and devices through the bundled
// CLI (real processes, real pipes); the chunked text and JSONL parsers against the in-memory
// ones at tiny chunk sizes; the limits that end endless or oversized inputs; the parse deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../src/history/errors.ts';
import { HistoryInput, readHistory, TimeLimitError } from '../../src/formats/index.ts';
import { parsePolysiText, writePolysiText } from '../../src/formats/polysi-text.ts';
import { parseJsonl, writeJsonl } from '../../src/formats/jsonl.ts';
import { writeDbcopBincode } from '../../src/formats/dbcop-bincode.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';
import { mulberry32 } from '../support/gen.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'polysi.mjs'); // runs the bundle in dist/
const BUNDLE = join(ROOT, 'dist', 'polysi.mjs');
const LONG_FORK = join(ROOT, 'examples', 'long-fork.txt');
const BANK = join(ROOT, 'examples', 'bank-valid.jsonl');
const tmp = scratchDir('polysi-stream-');
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const built = (): string | false => needs(existsSync(BUNDLE), `no bundled CLI at ${BUNDLE} (run node scripts/build.mjs)`);
const unix = (): string | false => needs(process.platform !== 'win32' && existsSync('/dev/zero') && spawnSync('mkfifo', ['--version']).status === 0,
  'pipes, FIFOs and /dev/zero need a Unix system with mkfifo');

interface Run { code: number | null; out: string; err: string }

/** Runs `polysi ARGS` with `stdin` piped in (or through `sh -c`), bounded by a generous timer. */
function cli(args: string[], opts: { stdin?: Buffer; shell?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = opts.shell !== undefined
      ? spawn('sh', ['-c', opts.shell], { stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`polysi ${args.join(' ')} did not finish: ${err}`)); }, 60_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
    child.stdin.on('error', () => {}); // the CLI may stop reading early (an error)
    child.stdin.end(opts.stdin ?? Buffer.alloc(0));
  });
}

test('`cat h.txt | polysi check /dev/stdin` reads the pipe once: the long fork is found', { skip: built() || unix() }, async () => {
  // Before: detection read the start, the parser reopened /dev/stdin and saw an empty pipe
  // (0 transactions, VALID).
  const r = await cli([], { shell: `cat '${LONG_FORK}' | '${process.execPath}' '${CLI}' check /dev/stdin --json` });
  assert.equal(r.code, 1, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.verdict, 'violation');
  assert.equal(j.counts.transactions, 6);
});

test('`-` is standard input, for check and stat, text and jsonl', { skip: built() }, async () => {
  const lf = await cli(['check', '-', '--json'], { stdin: readFileSync(LONG_FORK) });
  assert.equal(lf.code, 1, lf.err);
  assert.equal(JSON.parse(lf.out).counts.transactions, 6);
  const bank = await cli(['check', '-', '--json'], { stdin: readFileSync(BANK) });
  assert.equal(bank.code, 0, bank.err);
  assert.equal(JSON.parse(bank.out).verdict, 'valid');
  // The text summary names standard input as the transactions' locations do.
  const text = await cli(['check', '-'], { stdin: readFileSync(LONG_FORK) });
  assert.match(text.out, /^<stdin> \(text\): /);
  assert.match(text.out, /<stdin> line \d+\)/);
  const stat = await cli(['stat', '-', '--json'], { stdin: readFileSync(LONG_FORK) });
  assert.equal(stat.code, 0, stat.err);
  assert.match(stat.out, /"transactions":\{"total":6,/);
  // Node gives a child a socket, not a pipe, as standard input: /dev/stdin cannot be reopened
  // (ENXIO; it used to be a read error) and is read as standard input instead.
  const sock = await cli(['check', '/dev/stdin', '--json'], { stdin: readFileSync(LONG_FORK) });
  assert.equal(sock.code, 1, sock.err);
  assert.equal(JSON.parse(sock.out).counts.transactions, 6);
  // An empty standard input: detection says so instead of hanging or guessing.
  const empty = await cli(['check', '-']);
  assert.equal(empty.code, 2);
  assert.match(empty.err, /<stdin>: could not tell the format of an empty input/);
});

test('a named FIFO is opened and read once (it used to hang on the second open)', { skip: built() || unix() }, async () => {
  const fifo = join(tmp, 'h.fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const running = cli(['check', fifo, '--json']);
  // The writer opens the FIFO after the reader: the write end closes once the file is in.
  await new Promise<void>((resolve, reject) => {
    const w = createWriteStream(fifo);
    w.on('error', reject);
    w.end(readFileSync(LONG_FORK), () => resolve());
  });
  const r = await running;
  assert.equal(r.code, 1, r.err);
  assert.equal(JSON.parse(r.out).counts.transactions, 6);
});

test('/dev/zero ends with a clear error, not with memory exhaustion', { skip: built() || unix() }, async () => {
  const auto = await cli(['check', '/dev/zero']);
  assert.equal(auto.code, 2, auto.err);
  assert.match(auto.err, /\/dev\/zero: could not tell the format/);
  for (const fmt of ['text', 'jsonl']) {
    const r = await cli(['check', '/dev/zero', '--format', fmt]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /\/dev\/zero byte 0: binary data \(a NUL byte\) where text was expected/);
  }
  // A format read whole stops at the limit for inputs of unknown size (small here).
  await assert.rejects(readHistory('/dev/zero', 'dbcop', { inputBytesMax: 1 << 20 }), (e: unknown) =>
    e instanceof InputError && e.code === 'io' && /input exceeds 1 MiB, the most read from a pipe or device/.test(e.message));
});

/** A text history with `n` txns of a few ops each, blank lines and CRLF here and there. */
function textHistory(n: number): string {
  const lines: string[] = [];
  for (let t = 1; t <= n; t++) {
    const s = 1 + (t % 7);
    lines.push(`w(${t % 13},${t},${s},${t})`);
    lines.push(`r(${(t * 5) % 13},${t > 13 ? t - 13 : 0},${s},${t})${t % 9 === 0 ? '\r' : ''}`);
    if (t % 11 === 0) lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

test('text and jsonl are parsed from a stream of chunks: every chunk size gives the same History', async () => {
  const text = textHistory(120);
  const h = parsePolysiText(text, 'x');
  const files = { text: join(tmp, 'h.txt'), jsonl: join(tmp, 'h.jsonl') };
  writeFileSync(files.text, text);
  writeFileSync(files.jsonl, writeJsonl(h));
  assert.equal(diffHistories(parseJsonl(writeJsonl(h)), h), null);
  for (const chunkBytes of [1, 2, 3, 7, 64, 1000, 1 << 20]) {
    for (const [fmt, path] of Object.entries(files)) {
      let calls = 0, last = 0;
      const r = await readHistory(path, 'auto', { chunkBytes, onProgress: (read, total) => { calls++; last = read; assert.equal(total, readFileSync(path).length); } });
      assert.equal(r.format, fmt);
      assert.equal(diffHistories(r.history, h), null, `${fmt} at ${chunkBytes}-byte chunks`);
      assert.equal(last, readFileSync(path).length);
      assert.ok(calls >= Math.ceil(last / chunkBytes), `${calls} progress calls`);
    }
  }
  // A format read whole (dbcop bincode) gets the same bytes whatever the chunk size.
  const bin = join(tmp, 'h.bincode');
  writeFileSync(bin, writeDbcopBincode(h));
  const whole = (await readHistory(bin)).history; // (dbcop numbers sessions by position)
  assert.equal(whole.opCount, h.opCount);
  for (const chunkBytes of [1, 7, 4096]) {
    const r = await readHistory(bin, 'auto', { chunkBytes });
    assert.equal(r.format, 'dbcop');
    assert.equal(diffHistories(r.history, whole), null, `dbcop at ${chunkBytes}-byte chunks`);
  }
  // A file without a final newline, and with a byte-order mark.
  const bom = join(tmp, 'bom.txt');
  writeFileSync(bom, `\ufeff${writePolysiText(h).trimEnd()}`);
  for (const chunkBytes of [1, 5, 1 << 20]) {
    assert.equal(diffHistories((await readHistory(bom, 'text', { chunkBytes })).history, h), null, `bom at ${chunkBytes}`);
  }
});

test('errors from the chunked parsers name the same line (and column) as the in-memory ones', async () => {
  const text = textHistory(50).replace('w(7,7,1,7)', 'w(7,x,1,7)');
  const path = join(tmp, 'bad.txt');
  writeFileSync(path, text);
  let want = '';
  try { parsePolysiText(text, path); } catch (e) { want = (e as Error).message; }
  assert.match(want, /line \d+: .*column 5: expected an integer value/);
  for (const chunkBytes of [1, 3, 17, 1 << 20]) {
    await assert.rejects(readHistory(path, 'text', { chunkBytes }), (e: unknown) => e instanceof InputError && e.message === want);
  }
  const jl = join(tmp, 'bad.jsonl');
  writeFileSync(jl, '{"session":"s","txn":"a","ops":[["w","k",1]]}\n\n{"session":"s","txn":"b","ops":[["w","k",2]],}\n');
  for (const chunkBytes of [1, 4, 1 << 20]) {
    await assert.rejects(readHistory(jl, 'jsonl', { chunkBytes }), (e: unknown) =>
      e instanceof InputError && /bad\.jsonl line 3: expected one JSON object per line/.test(e.message));
  }
});

test('lineBlocks: whole lines only, NUL bytes and overlong lines are errors with their byte offset', async () => {
  const blocks = async (s: string | Uint8Array, chunkBytes: number, max = 100): Promise<string[]> => {
    const out: string[] = [];
    const bytes = typeof s === 'string' ? Buffer.from(s) : s;
    for await (const b of HistoryInput.fromBytes(bytes, 'mem', { chunkBytes }).lineBlocks(max)) out.push(Buffer.from(b).toString());
    return out;
  };
  for (const chunkBytes of [1, 2, 4, 100]) {
    const got = await blocks('ab\ncd\n\nef', chunkBytes);
    assert.equal(got.join(''), 'ab\ncd\n\nef');
    for (const b of got.slice(0, -1)) assert.ok(b.endsWith('\n'), JSON.stringify(got));
  }
  await assert.rejects(blocks(Buffer.from('r(1,0,1,1)\nw(\u0000'), 4), (e: unknown) =>
    e instanceof InputError && e.message === 'mem byte 13: binary data (a NUL byte) where text was expected');
  await assert.rejects(blocks(`ab\n${'x'.repeat(300)}\n`, 8), (e: unknown) =>
    e instanceof InputError && /^mem byte 3: the line starting here is longer than 100 bytes/.test(e.message));
});

test('lineBlocks from a file (two read buffers used in turn, the next read ahead): 300 random files and chunk sizes give the file back, a line per block boundary, each block intact until the next', async () => {
  const rng = mulberry32(11);
  for (let i = 0; i < 300; i++) {
    // Lines of 0-40 bytes, now and then one longer than several chunks; with or without a last newline.
    const lines: string[] = [];
    const n = Math.floor(rng() * 60);
    for (let j = 0; j < n; j++) {
      const len = rng() < 0.05 ? Math.floor(rng() * 400) : Math.floor(rng() * 40);
      lines.push(Array.from({ length: len }, () => String.fromCharCode(97 + Math.floor(rng() * 26))).join(''));
    }
    const text = lines.join('\n') + (rng() < 0.5 ? '\n' : '');
    const path = join(tmp, `blocks-${i}.txt`);
    writeFileSync(path, text);
    const chunkBytes = 1 + Math.floor(rng() * (rng() < 0.5 ? 8 : 200));
    const inp = await HistoryInput.open(path, { chunkBytes });
    const head = rng() < 0.3 ? Buffer.from(await inp.head(1 + Math.floor(rng() * 50))).toString() : null;
    const got: string[] = [];
    let at = 0;
    try {
      for await (const b of inp.lineBlocks(1 << 20)) {
        const s = Buffer.from(b).toString();
        // The block is what the file holds there (a buffer read into too early would differ).
        assert.equal(s, text.slice(at, at + s.length), `file ${i}, chunks of ${chunkBytes}: block at ${at}`);
        at += s.length;
        got.push(s);
        await new Promise((r) => setImmediate(r)); // let a read ahead complete while the block is held
        assert.equal(Buffer.from(b).toString(), s, `file ${i}: block at ${at - s.length} changed before the next was asked for`);
      }
    } finally {
      await inp.close();
    }
    assert.equal(got.join(''), text, `file ${i}, chunks of ${chunkBytes}`);
    for (const b of got.slice(0, -1)) assert.ok(b.endsWith('\n'), `file ${i}: a block ends inside a line`);
    if (head !== null) assert.ok(text.startsWith(head));
  }
});

test('lineBlocks from a file: a consumer that stops early (a parse error) closes the file cleanly', async () => {
  const path = join(tmp, 'early-stop.txt');
  writeFileSync(path, 'r(1,0,1,1)\n'.repeat(5000) + 'oops\n' + 'r(1,0,1,1)\n'.repeat(5000));
  for (const chunkBytes of [7, 4096]) {
    await assert.rejects(readHistory(path, 'text', { chunkBytes }), (e: unknown) => e instanceof InputError && /line 5001/.test(e.message));
  }
});

test('the parse deadline: reading stops with TimeLimitError(parse)', async () => {
  const path = join(tmp, 'big.txt');
  writeFileSync(path, textHistory(2000));
  await assert.rejects(readHistory(path, 'auto', { deadlineMs: Date.now() - 1 }), (e: unknown) =>
    e instanceof TimeLimitError && e.stage === 'parse' && /while parsing the input/.test(e.message));
  // A deadline that passes between chunks: the reader looks at the clock before each one.
  let chunks = 0;
  const deadline = { ms: Number.POSITIVE_INFINITY };
  const input = HistoryInput.fromBytes(readFileSync(path), path, { chunkBytes: 256, get deadlineMs() { return deadline.ms; } });
  await assert.rejects((async () => {
    for await (const _ of input.chunks()) { if (++chunks === 3) deadline.ms = Date.now() - 1; }
  })(), TimeLimitError);
  assert.equal(chunks, 3);
});

test('--timeout bounds parsing too: a long file stops with unknown (exit 3) naming the stage', async () => {
  const { main } = await import('../../src/cli/main.ts');
  const path = join(tmp, 'long.txt');
  writeFileSync(path, textHistory(120_000)); // ~4 MB: several 1 MiB chunks, ~0.1 s of parsing each
  for (const json of [true, false]) {
    let out = '';
    const code = await main(['check', path, '--timeout', '0.001', ...(json ? ['--json'] : [])],
      { stdout: (s) => { out += s; }, stderr: () => {} });
    assert.equal(code, 3);
    if (json) {
      const j = JSON.parse(out);
      assert.equal(j.verdict, 'unknown');
      assert.equal(j.unknownReason, 'the time limit was reached while parsing the input');
    } else {
      assert.match(out, /long\.txt: unknown: the time limit was reached while parsing the input/);
    }
  }
});
