/**
 * `polysi run` reports lost-update and write-skew opportunities (issue 21): the summary lines and
 * `run.opportunities` in the JSON (schema/run-result.schema.json), the same numbers the library
 * counts on the recorded file, and they tell a store that prevents lost updates (snapshot: aborts)
 * from one that allows them (lost-update), and one that allows write skews (snapshot) from one
 * that prevents them (serializable).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readHistory } from '../../src/formats/index.ts';
import { lostUpdateOpportunities, writeSkewOpportunities } from '../../src/history/opportunities.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('opportunities-cli');
const ROOT = resolve(import.meta.dirname, '..', '..');
const ajv = new Ajv2020({ allErrors: true, strict: false });
type Counts = { pairs: number; allowed: number; aborted: number; abortCodes: Record<string, number> };
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'run-result.schema.json'), 'utf8')) as object);

test('run --json: opportunities validate against the schema and equal the library\'s count of the file', async () => {
  const out = join(DIR, 'snapshot.jsonl');
  const r = await runCli('run', '--db', 'memory:snapshot', '--profile', 'contention', '--txns', '30', '--out', out, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as { run: { opportunities: Record<'lostUpdate' | 'writeSkew', Counts> } };
  assert.ok(validate(j), ajv.errorsText(validate.errors));
  const { lostUpdate: lu, writeSkew: ws } = j.run.opportunities;
  const { history } = await readHistory(out, 'jsonl');
  assert.deepEqual(lu, lostUpdateOpportunities(history));
  assert.deepEqual(ws, writeSkewOpportunities(history));
  // Snapshot isolation had its chances and prevented every lost update by aborting (first
  // committer wins), and let write skews through (disjoint writes do not conflict).
  assert.ok(lu.pairs > 0 && lu.allowed === 0 && lu.aborted > 0 && (lu.abortCodes['write-conflict'] ?? 0) > 0, JSON.stringify(lu));
  assert.ok(ws.allowed > 0, JSON.stringify(ws));
});

test('run --json: serializable had write-skew opportunities and allowed none', async () => {
  const r = await runCli('run', '--db', 'memory:serializable', '--profile', 'contention', '--txns', '30', '--out', join(DIR, 'ser.jsonl'), '--json');
  assert.equal(r.code, 0, r.err);
  const ws = (JSON.parse(r.out) as { run: { opportunities: { writeSkew: Counts } } }).run.opportunities.writeSkew;
  assert.ok(ws.pairs > 0 && ws.allowed === 0 && ws.aborted > 0, JSON.stringify(ws));
});

test('run: the summary says how many overlapping read-modify-writes were allowed', async () => {
  const r = await runCli('run', '--db', 'memory:lost-update', '--out', join(DIR, 'lost.jsonl'));
  assert.equal(r.code, 1, r.err);
  const m = /lost-update opportunities: (\d+) pairs of overlapping read-modify-writes of one key: (\d+) allowed/.exec(r.err);
  assert.ok(m !== null, r.err);
  assert.ok(Number(m[2]) > 0 && Number(m[2]) <= Number(m[1]));
  assert.match(r.err, /write-skew opportunities: (none|\d+ pairs? of overlapping transactions each reading what the other writes: \d+ allowed)/);
});
