/**
 * The command line as a user meets it: exit codes, --json fields, messages for bad input.
 * Runs `main` in-process with captured output (the same code path as bin/polysi.mjs).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { runCli as run } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const NO_DATA = needsData();
const DATA = DATA_DIR;

test('the README example: long fork is an SI violation (exit 1) with a cycle in the text', async () => {
  const r = await run('check', join(ROOT, 'examples/long-fork.txt'));
  assert.equal(r.code, 1);
  assert.match(r.out, /SI: VIOLATION/);
  assert.match(r.out, /G-nonadjacent \(long fork\) cycle \(4 txns, 4 edges\): /);
});

test('valid history exits 0; the same under --level ser exits 1 (write skew)', async () => {
  assert.equal((await run('check', join(ROOT, 'examples/bank-valid.jsonl'))).code, 0);
  const ser = await run('check', join(ROOT, 'examples/bank-valid.jsonl'), '--level', 'ser', '--json');
  assert.equal(ser.code, 1);
  const j = JSON.parse(ser.out);
  assert.equal(j.verdict, 'violation');
  assert.equal(j.level, 'ser');
  const cycle = j.anomalies.find((a: { type: string }) => a.type === 'cycle');
  assert.ok(cycle, 'a cycle anomaly');
  assert.deepEqual(cycle.edges.map((e: { kind: string }) => e.kind).sort(), ['RW', 'RW']);
  const labels = j.transactions.map((t: { label: string }) => t.label).sort();
  assert.deepEqual(labels, ['a1', 'b1']);
});

test('--json has the documented fields', { skip: NO_DATA }, async () => {
  const r = await run('check', join(DATA, 'polysi/violations/galera-lost-update.txt'), '--json');
  assert.equal(r.code, 1);
  const j = JSON.parse(r.out);
  for (const k of ['verdict', 'level', 'counts', 'timesMs', 'constraints', 'anomalies', 'transactions']) assert.ok(k in j, k);
  for (const k of ['sessions', 'transactions', 'operations']) assert.equal(typeof j.counts[k], 'number', k);
  for (const k of ['parse', 'validate', 'construct', 'prune', 'solve']) assert.equal(typeof j.timesMs[k], 'number', k);
  assert.equal(typeof j.constraints.before, 'number');
  assert.equal(typeof j.constraints.after, 'number');
  assert.ok(j.constraints.after <= j.constraints.before);
  assert.ok(j.anomalies.length >= 1);
  for (const t of j.transactions) assert.ok(Array.isArray(t.ops) && typeof t.session === 'string');
});

test('--no-pruning gives the same verdicts on the real small files', { skip: NO_DATA }, async () => {
  for (const f of ['small/long-fork.txt', 'small/write-skew.txt', 'polysi/violations/yugabyte-causality.txt']) {
    const a = await run('check', join(DATA, f), '--json');
    const b = await run('check', join(DATA, f), '--json', '--no-pruning');
    assert.equal(a.code, b.code, f);
    assert.equal(JSON.parse(a.out).verdict, JSON.parse(b.out).verdict, f);
    assert.equal(JSON.parse(b.out).constraints.pruneRounds, 0);
  }
});

test('bad input exits 2 naming the file and line', async () => {
  const dir = scratchDir('polysi-cli-');
  const bad = join(dir, 'bad.txt');
  writeFileSync(bad, 'r(1,0,1,1)\nw(1,1,1,1)\nw(1,oops,1,1)\n');
  const r = await run('check', bad, '--format', 'text');
  assert.equal(r.code, 2);
  assert.match(r.err, /bad\.txt line 3/);
  const dup = join(dir, 'dup.txt');
  writeFileSync(dup, 'w(1,5,1,1)\nw(1,5,2,2)\n');
  const d = await run('check', dup);
  assert.equal(d.code, 2);
  assert.match(d.err, /written to key 1 twice/);
  const missing = await run('check', join(dir, 'nope.txt'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /nope\.txt/);
});

test('usage errors exit 2', async () => {
  assert.equal((await run('check')).code, 2);
  assert.equal((await run('check', 'a', 'b')).code, 2);
  assert.equal((await run('check', join(ROOT, 'examples/long-fork.txt'), '--level', 'snapshot')).code, 2);
  assert.equal((await run('check', join(ROOT, 'examples/long-fork.txt'), '--timeout', '-1')).code, 2);
  assert.equal((await run('check', join(ROOT, 'examples/long-fork.txt'), '--bogus')).code, 2);
  assert.equal((await run('frobnicate')).code, 2);
});

test('a zero time budget gives the verdict unknown with a reason (exit 3 in the CLI)', { skip: NO_DATA }, async () => {
  const { history } = await readHistory(join(DATA, 'polysi/valid/fig7/20_100_15_10000_0.5_uniform.bincode'));
  const r = checkHistory(history, { level: 'si', pruning: true, timeoutMs: 0 });
  assert.equal(r.verdict, 'unknown');
  assert.match(r.unknownReason ?? '', /time limit/);
  const off = checkHistory(history, { level: 'si', pruning: false, timeoutMs: 0 });
  assert.equal(off.verdict, 'unknown');
});

test('a reachability bound smaller than the sessions gives a note and the same verdict', { skip: NO_DATA }, async () => {
  const { history } = await readHistory(join(DATA, 'polysi/violations/dgraph-causality.bincode'));
  const full = checkHistory(history, { level: 'si', pruning: true });
  const bounded = checkHistory(history, { level: 'si', pruning: true, reachCellsMax: 2 * history.txnCount * 3 });
  assert.equal(bounded.verdict, full.verdict);
  assert.ok((bounded.notes ?? []).some((n) => /tracked the 3 longest of 10 transaction chains/.test(n)), JSON.stringify(bounded.notes));
  assert.equal(full.notes, undefined);
});

test('progress events arrive in stage order, with pruning rounds and shrinking constraint counts', { skip: NO_DATA }, async () => {
  const { history } = await readHistory(join(DATA, 'polysi/valid/fig8/25_400_8_10000_0.95_uniform.bincode'));
  const events: { stage: string; round?: number; constraintsLeft?: number }[] = [];
  const r = checkHistory(history, { level: 'si', pruning: true, onProgress: (e) => events.push(e) });
  assert.equal(r.verdict, 'valid');
  const stages = events.map((e) => e.stage).filter((s, i, a) => i === 0 || a[i - 1] !== s);
  assert.deepEqual(stages, ['validate', 'construct', 'prune', 'solve']);
  const rounds = events.filter((e) => e.stage === 'prune' && e.round! > 0);
  assert.equal(rounds.length, r.constraints.pruneRounds);
  for (let i = 1; i < rounds.length; i++) assert.ok(rounds[i]!.constraintsLeft! <= rounds[i - 1]!.constraintsLeft!);
  assert.equal(rounds.at(-1)!.constraintsLeft, r.constraints.after);
});

test('the chain cover merges one-transaction sessions along dependencies (Elle without :process)', { skip: NO_DATA }, async () => {
  const { validate } = await import('../../src/validate/validate.ts');
  const { buildPolygraph } = await import('../../src/graph/polygraph.ts');
  const { buildSplitGraph, topoOrder } = await import('../../src/graph/split.ts');
  const { chainCover } = await import('../../src/prune/chains.ts');
  const { history } = await readHistory(join(DATA, 'elle/paper-example.edn'));
  const pg = buildPolygraph(validate(history));
  const k = pg.known;
  const g = buildSplitGraph(pg.nodeCount, k.length, k.from.view(), k.to.view(), k.kind.view(), 'si');
  const cover = chainCover(history, g, topoOrder(g)!);
  assert.ok(cover.count < history.sessionCount, `${cover.count} chains for ${history.sessionCount} sessions`);
  // Consecutive members of a chain are joined by a Dep edge (the property reachability relies on).
  for (let t = 0; t < history.txnCount; t++) {
    const c = cover.chainOf[t]!;
    if (c < 0 || cover.posOf[t] === 0) continue;
    const prev = [...Array(history.txnCount).keys()].find((p) => cover.chainOf[p] === c && cover.posOf[p] === cover.posOf[t]! - 1);
    assert.ok(prev !== undefined, `chain ${c} has no element before position ${cover.posOf[t]}`);
    let linked = false;
    for (let e = g.outStart[2 * prev]!; e < g.outStart[2 * prev + 1]!; e++) if (g.outTo[e] === 2 * t) linked = true;
    assert.ok(linked, `txn ${prev} -> ${t} in chain ${c} without a Dep edge`);
  }
});
