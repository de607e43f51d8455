/**
 * validate against the validation it replaced (test/support/validate-reference/: the writer index
 * as one sorted (key, value) table, every read resolved through it). The fast paths (a value's
 * sole writer in one probe, reads resolved from a per-value table) must give the same Validated,
 * anomaly messages included, or the same InputError. Cases: seeded random histories whose
 * written values are drawn from a small range, so that values repeat across keys (the sorted
 * index's path), repeat within a key (rejected), or are unique; reads of the initial value,
 * of written values (final or not, own, aborted, unknown-outcome writers) and of garbage.
 * Plus the generators the other tests use. A failure names the case.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { validate } from '../../src/validate/validate.ts';
import { validate as referenceValidate } from '../support/validate-reference/validate.ts';
import { caseSeed, mulberry32, randInt, randomHistory, simulatedSiHistory, type Rng } from '../support/gen.ts';
import { randomListHistory } from '../support/gen-lists.ts';

const SCALE = Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1');

/** Random registers whose written values come from 1..valuesMax (so they may repeat). */
function reusedValuesHistory(rng: Rng): History {
  const keys = randInt(rng, 1, 5), valuesMax = randInt(rng, 2, 40);
  const b = new HistoryBuilder();
  const written: number[][] = Array.from({ length: keys }, () => []);
  const sessions = randInt(rng, 1, 4);
  for (let s = 0; s < sessions; s++) {
    const session = b.session(s);
    for (let i = randInt(rng, 1, 5); i > 0; i--) {
      const x = rng();
      const status = x < 0.1 ? TXN_ABORTED : x < 0.2 ? TXN_UNKNOWN : TXN_COMMITTED;
      const txn = b.beginTxn(session, undefined, status);
      for (let j = randInt(rng, 1, 6); j > 0; j--) {
        const key = randInt(rng, 0, keys - 1);
        if (rng() < 0.5) {
          const v = randInt(rng, 1, valuesMax);
          written[key]!.push(v);
          b.write(txn, key, v);
        } else {
          const pool = written[key]!;
          const y = rng();
          const v = y < 0.15 || pool.length === 0 ? null : y < 0.2 ? randInt(rng, 1, valuesMax) : pool[randInt(rng, 0, pool.length - 1)]!;
          b.read(txn, key, v);
        }
      }
    }
  }
  return b.build();
}

function same(name: string, h: History): 'ok' | 'error' {
  let a: unknown, e: unknown;
  try { e = referenceValidate(h); } catch (err) { e = err; }
  try { a = validate(h); } catch (err) { a = err; }
  if (e instanceof Error || a instanceof Error) {
    assert.ok(e instanceof Error && a instanceof Error, `${name}: ${String(e instanceof Error ? e.message : a instanceof Error ? a.message : '')}`);
    assert.equal(a.message, e.message, `${name}: error`);
    return 'error';
  }
  const strip = (v: ReturnType<typeof validate>) => ({ ...v, history: null, lists: { reads: v.lists.reads, chains: [...v.lists.chains] } });
  assert.deepEqual(strip(a as ReturnType<typeof validate>), strip(e as ReturnType<typeof validate>), name);
  return 'ok';
}

test('validate equals the reference on histories whose values repeat across and within keys', () => {
  let errors = 0, anomalies = 0;
  for (let i = 0; i < 1500 * SCALE; i++) {
    const h = reusedValuesHistory(mulberry32(caseSeed(0x5a1d, i)));
    if (same(`reused #${i}`, h) === 'error') errors++;
    else if (validate(h).anomalies.length > 0) anomalies++;
  }
  // Both paths must be exercised: rejected duplicates and anomalies found on accepted histories.
  assert.ok(errors >= 50 && anomalies >= 50, `errors ${errors}, histories with anomalies ${anomalies}`);
});

test('validate equals the reference on the shared generators', () => {
  for (let i = 0; i < 200 * SCALE; i++) {
    const rng = mulberry32(caseSeed(0x5a1e, i));
    same(`random #${i}`, randomHistory(rng, { txnsMax: 12, keysMax: 4 }));
    same(`list #${i}`, randomListHistory(rng, { txnsMax: 12, keysMax: 4 }));
    same(`si #${i}`, simulatedSiHistory(rng, { sessions: 4, txnsPerSession: 6, keys: 5, bug: 'mixed', pBug: 0.3, pUnknown: 0.1, pVoluntaryAbort: 0.1 }));
  }
});
