/**
 * `polysi run` reports lost-update opportunities (issue 21): the summary line and `run.opportunities`
 * in the JSON (schema/run-result.schema.json), the same numbers the library counts on the
 * recorded file, and they tell a store that prevents lost updates (snapshot: aborts) from one
 * that allows them (lost-update).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readHistory } from '../../src/formats/index.ts';
import { lostUpdateOpportunities } from '../../src/history/opportunities.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('opportunities-cli');
const ROOT = resolve(import.meta.dirname, '..', '..');
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'run-result.schema.json'), 'utf8')) as object);

test('run --json: opportunities validate against the schema and equal the library\'s count of the file', async () => {
  const out = join(DIR, 'snapshot.jsonl');
  const r = await runCli('run', '--db', 'memory:snapshot', '--profile', 'contention', '--txns', '30', '--out', out, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as { run: { opportunities: { lostUpdate: Record<string, unknown> } } };
  assert.ok(validate(j), ajv.errorsText(validate.errors));
  const lu = j.run.opportunities.lostUpdate as { pairs: number; allowed: number; aborted: number; abortCodes: Record<string, number> };
  assert.deepEqual(lu, lostUpdateOpportunities((await readHistory(out, 'jsonl')).history));
  // Snapshot isolation had its chances and prevented every one by aborting (first committer wins).
  assert.ok(lu.pairs > 0 && lu.allowed === 0 && lu.aborted > 0 && (lu.abortCodes['write-conflict'] ?? 0) > 0, JSON.stringify(lu));
});

test('run: the summary says how many overlapping read-modify-writes were allowed', async () => {
  const r = await runCli('run', '--db', 'memory:lost-update', '--out', join(DIR, 'lost.jsonl'));
  assert.equal(r.code, 1, r.err);
  const m = /lost-update opportunities: (\d+) pairs of overlapping read-modify-writes of one key: (\d+) allowed/.exec(r.err);
  assert.ok(m !== null, r.err);
  assert.ok(Number(m[2]) > 0 && Number(m[2]) <= Number(m[1]));
});
