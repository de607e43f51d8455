/**
 * `polysi analyze` as a command: its --json is a contract (schema/analyze-result.schema.json,
 * with schemaVersion), an anomaly the interpreter did not confirm has its own exit code (5, not
 * the 1 of a confirmed one), the default model is said, and a missing program is reported in
 * words as `check` reports a missing history (no raw ENOENT).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { main } from '../../src/cli/main.ts';
import { analyzeExit, EXIT_UNCONFIRMED, USAGE } from '../../src/cli/analyze.ts';
import { SCHEMA_VERSION } from '../../src/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ajv = new Ajv2020({ allErrors: true, strict: true });
const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'analyze-result.schema.json'), 'utf8')) as { properties: { schemaVersion: { const: number } } };
const validate = ajv.compile(schema);

async function analyze(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const code = await main(['analyze', ...argv], { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } });
  return { code, out, err };
}

function assertValid(j: unknown, what: string): void {
  assert.ok(validate(j), `${what}: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}`);
}

test('analyze --json carries schemaVersion and matches its schema: an anomaly, a proof, a --confirm run', { timeout: 120_000 }, async () => {
  assert.equal(schema.properties.schemaVersion.const, SCHEMA_VERSION);
  const anomaly = await analyze('examples/anode/withdraw.anode', '--json');
  assert.equal(anomaly.code, 1, anomaly.err);
  const a = JSON.parse(anomaly.out) as Record<string, unknown> & { anomaly: { confirmed: boolean } };
  assert.equal(a['schemaVersion'], SCHEMA_VERSION);
  assert.equal(a.anomaly.confirmed, true);
  assertValid(a, 'withdraw under ec');
  const proved = await analyze('examples/anode/withdraw.anode', '--model', 'si', '--prove', '--json');
  assert.equal(proved.code, 0, proved.err);
  assertValid(JSON.parse(proved.out), 'withdraw under si, proved');
  const confirmed = await analyze('examples/anode/withdraw.anode', '--json', '--confirm', '--db', 'memory:lost-update', '--rounds', '5');
  const c = JSON.parse(confirmed.out) as Record<string, unknown>;
  assert.notEqual(c['dynamic'], null);
  assertValid(c, 'withdraw --confirm');
  // Strict: a field it does not name, or none of schemaVersion, is rejected.
  assert.equal(validate({ ...a, extra: 1 }), false);
  const { schemaVersion: _, ...without } = a;
  assert.equal(validate(without), false);
});

test('an anomaly the interpreter did not confirm exits 5, a confirmed one 1', () => {
  const anomaly = (reproduced: boolean) => ({ verdict: 'anomaly' as const, anomaly: { confirmation: { reproduced } } });
  assert.equal(EXIT_UNCONFIRMED, 5);
  assert.equal(analyzeExit(anomaly(true)), 1);
  assert.equal(analyzeExit(anomaly(false)), 5);
  assert.equal(analyzeExit({ verdict: 'none', anomaly: null }), 0);
  assert.equal(analyzeExit({ verdict: 'proved', anomaly: null }), 0);
  assert.equal(analyzeExit({ verdict: 'unknown', anomaly: null }), 3);
  assert.match(USAGE, /5 an anomaly the interpreter did not confirm/);
});

test('the default model is said: in the usage, and in the report when --model is not given', async () => {
  assert.match(USAGE, /defaults: --model ec/);
  const r = await analyze('examples/anode/withdraw.anode');
  assert.match(r.out.split('\n')[0]!, /model ec \(the default; --model to choose\)/);
  const given = await analyze('examples/anode/withdraw.anode', '--model', 'ec');
  assert.doesNotMatch(given.out, /the default/);
});

test('a missing program is said in words, as check says a missing history', async () => {
  const r = await analyze('no-such-program.anode');
  assert.equal(r.code, 2);
  assert.equal(r.err.trim(), 'polysi: no-such-program.anode: cannot read the program: no such file or directory');
});
