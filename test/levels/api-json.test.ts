/**
 * The weak levels through the public API (`checkHistory` of src/index.ts, options validated):
 * every verdict and counterexample, as `resultJson` prints it, conforms to the JSON Schema of
 * schema/check-result.schema.json (levels, `decidedBy: 'saturation'`, the new anomaly names),
 * and the text rendering of the explanation names the level.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { checkHistory, resultJson } from '../../src/index.ts';
import { tinyHistory } from '../support/tiny-history.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'check-result.schema.json'), 'utf8')) as object);

const HISTORIES = {
  fractured: tinyHistory([{ s: 1, ops: 'w(x,1) w(y,1)' }, { s: 2, ops: 'r(x,1) r(y,0)' }]),
  causal: tinyHistory([{ s: 1, ops: 'w(x,1)' }, { s: 2, ops: 'r(x,1) w(y,2)' }, { s: 3, ops: 'r(y,2) r(x,0)' }]),
  g0: tinyHistory([{ s: 1, ops: 'a(l,1) a(m,3)' }, { s: 2, ops: 'a(l,2) a(m,4)' }, { s: 3, ops: 'r(l,[1,2]) r(m,[4,3])' }]),
  aborted: tinyHistory([{ s: 1, ops: 'w(x,1)', status: 'aborted' }, { s: 2, ops: 'r(x,1)' }]),
};

for (const [name, h] of Object.entries(HISTORIES)) {
  for (const level of ['ru', 'rc', 'ra', 'tcc'] as const) {
    test(`${name} at ${level}: the JSON result conforms to the schema`, () => {
      const r = checkHistory(h, { level });
      const j = resultJson(h, r, {}, true);
      assert.ok(validate(j), ajv.errorsText(validate.errors, { separator: '\n  ' }));
      assert.equal(j['level'], level);
      if (r.verdict === 'violation' && r.decidedBy === 'saturation') {
        const cx = r.anomalies[0]!.explanation!;
        assert.equal(cx.certificate.status, 'certified');
      }
    });
  }
}

test('read uncommitted allows an aborted read that read committed forbids', () => {
  assert.equal(checkHistory(HISTORIES.aborted, { level: 'ru' }).verdict, 'valid');
  const rc = checkHistory(HISTORIES.aborted, { level: 'rc' });
  assert.equal(rc.verdict, 'violation');
  assert.equal(rc.decidedBy, 'validation');
  assert.equal(rc.anomalies[0]!.type === 'non-cycle' && rc.anomalies[0]!.name, 'G1a');
});
