/**
 * Invalid UTF-8 in the text formats is bad input with its line, never replaced silently.
 *
 * A lenient decoder turns every invalid byte into U+FFFD, so the keys "\xff" and "\xfe" became
 * one key and a read of a value nobody wrote to it looked valid. These tests write such files
 * and read them through `readHistory`, the CLI's path.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { readHistory } from '../../src/formats/index.ts';
import { InputError } from '../../src/history/errors.ts';
import { firstInvalidUtf8 } from '../../src/formats/utf8.ts';
import { caseSeed, mulberry32, randInt } from '../support/gen.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('polysi-utf8-');

function file(name: string, parts: (string | number[])[]): string {
  const bytes = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
  const path = join(DIR, name);
  writeFileSync(path, bytes);
  return path;
}

async function rejects(path: string, format: string, line: number, byte: string): Promise<void> {
  await assert.rejects(readHistory(path, format), (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.code, 'syntax');
    assert.match(e.message, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line ${line}: invalid UTF-8 at byte offset \\d+ \\(${byte}\\)`));
    return true;
  });
}

test('JSONL: two keys that differ only in invalid bytes are rejected with the line, not merged', async () => {
  // Before the fix both keys decoded to "\ufffd": t2's read of 1 looked like a read of t1's write.
  const path = file('keys.jsonl', [
    '{"session":"a","txn":"t1","ops":[["w","', [0xff], '",1]]}\n',
    '{"session":"b","txn":"t2","ops":[["r","', [0xfe], '",1]]}\n',
  ]);
  await rejects(path, 'jsonl', 1, 'byte 0xff');
  await rejects(path, 'auto', 1, 'byte 0xff');
});

test('JSONL: an invalid byte on a later line, a lone continuation byte, a surrogate, a truncated sequence', async () => {
  const ok = '{"session":"a","txn":"t1","ops":[["w","x",1]]}\n';
  await rejects(file('l3.jsonl', [ok, ok.replace('t1', 't2'), '{"session":"b","txn":"t3","ops":[["r","x","', [0x80], '"]]}\n']), 'jsonl', 3, 'byte 0x80');
  await rejects(file('sur.jsonl', [ok, '{"session":"b","txn":"t2","ops":[["w","', [0xed, 0xa0, 0x80], '",2]]}\n']), 'jsonl', 2, 'byte 0xed');
  await rejects(file('cut.jsonl', [ok, '{"session":"b","txn":"t2","ops":[["w","y",2]]}', [0xe2, 0x82]]), 'jsonl', 2, 'byte 0xe2');
});

test('PolySI text and dbcop .hist files are held to the same rule', async () => {
  await rejects(file('h.txt', ['w(1,1,1,1)\n', 'r(1,1,2,2)', [0xff], '\n']), 'text', 2, 'byte 0xff');
  await rejects(file('h.hist', ['[x:=1]\n', '[x==1 y', [0xc0, 0x80], ':=2]\n']), 'dbcop-hist', 2, 'byte 0xc0');
});

test('valid UTF-8 (multi-byte keys, a byte-order mark) still reads', async () => {
  const path = file('ok.jsonl', [[0xef, 0xbb, 0xbf], '{"session":"a","txn":"t1","ops":[["w","clé✓😀",1]]}\n{"session":"b","txn":"t2","ops":[["r","clé✓😀",1]]}\n']);
  const { history: h } = await readHistory(path, 'auto');
  assert.deepEqual(h.keyLabels, ['clé✓😀']);
  assert.equal(h.txnCount, 2);
});

test('firstInvalidUtf8 agrees with the WHATWG fatal decoder on random byte strings', () => {
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const decodes = (b: Uint8Array): boolean => {
    try { fatal.decode(b); return true; } catch { return false; }
  };
  // Bytes biased towards the interesting ranges: ASCII, continuation bytes and lead bytes.
  const POOL = [0x41, 0x0a, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
  for (let i = 0; i < 20000; i++) {
    const rng = mulberry32(caseSeed(0x07f8, i));
    const b = Uint8Array.from({ length: randInt(rng, 0, 8) }, () => POOL[randInt(rng, 0, POOL.length - 1)]!);
    const at = firstInvalidUtf8(b);
    assert.equal(at === b.length, decodes(b), `bytes ${Buffer.from(b).toString('hex')}: first invalid at ${at}`);
    assert.ok(decodes(b.subarray(0, at)), `the prefix before ${at} of ${Buffer.from(b).toString('hex')} decodes`);
  }
});
