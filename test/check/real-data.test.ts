/**
 * Real histories recorded by others (../shared/data, read in place) with their known verdicts.
 * The expected verdicts come from ../shared/data/README.md; nothing here is derived from our
 * own output. Small histories are also checked with pruning off, which must agree.
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory, type Level, type Verdict } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';
import { verifyCycle } from '../support/verify-result.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

const NO_DATA = needsData();
const DATA = DATA_DIR;

interface Case { path: string; level: Level; expect: Verdict; format?: string; bothPruning?: boolean }

const CASES: Case[] = [
  { path: 'polysi/violations/galera-lost-update.txt', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'polysi/violations/yugabyte-causality.txt', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'polysi/violations/dgraph-causality.bincode', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'isovista/dgraph_si.txt', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'isovista/pg_ser_bug.txt', level: 'ser', expect: 'violation', bothPruning: true },
  { path: 'isovista/yugabyte_tcc.txt', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'small/long-fork.txt', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'small/causality-violation.txt', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'small/session-guarantee.txt', level: 'si', expect: 'violation', bothPruning: true },
  { path: 'small/write-skew.txt', level: 'si', expect: 'valid', bothPruning: true },
  { path: 'small/write-skew.txt', level: 'ser', expect: 'violation', bothPruning: true },
  ...['25_400_8_10000_0.3_uniform', '25_400_8_10000_0.5_uniform', '25_400_8_10000_0.95_uniform']
    .map((n): Case => ({ path: `polysi/valid/fig8/${n}.bincode`, level: 'si', expect: 'valid' })),
];

const EXTRA_FORMAT_CASES: Case[] = [
  { path: 'elle/paper-example.edn', level: 'si', expect: 'violation', format: 'edn', bothPruning: true },
  { path: 'elle/si-without-g-single.edn', level: 'si', expect: 'valid', format: 'edn', bothPruning: true },
  { path: 'elle/si-without-g-single.edn', level: 'ser', expect: 'violation', format: 'edn', bothPruning: true },
  ...['rubis-10000', 'tpcc-10000', 'twitter-10000'].flatMap((d): Case[] => [
    { path: `polysi/valid/cobra/${d}`, level: 'si', expect: 'valid', format: 'cobra' },
    { path: `polysi/valid/cobra/${d}`, level: 'ser', expect: 'valid', format: 'cobra' },
  ]),
];

async function run(c: Case): Promise<void> {
  const { history } = await readHistory(join(DATA, c.path), c.format ?? 'auto');
  const r = checkHistory(history, { level: c.level, pruning: true });
  assert.equal(r.verdict, c.expect, `${c.path} under ${c.level}`);
  if (r.verdict === 'violation') {
    assert.ok(r.anomalies.length > 0);
    for (const a of r.anomalies) if (a.type === 'cycle') assert.deepEqual(verifyCycle(history, c.level, a), [], `${c.path}: unjustified cycle`);
  }
  if (c.bothPruning) {
    const off = checkHistory(history, { level: c.level, pruning: false });
    assert.equal(off.verdict, c.expect, `${c.path} under ${c.level} with pruning off`);
    for (const a of off.anomalies) if (a.type === 'cycle') assert.deepEqual(verifyCycle(history, c.level, a), []);
  }
}

describe('real histories with their known verdicts', { skip: NO_DATA }, () => {
  for (const c of CASES) {
    test(`${c.path} is ${c.expect} under ${c.level.toUpperCase()}`, () => run(c));
  }

  for (const c of EXTRA_FORMAT_CASES) {
    test(`${c.path} is ${c.expect} under ${c.level.toUpperCase()} (format ${c.format})`, () => run(c));
  }

  test('all 31 fig7 histories (PostgreSQL REPEATABLE READ) are SI-valid', async () => {
    const dir = join(DATA, 'polysi/valid/fig7');
    const files = readdirSync(dir).filter((f) => f.endsWith('.bincode')).sort();
    assert.equal(files.length, 31);
    for (const f of files) {
      const { history } = await readHistory(join(dir, f));
      const r = checkHistory(history, { level: 'si', pruning: true });
      assert.equal(r.verdict, 'valid', f);
    }
  });
});
