/**
 * The embedded store: its isolation modes really provide what they claim over many seeds, and
 * every fault mode produces the anomaly it is named after, named so by the checker.
 * Workloads are small (4 sessions x 20 txns, few keys) so that transactions collide often.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TXN_ABORTED, TXN_COMMITTED } from '../../src/history/model.ts';
import { MEMORY_MODES, modeInfo, type MemoryMode } from '../../src/run/store/modes.ts';
import type { WorkloadName } from '../../src/workload/index.ts';
import { anomalyNames, check, runMemory } from './support.ts';

const SCALE = Number(process.env['POLYSI_FUZZ_SCALE'] ?? 1);
const SEEDS = 60 * SCALE;

for (const workload of ['register', 'list-append'] as const) {
  for (const [mode, level] of [['snapshot', 'si'], ['serializable', 'ser']] as const) {
    test(`memory:${mode} never yields a ${level.toUpperCase()} violation (${workload}, ${SEEDS} seeds, uniform and hotspot keys)`, async () => {
      let aborted = 0, committed = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const r = await runMemory(mode, { workload, seed, keys: 4 + (seed % 8), distribution: seed % 2 === 0 ? 'hotspot' : 'uniform' });
        const c = check(r.history, level);
        assert.equal(c.verdict, 'valid', `seed ${seed}: ${anomalyNames(c).join(', ')}`);
        aborted += r.summary.aborted;
        committed += r.summary.committed;
      }
      // Conflicts really happened (the store's certification was exercised), yet many commit.
      assert.ok(aborted > 0, 'some transactions aborted on conflicts');
      assert.ok(committed >= (committed + aborted) / 10, `committed ${committed}, aborted ${aborted}`);
    });
  }
}

test('memory:serializable histories are not all trivially serial: snapshot histories include write skew under SER', async () => {
  // The same workloads on the snapshot store violate SER at least once (so the SER test above
  // could fail if serializable mode certified nothing).
  let found = false;
  for (let seed = 1; seed <= 30 && !found; seed++) {
    const r = await runMemory('snapshot', { seed, keys: 4 });
    found = check(r.history, 'ser').verdict === 'violation';
  }
  assert.ok(found, 'snapshot store shows a SER violation within 30 seeds');
});

/**
 * Fault mode, workload, the name the checker must give (list-append shows a lost append as an
 * incompatible order), and the level checked (SI unless given: phantom breaks only SER).
 */
const FAULTS: [MemoryMode, WorkloadName, string, ('si' | 'ser')?][] = [
  ['lost-update', 'register', 'lost update'],
  ['lost-update', 'list-append', 'incompatible-order'],
  ['long-fork', 'register', 'long fork'],
  ['long-fork', 'list-append', 'long fork'],
  ['causality', 'register', 'causality violation'],
  ['causality', 'list-append', 'causality violation'],
  ['aborted-read', 'register', 'G1a'],
  ['aborted-read', 'list-append', 'G1a'],
  ['intermediate-read', 'register', 'G1b'],
  ['intermediate-read', 'list-append', 'G1b'],
  ['stale-session', 'register', 'session guarantee violation'],
  ['stale-session', 'list-append', 'session guarantee violation'],
  ['phantom', 'predicate', 'G2', 'ser'],
];

for (const [mode, workload, name, level = 'si'] of FAULTS) {
  test(`memory:${mode} yields "${name}" (${workload}) at ${level}`, async () => {
    let named = 0, violations = 0;
    const seeds = 20;
    for (let seed = 1; seed <= seeds; seed++) {
      // Replica 2 of memory:causality takes no writes: its readers come from the mode's read fraction.
      const reads = mode === 'causality' ? { readFraction: modeInfo(mode)!.workload!.readFraction! } : {};
      const r = await runMemory(mode, { workload, seed, ...reads, ...(workload === 'predicate' ? { keys: 60, shapes: 'g2' as const } : {}) });
      const c = check(r.history, level);
      if (c.verdict === 'violation') violations++;
      else assert.equal(c.verdict, 'valid');
      // A label is "class (description)": the fault's name may be either.
      if (anomalyNames(c).some((l) => l === name || l.startsWith(`${name} (`) || l.endsWith(`(${name})`))) named++;
    }
    assert.ok(named >= 2, `"${name}" named in ${named} of ${seeds} runs (expected at least 2)`);
    assert.ok(violations >= seeds / 4, `${violations} of ${seeds} runs violate ${level}`);
  });
}

test('every fault mode in MEMORY_MODES is covered above and names a level', () => {
  for (const m of MEMORY_MODES.filter((x) => x.kind === 'fault')) {
    assert.ok(FAULTS.some(([mode, , name]) => mode === m.name && (name === m.anomaly || mode === 'lost-update')), m.name);
  }
});

test('memory:read-committed is read committed, not SI: its non-repeatable reads violate read atomic and up, never as INT', async () => {
  for (const workload of ['register', 'list-append'] as const) {
    const r = await runMemory('read-committed', { seed: 3, workload });
    const rc = check(r.history, 'rc');
    assert.equal(rc.verdict, 'valid', `${workload}: ${anomalyNames(rc).join(', ')}`);
    for (const level of ['ra', 'si'] as const) {
      const c = check(r.history, level);
      assert.equal(c.verdict, 'violation', `${workload} at ${level}`);
      assert.ok(!anomalyNames(c).includes('INT'), `${workload} at ${level}: ${anomalyNames(c).join(', ')}`);
    }
  }
});

test('aborts are recorded with the store\'s error code; commits without one', async () => {
  const r = await runMemory('snapshot', { seed: 5, keys: 3 });
  const h = r.history;
  assert.ok(r.summary.aborted > 0);
  assert.equal(r.summary.aborted + r.summary.committed, 80);
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] === TXN_ABORTED) assert.equal(h.txnError?.[t], 'write-conflict');
    if (h.txnStatus[t] === TXN_COMMITTED) assert.equal(h.txnError?.[t] ?? '', '');
    assert.ok(h.txnStart![t]! <= h.txnEnd![t]!);
  }
});

for (const workload of ['register', 'list-append'] as const) {
  test(`memory:flaky-commit: lost commit answers are recorded unknown and checked soundly (${workload}, ${SEEDS} seeds)`, async () => {
    let unknown = 0, unknownRead = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = await runMemory('flaky-commit', { workload, seed, keys: 4 + (seed % 8) });
      const c = check(r.history, 'si');
      // Half the unknown commits took effect, half did not: SI holds either way if the checker
      // includes exactly the unknown txns someone read.
      assert.equal(c.verdict, 'valid', `seed ${seed}: ${anomalyNames(c).join(', ')}`);
      unknown += r.summary.unknown;
      assert.equal(r.summary.errors['lost-commit'], r.summary.unknown === 0 ? undefined : r.summary.unknown);
      unknownRead += c.counts.checkedTransactions - r.summary.committed;
    }
    assert.ok(unknown > 0, 'some commits lost their answer');
    assert.ok(unknownRead > 0, `some unknown txns (${unknownRead}) were read and so checked`);
  });
}

// Issue 22: with predicates (the predicate workload's G2 shapes: read a predicate, insert a row
// matching it), snapshot stays SI but shows predicate write skews (G2) under SER; serializable,
// which certifies predicate reads, never violates SER. (With certifyPredicates off, serializable
// is the phantom mode, which the FAULTS table above shows yielding G2.)
test('memory with predicates: snapshot is SI and shows G2 under SER; serializable is SER (predicate workload, 10 seeds)', async () => {
  // Never a violation of the level the mode provides; the checker may answer unknown (a search
  // over unreturned rows' versions it does not implement: docs/levels.md, "Predicates"), which
  // is counted: most runs must be decided valid.
  let g2 = 0, snapValid = 0, serValid = 0;
  for (let seed = 1; seed <= 10; seed++) {
    const w = { workload: 'predicate' as const, shapes: 'g2' as const, keys: 30, sessions: 6, seed };
    const snap = await runMemory('snapshot', w);
    const si = check(snap.history, 'si');
    assert.notEqual(si.verdict, 'violation', `snapshot seed ${seed}: ${anomalyNames(si).join(', ')}`);
    if (si.verdict === 'valid') snapValid++;
    if (anomalyNames(check(snap.history, 'ser')).some((l) => l.startsWith('G2 ('))) g2++;
    const ser = check((await runMemory('serializable', w)).history, 'ser');
    assert.notEqual(ser.verdict, 'violation', `serializable seed ${seed}: ${anomalyNames(ser).join(', ')}`);
    if (ser.verdict === 'valid') serValid++;
  }
  assert.ok(g2 >= 5, `snapshot: G2 named in ${g2} of 10 seeds`);
  // Measured: snapshot 6 of 10 decided valid at SI (4 unknown), serializable 10 of 10 at SER.
  assert.ok(snapValid >= 5 && serValid >= 8, `decided valid: snapshot ${snapValid}, serializable ${serValid} of 10`);
});
