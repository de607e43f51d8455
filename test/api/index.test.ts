/**
 * The package's public entry (src/index.ts): defaults, and options validated at the boundary.
 * A wrong option must be a TypeError naming it, never a silently different check (before this
 * entry existed, `level: 'rc'` ran the SER check). The packed package is tested in
 * test/package/pack.test.ts.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import {
  checkHistory, checkLevels, FORMAT_NAMES, HistoryBuilder, historyOpportunities, implies, InputError, levelsResultJson, readHistory, resultJson, SCHEMA_VERSION,
  TXN_ABORTED,
} from '../../src/index.ts';
import { IMPLEMENTED_LEVELS, LEVEL_NAMES } from '../../src/check/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LONG_FORK = join(ROOT, 'examples/long-fork.txt');
const BANK = join(ROOT, 'examples/bank-valid.jsonl');

test('defaults: SI, pruning on, explained, like the CLI', async () => {
  const { history } = await readHistory(LONG_FORK);
  const r = checkHistory(history);
  assert.equal(r.level, 'si');
  assert.equal(r.verdict, 'violation');
  assert.ok(r.constraints.pruneRounds > 0, 'pruning ran');
  assert.equal(r.anomalies[0]!.explanation?.class, 'G-nonadjacent');
  assert.equal(r.anomalies[0]!.explanation?.description, 'long fork');
  const bare = checkHistory(history, { explain: false, pruning: false });
  assert.equal(bare.verdict, 'violation');
  assert.equal(bare.constraints.pruneRounds, 0);
  assert.equal(bare.anomalies[0]!.explanation, undefined);
});

test('levels: si and ser differ on the bank example (write skew)', async () => {
  const { history } = await readHistory(BANK);
  assert.equal(checkHistory(history, { level: 'si' }).verdict, 'valid');
  assert.equal(checkHistory(history, { level: 'ser' }).verdict, 'violation');
});

test('bad options are TypeErrors that name the option', async () => {
  const { history } = await readHistory(BANK);
  const cases: [unknown, RegExp][] = [
    [{ level: 'snapshot' }, /level must be one of .*'si'.*'ser'.*, got "snapshot"/],
    // Every level of the ladder that checkHistory does not decide yet is refused, never run as another.
    ...LEVEL_NAMES.filter((l) => !(IMPLEMENTED_LEVELS as readonly string[]).includes(l)).map((l): [unknown, RegExp] => [{ level: l }, new RegExp(`got "${l}"`)]),
    [{ level: 'SI' }, /level/],
    [{ level: 1 }, /level/],
    [{ timeoutMs: -1 }, /timeoutMs must be a finite number >= 0, got -1/],
    [{ timeoutMs: Number.NaN }, /timeoutMs/],
    [{ timeoutMs: '10' }, /timeoutMs .* got "10"/],
    [{ pruning: 'yes' }, /pruning must be a boolean/],
    [{ explain: 1 }, /explain must be a boolean/],
    [{ maxAnomalies: 0 }, /maxAnomalies must be an integer >= 1/],
    [{ maxAnomalies: 1.5 }, /maxAnomalies/],
    [{ conflictsMax: -3 }, /conflictsMax/],
    [{ onProgress: 'log' }, /onProgress must be a function/],
    [{ levle: 'ser' }, /unknown option "levle"/],
    [null, /options must be an object/],
    [[], /options must be an object/],
  ];
  for (const [opts, msg] of cases) {
    assert.throws(() => checkHistory(history, opts as never), (e: unknown) => e instanceof TypeError && msg.test(e.message), JSON.stringify(opts));
  }
  assert.throws(() => checkHistory({} as never), /must be a History/);
});

test('readHistory: bad arguments are TypeErrors; bad files are InputErrors', async () => {
  await assert.rejects(readHistory(LONG_FORK, 'txt'), (e: unknown) => e instanceof TypeError && /format must be one of auto, text/.test(e.message));
  await assert.rejects(readHistory(42 as never), TypeError);
  await assert.rejects(readHistory(''), TypeError);
  await assert.rejects(readHistory(join(ROOT, 'no-such-history.txt')), InputError);
  assert.ok(FORMAT_NAMES.includes('auto') && FORMAT_NAMES.includes('edn') && FORMAT_NAMES.includes('jsonl'));
  assert.equal((await readHistory(BANK, 'jsonl')).format, 'jsonl');
});

test('HistoryBuilder makes in-memory histories; resultJson carries schemaVersion and labels', () => {
  // A reads x = 1 from an aborted writer: G1a, found before any graph work.
  const b = new HistoryBuilder();
  const w = b.beginTxn(b.session('writer'), 'w1', TXN_ABORTED);
  b.write(w, 'x', 1);
  const r = b.beginTxn(b.session('reader'), 'r1');
  b.read(r, 'x', 1);
  const h = b.build();
  const result = checkHistory(h, { level: 'ser' });
  assert.equal(result.verdict, 'violation');
  assert.equal(result.anomalies[0]!.type === 'non-cycle' && result.anomalies[0]!.name, 'G1a');
  const j = resultJson(h, result, { file: 'mem' });
  assert.equal(j['schemaVersion'], SCHEMA_VERSION);
  assert.equal(j['file'], 'mem');
  assert.deepEqual((j['transactions'] as { label: string }[]).map((t) => t.label).sort(), ['r1', 'w1']);
});

test('checkLevels: the ladder from the public API, with validated options', async () => {
  const { history } = await readHistory(BANK);
  const lr = checkLevels(history);
  const row = (l: string) => lr.rows.find((r) => r.level === l)!;
  assert.equal(row('si').status, 'satisfied');
  assert.equal(row('ser').status, 'violated');
  assert.equal(row('ser').result!.anomalies.length, 1, 'one counterexample per level by default');
  assert.ok(lr.strongest.includes('si') || lr.strongest.some((l) => implies(l, 'si')));
  const seen: string[] = [];
  checkLevels(history, { onLevel: (l) => seen.push(l), maxAnomalies: 3 });
  assert.deepEqual(seen, lr.checked, 'onLevel is called for each level checked, in order');
  assert.equal(levelsResultJson(history, lr, { file: 'bank' })['file'], 'bank');
  assert.throws(() => checkLevels(history, { level: 'si' } as never), /use checkHistory for one level/);
  assert.throws(() => checkLevels(history, { onLevel: 1 } as never), /onLevel must be a function/);
  assert.throws(() => checkLevels(history, { timeoutMs: -1 }), TypeError);
});

test('historyOpportunities: two overlapping read-modify-writes of one key that read the same version are an allowed lost update', () => {
  const b = new HistoryBuilder();
  const t1 = b.beginTxn(b.session('a'), 't1');
  b.read(t1, 'x', 0); b.write(t1, 'x', 1); b.setTimes(t1, 0, 10);
  const t2 = b.beginTxn(b.session('b'), 't2');
  b.read(t2, 'x', 0); b.write(t2, 'x', 2); b.setTimes(t2, 5, 15);
  const o = historyOpportunities(b.build());
  assert.equal(o.lostUpdate?.pairs, 1);
  assert.equal(o.lostUpdate?.allowed, 1);
  const none = new HistoryBuilder();
  none.read(none.beginTxn(none.session('a')), 'x', 0);
  assert.equal(historyOpportunities(none.build()).lostUpdate, null);
});
