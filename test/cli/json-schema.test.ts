/**
 * The `--json` output is a contract: schema/check-result.schema.json (JSON Schema 2020-12,
 * strict: no property it does not name) must accept every real output, of every verdict and
 * anomaly kind, and must reject outputs that break it. The outputs come from `main` (the CLI's
 * own code path) and, for 'unknown', from the library's `resultJson` over a zero time budget.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { main } from '../../src/cli/main.ts';
import { checkHistory, readHistory, resultJson, SCHEMA_VERSION } from '../../src/index.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'check-result.schema.json'), 'utf8')) as { properties: { schemaVersion: { const: number } } };
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(schema);
const validateStat = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'stat-result.schema.json'), 'utf8')) as object);

function assertValid(j: unknown, what: string): void {
  const ok = validate(j);
  assert.ok(ok, `${what}: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}`);
}

async function checkJson(...argv: string[]): Promise<{ code: number; j: Record<string, unknown> }> {
  let out = '';
  const code = await main(['check', ...argv, '--json'], { stdout: (s) => { out += s; }, stderr: () => {} });
  return { code, j: JSON.parse(out) as Record<string, unknown> };
}

async function statJson(path: string, ...args: string[]): Promise<Record<string, unknown>> {
  let out = '';
  const code = await main(['stat', path, '--json', ...args], { stdout: (s) => { out += s; }, stderr: () => {} });
  assert.equal(code, 0, `stat ${path}`);
  return JSON.parse(out) as Record<string, unknown>;
}

function assertStatValid(j: unknown, what: string): void {
  assert.ok(validateStat(j), `${what}: ${ajv.errorsText(validateStat.errors, { separator: '\n  ' })}`);
}

const tmp = scratchDir('polysi-schema-');

test('the schema and the code agree on schemaVersion', () => {
  assert.equal(schema.properties.schemaVersion.const, SCHEMA_VERSION);
});

test('valid (an empty history too), and a violation with explanations and their text, match the schema', async () => {
  const valid = await checkJson(join(ROOT, 'examples/bank-valid.jsonl'));
  assert.equal(valid.code, 0);
  assert.equal(valid.j['schemaVersion'], SCHEMA_VERSION);
  assertValid(valid.j, 'valid');
  const ser = await checkJson(join(ROOT, 'examples/bank-valid.jsonl'), '--level', 'ser', '--explain');
  assert.equal(ser.code, 1);
  const a = (ser.j['anomalies'] as { explanation?: unknown; text?: string }[])[0]!;
  assert.ok(a.explanation !== undefined && typeof a.text === 'string', 'explained, with text');
  assertValid(ser.j, 'violation --explain');
  const fork = await checkJson(join(ROOT, 'examples/long-fork.txt'), '--neighbours');
  assertValid(fork.j, 'long fork --neighbours');
  const empty = join(tmp, 'empty-check.jsonl');
  writeFileSync(empty, '');
  const e = await checkJson(empty, '--format', 'jsonl');
  assert.equal(e.code, 0);
  assertValid(e.j, 'an empty history');
});

test('non-cycle anomalies (G1a, G1b, INT, garbage read, list anomalies) match the schema', async () => {
  const f = join(tmp, 'non-cycle.jsonl');
  writeFileSync(f, [
    '{"session":"s1","txn":"t1","status":"aborted","ops":[["w","x",1]]}',
    '{"session":"s2","txn":"t2","status":"committed","ops":[["r","x",1]]}',
    '{"session":"s3","txn":"t3","status":"committed","ops":[["w","y",1],["w","y",2]]}',
    '{"session":"s4","txn":"t4","status":"committed","ops":[["r","y",1]]}',
    '{"session":"s5","txn":"t5","status":"committed","ops":[["w","z",5],["r","z",null]]}',
    '{"session":"s6","txn":"t6","status":"committed","ops":[["r","w",42]]}',
    '{"session":"s7","txn":"t7","status":"committed","ops":[["append","l",1],["append","l",2]]}',
    '{"session":"s8","txn":"t8","status":"committed","ops":[["r","l",[1,1]]]}',
    '',
  ].join('\n'));
  const r = await checkJson(f, '--explain');
  assert.equal(r.code, 1);
  const names = new Set((r.j['anomalies'] as { type: string; name: string }[]).map((a) => `${a.type}:${a.name}`));
  for (const n of ['G1a', 'G1b', 'INT', 'garbage-read', 'duplicate-elements']) assert.ok(names.has(`non-cycle:${n}`), `${n} in ${[...names].join(', ')}`);
  assertValid(r.j, 'non-cycle anomalies');
});

test('an unknown verdict (zero time budget) matches the schema and needs its reason', async () => {
  const { history, format, notes } = await readHistory(join(ROOT, 'examples/bank-valid.jsonl'));
  const r = checkHistory(history, { level: 'si', timeoutMs: 0 });
  assert.equal(r.verdict, 'unknown');
  const j = resultJson(history, r, { file: 'bank-valid.jsonl', format, notes });
  assertValid(j, 'unknown');
  const { unknownReason: _, ...noReason } = j;
  assert.equal(validate(noReason), false, 'an unknown verdict without unknownReason was accepted');
});

test('the schema is strict: an unnamed field, a missing field, or a wrong type is rejected', async () => {
  const { j } = await checkJson(join(ROOT, 'examples/long-fork.txt'), '--explain');
  assertValid(j, 'long fork');
  const clone = () => JSON.parse(JSON.stringify(j)) as Record<string, any>;
  const cases: [string, (x: Record<string, any>) => void][] = [
    ['a new top-level field', (x) => { x['surprise'] = 1; }],
    ['a new field in an edge', (x) => { x['anomalies'][0].edges[0].weight = 1; }],
    ['a new field in a counterexample', (x) => { x['anomalies'][0].explanation.extra = true; }],
    ['a new field in a transaction', (x) => { x['transactions'][0].colour = 'red'; }],
    ['no verdict', (x) => { delete x['verdict']; }],
    ['no schemaVersion', (x) => { delete x['schemaVersion']; }],
    ['another schemaVersion', (x) => { x['schemaVersion'] = SCHEMA_VERSION + 1; }],
    ['an unknown edge kind', (x) => { x['anomalies'][0].edges[0].kind = 'XX'; }],
    ['a violation without anomalies', (x) => { x['anomalies'] = []; }],
    ['counts as strings', (x) => { x['counts'].sessions = '5'; }],
  ];
  for (const [what, mutate] of cases) {
    const x = clone();
    mutate(x);
    assert.equal(validate(x), false, `the schema accepted ${what}`);
  }
});

test('stat --json matches its schema (the examples, an empty history); the schema is strict', async () => {
  for (const f of ['examples/bank-valid.jsonl', 'examples/long-fork.txt']) {
    const j = await statJson(join(ROOT, f));
    assert.equal(j['schemaVersion'], SCHEMA_VERSION);
    assertStatValid(j, f);
  }
  const empty = join(tmp, 'empty.jsonl');
  writeFileSync(empty, '');
  const e = await statJson(empty, '--format', 'jsonl');
  assertStatValid(e, 'an empty history');
  assert.equal(validateStat({ ...e, surprise: 1 }), false, 'an unnamed field was accepted');
  assert.equal(validateStat({ ...e, sessions: -1 }), false, 'a negative count was accepted');
});

test('every real history in the shared data gives check (SI and SER) and stat JSON that match the schemas', { skip: needsData(), timeout: 600_000 }, async () => {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        // A directory of Cobra logs is one history.
        if (readdirSync(p).some((x) => x.endsWith('.log'))) files.push(p); else walk(p);
      } else if (!n.endsWith('.md')) files.push(p);
    }
  };
  walk(DATA_DIR);
  // The fig7/fig8 sweeps are 30+ histories of one kind: two of them stand for the rest.
  const chosen = files.filter((f) => !/\/fig[78]\//.test(f)).concat(files.filter((f) => /\/fig[78]\//.test(f)).slice(0, 2));
  assert.ok(chosen.length >= 10, `found ${chosen.length} histories under ${DATA_DIR}`);
  const verdicts = new Set<unknown>();
  for (const f of chosen) {
    for (const level of ['si', 'ser']) {
      const { code, j } = await checkJson(f, '--level', level, '--explain');
      assert.ok(code === 0 || code === 1, `${f} --level ${level}: exit ${code}`);
      verdicts.add(j['verdict']);
      assertValid(j, `${f} --level ${level}`);
    }
    assertStatValid(await statJson(f), `stat ${f}`);
  }
  assert.deepEqual([...verdicts].sort(), ['valid', 'violation']);
});

test('a time limit reached while parsing still prints a result that matches the schema', async () => {
  const dir = scratchDir('polysi-schema-timeout-');
  const path = join(dir, 'long.txt');
  // ~4 MB of PolySI text: several 1 MiB chunks, so the deadline passes while reading.
  const lines: string[] = [];
  for (let t = 0; t < 120_000; t++) lines.push(`w(${t % 97},${t + 1},${t % 8},${t})`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  const { code, j } = await checkJson(path, '--timeout', '0.001');
  assert.equal(code, 3);
  assert.equal(j['verdict'], 'unknown');
  assert.equal(j['decidedBy'], 'limit');
  assertValid(j, 'parse timeout');
});
