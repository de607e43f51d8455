/**
 * One options builder for `polysi check`'s three modes (one history, a batch, the ladder):
 * `--max-memory` reaches every mode (it was ignored with --levels and in batches), `--timeout`
 * is one deadline taken before parsing in every mode (the ladder used to restart it after
 * parsing), and a check the memory budget stopped before validation does not warn that "none of
 * the N transactions takes part" (it counted none because it never looked).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { checkOptionsFrom, deadlineFrom, FlagError, parseCheckFlags } from '../../src/cli/check-flags.ts';
import { main } from '../../src/cli/main.ts';
import { runCli } from '../support/run-cli.ts';

const EXAMPLES = resolve(import.meta.dirname, '..', '..', 'examples');
const BANK = join(EXAMPLES, 'bank-valid.jsonl');
const LONG_FORK = join(EXAMPLES, 'long-fork.txt');

test('--max-memory with --levels: every checked level answers unknown (exit 3), no false "nothing checked" warning', async () => {
  const r = await runCli('check', BANK, '--levels', '--max-memory', '1', '--json');
  assert.equal(r.code, 3, r.err);
  const j = JSON.parse(r.out) as { levels: { status: string; reason?: string }[] };
  const checked = j.levels.filter((l) => l.status !== 'not checked');
  assert.ok(checked.length > 0);
  for (const l of checked) assert.equal(l.status, 'unknown', JSON.stringify(l));
  const text = await runCli('check', BANK, '--levels', '--max-memory', '1');
  assert.equal(text.code, 3);
  assert.doesNotMatch(text.err, /takes part|nothing was checked/);
});

test('--max-memory in a batch: each history answers unknown naming the memory budget', async () => {
  const out: string[] = [];
  let err = '';
  const code = await main(['check', BANK, LONG_FORK, '--max-memory', '1', '--json', '--jobs', '1'], { stdout: (s) => { out.push(s); }, stderr: (s) => { err += s; } });
  const lines = out.map((l) => JSON.parse(l) as { verdict?: string; unknownReason?: string });
  assert.equal(lines.length, 2, out.join('\n'));
  for (const l of lines) {
    assert.equal(l.verdict, 'unknown', JSON.stringify(l));
    assert.match(l.unknownReason ?? '', /memory budget \(1 MB\)/);
  }
  assert.equal(code, 3, err);
});

test('--max-memory on one history: unknown, and no false "none of the N transactions takes part" warning', async () => {
  const r = await runCli('check', BANK, '--max-memory', '1');
  assert.equal(r.code, 3, r.err);
  assert.match(r.out, /memory budget/);
  assert.doesNotMatch(r.err, /takes part|nothing was checked/);
});

test('the builder: the same options for every mode; --timeout is a deadline taken before parsing, never a fresh timeoutMs', () => {
  const flags = parseCheckFlags({ timeout: '2.5', 'max-memory': '300', 'no-pruning': true }, 0);
  assert.deepEqual(flags, { pruning: false, neighbours: false, explainMoreMs: 0, timeoutMs: 2500, maxMemoryMb: 300 });
  const before = 1_000_000;
  const dl = deadlineFrom(flags, before);
  assert.equal(dl, before + 2500);
  const o = checkOptionsFrom(flags, dl);
  assert.deepEqual(o, { pruning: false, explain: true, neighbours: false, deadlineMs: before + 2500, maxMemoryMb: 300, explainMoreMs: 0 });
  assert.equal('timeoutMs' in o, false);
  assert.deepEqual(checkOptionsFrom({ ...flags, maxAnomalies: 3 }, undefined), { pruning: false, explain: true, neighbours: false, maxMemoryMb: 300, maxAnomalies: 3 });
  for (const bad of [{ timeout: '0' }, { timeout: '' }, { 'max-memory': '0.5' }, { 'max-anomalies': '1.5' }]) {
    assert.throws(() => parseCheckFlags(bad, 0), FlagError, JSON.stringify(bad));
  }
});
