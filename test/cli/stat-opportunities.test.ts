/**
 * `polysi stat` shows the opportunities of src/history/opportunities.ts (issue 21): in the text
 * and in `--json` (`opportunities`, schema/stat-result.schema.json), counted from any recording
 * with transaction times; a history without times says it could not count them (null).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'stat-result.schema.json'), 'utf8')) as object);
const DIR = scratchDir('stat-opportunities-');

// T1 [0,10] and T2 [5,15]: both read x and y at init, T1 writes x, T2 y: an allowed write skew.
// T3 [20,30] and T4 [25,35]: both read z at init and write it, T4 aborts: a lost update prevented.
const TIMED = [
  '{"format":"polysi-history","version":1,"sessions":["a","b"]}',
  '{"session":"a","txn":"T1","status":"committed","ops":[["r","x",null],["r","y",null],["w","x",1]],"start":0,"end":10}',
  '{"session":"b","txn":"T2","status":"committed","ops":[["r","x",null],["r","y",null],["w","y",2]],"start":5,"end":15}',
  '{"session":"a","txn":"T3","status":"committed","ops":[["r","z",null],["w","z",3]],"start":20,"end":30}',
  '{"session":"b","txn":"T4","status":"aborted","ops":[["r","z",null],["w","z",4]],"start":25,"end":35,"error":"40001"}',
].join('\n') + '\n';

test('stat --json and text: the lost-update and write-skew opportunities of a recording with times', async () => {
  const path = join(DIR, 'timed.jsonl');
  writeFileSync(path, TIMED);
  const r = await runCli('stat', path, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as { opportunities: unknown };
  assert.ok(validate(j), ajv.errorsText(validate.errors));
  assert.deepEqual(j.opportunities, {
    lostUpdate: { pairs: 1, allowed: 0, blocked: 0, aborted: 1, abortCodes: { '40001': 1 }, unknown: 0, other: 0 },
    writeSkew: { pairs: 1, allowed: 1, blocked: 0, aborted: 0, abortCodes: {}, unknown: 0, other: 0 },
  });
  const t = await runCli('stat', path);
  assert.equal(t.code, 0, t.err);
  assert.match(t.out, /^lost-update opportunities: 1 pair of overlapping read-modify-writes of one key: 0 allowed .*, 1 aborted \(40001 1\)/m);
  assert.match(t.out, /^write-skew opportunities: 1 pair of overlapping transactions each reading what the other writes: 1 allowed/m);
});

test('stat of a history without times: opportunities null, and the text says why', async () => {
  const r = await runCli('stat', join(ROOT, 'examples', 'long-fork.txt'), '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as { opportunities: unknown };
  assert.ok(validate(j), ajv.errorsText(validate.errors));
  assert.deepEqual(j.opportunities, { lostUpdate: null, writeSkew: null });
  const t = await runCli('stat', join(ROOT, 'examples', 'long-fork.txt'));
  assert.match(t.out, /^opportunities: not counted \(the history has no transaction times/m);
});
