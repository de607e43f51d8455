/**
 * Plume's aborted transactions in the PolySI text format: a txn id of -1 marks the operations of
 * aborted transactions (Plume's TextHistoryLoader keeps such writes as aborted writes and drops
 * such reads). A committed read of one of those writes is an aborted read (G1a): forbidden from
 * PL-2 up, allowed by read uncommitted. Read as an ordinary txn, the same history was VALID at
 * every level.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import { PolysiTextParser } from '../../src/formats/polysi-text.ts';
import { TXN_ABORTED, TXN_COMMITTED, type History } from '../../src/history/model.ts';
import { LEVEL_NAMES } from '../../src/result/types.ts';
import { notesOf } from '../../src/formats/io-notes.ts';

function parse(text: string): History {
  const p = new PolysiTextParser('plume.txt');
  p.feed(new TextEncoder().encode(text));
  return p.finish();
}

test('a read of a write with txn id -1 is an aborted read (G1a) at every level but read uncommitted', () => {
  // Session 0 ran an aborted txn that wrote x = 1; session 1's txn 1 read x = 1.
  const h = parse('w(1,1,0,-1)\nr(1,1,1,1)\n');
  assert.equal(h.txnCount, 2);
  assert.equal(h.txnStatus[0], TXN_ABORTED);
  assert.equal(h.txnStatus[1], TXN_COMMITTED);
  assert.match(notesOf(h).join('\n'), /txn id -1 marks aborted transactions \(as in Plume\): 1 write\(s\)/);
  for (const level of LEVEL_NAMES) {
    const r = checkHistory(h, { level, pruning: true });
    if (level === 'ru' || level === 'pl-1') { assert.equal(r.verdict, 'valid', level); continue; }
    assert.equal(r.verdict, 'violation', level);
    assert.equal(r.anomalies[0]!.type === 'non-cycle' && r.anomalies[0]!.name, 'G1a', level);
  }
});

test('each -1 write is an aborted txn of its own, and -1 reads are left out', () => {
  // Two aborted writes of x (lines 1 and 2): a read of the first is an aborted read, not an
  // intermediate one (Plume keeps no transaction around them). The -1 read of a value nobody
  // wrote (line 3) constrains nothing.
  const h = parse('w(1,1,0,-1)\nw(1,2,0,-1)\nr(1,9,0,-1)\nr(1,1,1,1)\nw(2,3,1,1)\n');
  assert.equal(h.txnCount, 3);
  assert.deepEqual([...h.txnStatus], [TXN_ABORTED, TXN_ABORTED, TXN_COMMITTED]);
  assert.match(notesOf(h).join('\n'), /2 write\(s\) read as aborted writes .*, 1 read\(s\) left out/);
  const r = checkHistory(h, { level: 'rc', pruning: true });
  assert.equal(r.anomalies.length, 1);
  assert.equal(r.anomalies[0]!.type === 'non-cycle' && r.anomalies[0]!.name, 'G1a');
  // Without the committed read of the aborted value, nothing is wrong.
  assert.equal(checkHistory(parse('w(1,1,0,-1)\nr(1,9,0,-1)\nr(1,0,1,1)\n'), { level: 'ser', pruning: true }).verdict, 'valid');
});
