/**
 * Tests of the list oracle (brute-force-lists.ts) itself, before the pipeline is tested
 * against it.
 *
 * - Boundary histories over lists with known verdicts, drawn above each case.
 * - On register-only histories it must agree with the register oracle (brute-force.ts), which
 *   is written differently (reads resolved by value against final writes, not by running
 *   programs): thousands of random and simulated tiny histories.
 * - The correct simulated list store yields SI-valid histories, the serial one SER-valid ones.
 * - It refuses what it cannot check.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { bruteForceListCheck, type ListOracleVerdict } from './brute-force-lists.ts';
import { bruteForceCheck } from './brute-force.ts';
import { caseSeed, mulberry32, tinyMixedHistory } from '../support/gen.ts';
import { simulatedListHistory } from '../support/gen-lists.ts';
import { renderHistory } from '../support/history-text.ts';
import { tinyHistory, type TinyTxn } from '../support/tiny-history.ts';

const SCALE = Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1');
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

const CASES: { name: string; txns: TinyTxn[]; si: ListOracleVerdict; ser: ListOracleVerdict }[] = [
  // s1: T1 [a(x,1) a(x,2)]   s2: T2 [r(x,[1,2])]: appends in program order, read whole.
  { name: 'a run read in order', txns: [{ s: 1, ops: 'a(x,1) a(x,2)' }, { s: 2, ops: 'r(x,[1,2])' }], si: 'valid', ser: 'valid' },
  // s1: T1 [a(x,1) a(x,2)]   s2: T2 [r(x,[2,1])]: no run of appends produces [2,1] (issue 7, item 1).
  { name: 'a run read reversed', txns: [{ s: 1, ops: 'a(x,1) a(x,2)' }, { s: 2, ops: 'r(x,[2,1])' }], si: 'violation', ser: 'violation' },
  // T2 sees half of T1's appends: an intermediate state (G1b).
  { name: 'a run cut short', txns: [{ s: 1, ops: 'a(x,1) a(x,2)' }, { s: 2, ops: 'r(x,[1])' }], si: 'violation', ser: 'violation' },
  // T3 and T4 disagree on the order of T1's and T2's appends.
  {
    name: 'incompatible orders',
    txns: [{ s: 1, ops: 'a(x,1)' }, { s: 2, ops: 'a(x,2)' }, { s: 3, ops: 'r(x,[1,2])' }, { s: 4, ops: 'r(x,[2,1])' }],
    si: 'violation', ser: 'violation',
  },
  { name: 'a duplicate element', txns: [{ s: 1, ops: 'a(x,1)' }, { s: 2, ops: 'r(x,[1,1])' }], si: 'violation', ser: 'violation' },
  // Lost update over a list: both read the empty list and append; T3 sees both.
  {
    name: 'lost update',
    txns: [{ s: 1, ops: 'r(x,[]) a(x,1)' }, { s: 2, ops: 'r(x,[]) a(x,2)' }, { s: 3, ops: 'r(x,[1,2])' }],
    si: 'violation', ser: 'violation',
  },
  // Write skew over lists: each reads both empty lists and appends to a different one.
  {
    name: 'write skew',
    txns: [{ s: 1, ops: 'r(x,[]) r(y,[]) a(x,1)' }, { s: 2, ops: 'r(x,[]) r(y,[]) a(y,2)' }],
    si: 'valid', ser: 'violation',
  },
  // Own appends are visible to the txn's later reads, on top of its snapshot.
  { name: 'reading own appends', txns: [{ s: 1, ops: 'a(x,1)' }, { s: 1, ops: 'r(x,[1]) a(x,2) r(x,[1,2])' }], si: 'valid', ser: 'valid' },
  { name: 'own appends missing (INT)', txns: [{ s: 1, ops: 'a(x,1) r(x,[])' }], si: 'violation', ser: 'violation' },
  // A read of an unknown-outcome txn's append: it committed. Of an aborted one's: G1a.
  { name: 'an unknown writer read', txns: [{ s: 1, ops: 'a(x,1)', status: 'unknown' }, { s: 2, ops: 'r(x,[1])' }], si: 'valid', ser: 'valid' },
  { name: 'an aborted writer read', txns: [{ s: 1, ops: 'a(x,1)', status: 'aborted' }, { s: 2, ops: 'r(x,[1])' }], si: 'violation', ser: 'violation' },
  // Session order: T2 (after T1 in s1) misses T1's append.
  { name: 'session guarantee', txns: [{ s: 1, ops: 'a(x,1)' }, { s: 1, ops: 'r(x,[])' }], si: 'violation', ser: 'violation' },
  // Registers beside lists: T2 reads x from T1 and l from before T1.
  { name: 'read skew across a register and a list', txns: [{ s: 1, ops: 'w(x,1) a(l,2)' }, { s: 2, ops: 'r(x,1) r(l,[])' }], si: 'violation', ser: 'violation' },
];

test('boundary histories over lists: the list oracle gives the known verdicts', () => {
  for (const c of CASES) {
    const h = tinyHistory(c.txns);
    assert.equal(bruteForceListCheck(h, 'si'), c.si, `${c.name} at SI`);
    assert.equal(bruteForceListCheck(h, 'ser'), c.ser, `${c.name} at SER`);
  }
});

test(`on register histories the list oracle agrees with the register oracle (${scaled(3000)} cases)`, () => {
  const counts = { valid: 0, violation: 0 };
  for (let i = 0; i < scaled(3000); i++) {
    const seed = caseSeed(0x11575, i);
    const { history: h } = tinyMixedHistory(mulberry32(seed), 6);
    for (const level of ['si', 'ser'] as const) {
      const want = bruteForceCheck(h, level);
      counts[want]++;
      assert.equal(bruteForceListCheck(h, level), want, `seed ${seed} at ${level}:\n${renderHistory(h)}`);
    }
  }
  assert.ok(counts.valid > 600 && counts.violation > 600, JSON.stringify(counts));
});

test(`the correct list store is SI-valid, the serial one SER-valid, by the list oracle (${scaled(1000)} cases each)`, () => {
  for (let i = 0; i < scaled(1000); i++) {
    const seed = caseSeed(0x5707e, i);
    const si = simulatedListHistory(mulberry32(seed), { sessions: 3, txnsPerSession: 2 });
    assert.equal(bruteForceListCheck(si, 'si'), 'valid', `seed ${seed}:\n${renderHistory(si)}`);
    const ser = simulatedListHistory(mulberry32(seed), { sessions: 3, txnsPerSession: 2, serial: true });
    assert.equal(bruteForceListCheck(ser, 'ser'), 'valid', `seed ${seed} (serial):\n${renderHistory(ser)}`);
  }
});

test('the list oracle refuses what it cannot check', () => {
  assert.throws(() => bruteForceListCheck(tinyHistory([{ s: 1, ops: 'w(x,1)' }, { s: 2, ops: 'r(x,[1])' }]), 'si'), /both a register and a list/);
  assert.throws(() => bruteForceListCheck(tinyHistory([{ s: 1, ops: 'a(x,1)' }, { s: 2, ops: 'a(x,1)' }]), 'si'), /written twice/);
  const many = Array.from({ length: 9 }, (_, i): TinyTxn => ({ s: 1, ops: `a(x,${i + 1})` }));
  assert.throws(() => bruteForceListCheck(tinyHistory(many), 'ser'), /limit 8/);
});
