/**
 * The exact text of messages a user meets (issue 7, item 17): each names the right option,
 * keeps its numbers exact and quotes the input as written. Runs `main` in-process with captured
 * output (the same code path as bin/polysi.mjs).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dbcopBincodeFormat } from '../../src/formats/dbcop-bincode.ts';
import { readHistory } from '../../src/formats/index.ts';
import { runCli as run } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const LONG_FORK = join(ROOT, 'examples', 'long-fork.txt');

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = scratchDir('polysi-msg-');
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true });
  }
}

const WRITABLE = 'text, dbcop, jsonl, edn, elle-json, dbcop-json, dbcop-hist';

test('convert --to blames --to and lists the formats that can be written', async () => {
  await withDir(async (dir) => {
    const bogus = await run('convert', LONG_FORK, join(dir, 'x'), '--to', 'bogus');
    assert.equal(bogus.code, 2);
    assert.equal(bogus.err, `polysi convert: --to: unknown format "bogus"; formats that can be written: ${WRITABLE}`);
    const cobra = await run('convert', LONG_FORK, join(dir, 'x'), '--to', 'cobra');
    assert.equal(cobra.code, 2);
    assert.equal(cobra.err, `polysi convert: --to: format cobra can be read but not written; formats that can be written: ${WRITABLE}`);
  });
});

test('negative option values reach the option\'s own check (not parseArgs\' "ambiguous")', async () => {
  const cases: [string[], string][] = [
    [['check', LONG_FORK, '--timeout', '-1'], 'polysi check: --timeout takes a positive number of seconds, got "-1"'],
    [['check', LONG_FORK, '--timeout', '-.5'], 'polysi check: --timeout takes a positive number of seconds, got "-.5"'],
    [['check', LONG_FORK, '--timeout=-1'], 'polysi check: --timeout takes a positive number of seconds, got "-1"'],
    [['check', LONG_FORK, '--max-anomalies', '-3'], 'polysi check: --max-anomalies takes a positive integer, got "-3"'],
    [['stat', LONG_FORK, '--top', '-1'], 'polysi stat: --top takes a non-negative integer, got "-1"'],
  ];
  for (const [argv, msg] of cases) {
    const r = await run(...argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.equal(r.err, msg, argv.join(' '));
  }
  // A dash that is not a number is still an option, and a missing value is still an error.
  const r = await run('check', LONG_FORK, '--timeout', '--json');
  assert.equal(r.code, 2);
  assert.match(r.err, /--timeout/);
});

test('a corrupt dbcop length quotes the bytes it needs, even beyond 2^53', async () => {
  await withDir(async (dir) => {
    const { history } = await readHistory(LONG_FORK);
    const bytes = dbcopBincodeFormat.write!(history) as Uint8Array;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const left = bytes.length - 48;
    // Byte 40 holds the length of the header's first string (info), read with 1 byte per element.
    const cases: [bigint, string][] = [
      [2n ** 63n + 5n, '9223372036854775813'],
      [2n ** 53n + 1n, '9007199254740993'],
    ];
    for (const [len, text] of cases) {
      view.setBigUint64(40, len, true);
      const file = join(dir, 'bad.bincode');
      writeFileSync(file, bytes);
      const r = await run('check', file, '--format', 'dbcop');
      assert.equal(r.code, 2);
      assert.equal(r.err, `polysi: ${file} byte 40: length ${text} of the info string needs at least ${text} bytes ` +
        `but only ${left} remain (the file is truncated or the length is corrupt)`);
    }
  });
});

test('JSON Lines errors quote numbers as written, not as rounded doubles', async () => {
  await withDir(async (dir) => {
    const line = (key: string, value: string, session = '"s"'): string =>
      `{"session":${session},"txn":"t","status":"committed","ops":[["w",${key},${value}]]}\n`;
    const VALUE = 'expected the value of op 1 to be null, a string, an integer within ±2^53 or {"int":"<decimal>"}, found';
    const cases: [string, string][] = [
      [line('9007199254740993', '1'), 'expected the key of op 1 to be a string or an integer within ±2^53, found 9007199254740993 (write large integer keys as strings)'],
      [line('"x"', '1e400'), `${VALUE} 1e400`],
      [line('"x"', '1.50'), `${VALUE} 1.50`],
      [line('"x"', '12345678901234567890'), `${VALUE} 12345678901234567890`],
      // The first number with that value is the offending one, even after strings holding digits.
      [line('"1.5"', '1.50'), `${VALUE} 1.50`],
      [line('"x"', '1', '2.50'), 'expected "session" to be a string or an integer, found 2.50'],
    ];
    for (const [text, msg] of cases) {
      const file = join(dir, 'bad.jsonl');
      writeFileSync(file, text);
      const r = await run('check', file, '--format', 'jsonl');
      assert.equal(r.code, 2, text);
      assert.equal(r.err, `polysi: ${file} line 1: ${msg}`, text);
    }
  });
});
