/**
 * `polysi run --db memory:MODE` with nothing else given: each fault mode's own workload (hot keys,
 * read-modify-writes; src/run/store/modes.ts) makes the checker name the mode's anomaly, seed
 * after seed; and a run that did not run everything it planned is incomplete (exit 3).
 * Figures before this workload (issue 21): lost update 0/10 named, long fork 1/10, causality 0/10.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { incompleteReason } from '../../src/cli/run.ts';
import { MEMORY_MODES } from '../../src/run/store/modes.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('fault-modes');
const SEEDS = 10;

/**
 * Seeds (of 10) whose report names the mode's anomaly, at least (measured; issue 21 asks for 10).
 * Where the count is short, the checker's counterexample is another name for the same fault:
 * a lost update whose argument also considers a cycle through session order is named after the
 * looser cycle (a G-single or G-single-process: docs/explain.md, "Names"), a causality
 * violation through session order a G-single-process, a slow replica's fault a long fork.
 * phantom (predicate workload, g2 shapes): G2, the predicate write skew, in 10 of 10.
 */
const NAMED_MIN: Record<string, number> = { 'lost-update': 10, 'long-fork': 10, causality: 10, 'aborted-read': 10, 'stale-session': 10, 'intermediate-read': 10, phantom: 10 };
const NAME: Record<string, string> = { G1a: 'aborted read', G1b: 'intermediate read' };

for (const mode of MEMORY_MODES.filter((m) => m.kind === 'fault')) {
  test(`memory:${mode.name}: the default run names ${mode.anomaly} in at least ${NAMED_MIN[mode.name]} of ${SEEDS} seeds`, async () => {
    const want = NAME[mode.anomaly!] ?? mode.anomaly!;
    let named = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = await runCli('run', '--db', `memory:${mode.name}`, '--seed', String(seed), '--out', join(DIR, `${mode.name}-${seed}.jsonl`), '--json');
      assert.equal(r.code, 1, `${mode.name} seed ${seed}: ${r.err}`);
      type Named = { class?: string; description?: string | null };
      const j = JSON.parse(r.out) as { anomalies: (Named & { explanation?: Named })[] };
      const names = (a: Named & { explanation?: Named }) => [a.class, a.description, a.explanation?.class, a.explanation?.description];
      if (j.anomalies.some((a) => names(a).includes(want) || names(a).includes(mode.anomaly!))) named++;
    }
    assert.ok(named >= NAMED_MIN[mode.name]!, `${mode.name}: ${want} named in ${named}/${SEEDS} seeds`);
  });
}

test('run --check takes every level and `levels`; a bad one is a usage error', async () => {
  // One file per run: run --out never replaces an existing recording.
  const rc = await runCli('run', '--db', 'memory:read-committed', '--txns', '20', '--out', join(DIR, 'levels-rc.jsonl'), '--check', 'rc');
  assert.ok(rc.code === 0 || rc.code === 1, rc.err);
  assert.match(rc.out, /RC: (VALID|VIOLATION)/i);
  const all = await runCli('run', '--db', 'memory:lost-update', '--out', join(DIR, 'levels-all.jsonl'), '--check', 'levels', '--json');
  assert.equal(all.code, 0, all.err);
  const j = JSON.parse(all.out) as { run: { complete: boolean }; levels: { level: string; status: string }[] };
  assert.equal(j.run.complete, true);
  assert.equal(j.levels.find((r) => r.level === 'psi')!.status, 'violated');
  const bad = await runCli('run', '--db', 'memory', '--check', 'nope', '--out', join(DIR, 'levels-bad.jsonl'));
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--check must be one of .*levels or none/);
});

test('a run is incomplete when sessions lost their connection or planned transactions were not run', () => {
  const sum = { committed: 5, aborted: 0, unknown: 0, notRun: 0, sessionsLost: 0, elapsedMs: 1, errors: {}, errorClasses: {}, reconnects: 0 };
  assert.equal(incompleteReason(sum, false), null);
  assert.equal(incompleteReason({ ...sum, notRun: 328, sessionsLost: 20 }, false), '20 sessions lost the connection, 328 planned transactions were not run');
  assert.equal(incompleteReason({ ...sum, notRun: 1 }, true), 'interrupted, 1 planned transaction was not run');
});
