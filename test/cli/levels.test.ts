/**
 * `polysi check --level LEVEL` for every level of the ladder, and `polysi check --levels`: the
 * table of every level (text and JSON), the strongest levels satisfied, a named counterexample
 * per violated level, the JSON against schema/levels-result.schema.json, and the usage errors.
 *
 * Written against the lattice and IMPLEMENTED_LEVELS rather than today's list, so the tests hold
 * (and test more) as levels are implemented: a level checkHistory decides must be checked or
 * implied, one it does not decide must never show as satisfied.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { main } from '../../src/cli/main.ts';
import { checkLevels, type LevelsResult } from '../../src/check/ladder.ts';
import { IMPLEMENTED_LEVELS, isImplementedLevel, LEVEL_NAMES, type LevelName } from '../../src/check/index.ts';
import { renderLevelsText } from '../../src/cli/levels.ts';
import { levelsJson } from '../../src/render/json.ts';
import { implies, strongestOf } from '../../src/result/lattice.ts';
import { readHistory } from '../../src/index.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LONG_FORK = join(ROOT, 'examples/long-fork.txt');
const BANK = join(ROOT, 'examples/bank-valid.jsonl');

const ajv = new Ajv2020({ allErrors: true, strict: true });
const checkSchema = JSON.parse(readFileSync(join(ROOT, 'schema', 'check-result.schema.json'), 'utf8')) as { $defs: { level: { enum: string[] } } };
const levelsSchema = JSON.parse(readFileSync(join(ROOT, 'schema', 'levels-result.schema.json'), 'utf8')) as { $defs: { level: { enum: string[] } } };
ajv.addSchema(checkSchema);
const validateLevels = ajv.compile(levelsSchema);

function assertSchema(j: unknown, what: string): void {
  assert.ok(validateLevels(j), `${what}: ${ajv.errorsText(validateLevels.errors, { separator: '\n  ' })}`);
}

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const code = await main(['check', ...argv], { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } });
  return { code, out, err };
}

interface Row { level: LevelName; status: string; basis: string; from: LevelName | null; reason: string; counterexample: { level: string; name: string } | null; result: Record<string, unknown> | null }

async function levelsJsonOf(path: string, ...extra: string[]): Promise<{ code: number; j: Record<string, unknown>; rows: Map<LevelName, Row> }> {
  const { code, out } = await run(path, '--levels', '--json', ...extra);
  const j = JSON.parse(out) as Record<string, unknown>;
  const rows = new Map((j['levels'] as Row[]).map((r) => [r.level, r]));
  return { code, j, rows };
}

/** What every table must satisfy, whatever the history. */
function assertTableShape(j: Record<string, unknown>, rows: Map<LevelName, Row>, what: string): void {
  assertSchema(j, what);
  assert.deepEqual([...rows.keys()], [...LEVEL_NAMES], `${what}: one row per level, weakest first`);
  for (const [l, r] of rows) {
    // A level checkHistory decides is checked or implied, unless it refused this input (then it says why).
    if (isImplementedLevel(l)) assert.ok(r.basis === 'checked' || r.basis === 'implied' || (r.basis === 'none' && r.reason !== ''), `${what}: ${l} is decided by checkHistory, so it is checked or implied (${r.basis})`);
    else assert.ok(r.status === 'not checked' || (r.status === 'violated' && r.basis === 'inherited'), `${what}: ${l} is not implemented, never ${r.status}`);
    if (r.basis === 'implied') assert.ok(implies(r.from!, l) && rows.get(r.from!)!.status === 'satisfied', `${what}: ${l} implied by ${r.from}`);
    if (r.basis === 'inherited') assert.ok(implies(l, r.from!) && rows.get(r.from!)!.basis === 'checked', `${what}: ${l} inherits from ${r.from}`);
    if (r.status === 'violated') assert.equal(r.counterexample!.level, r.basis === 'inherited' ? r.from : l, `${what}: ${l}'s counterexample`);
    for (const [m, s] of rows) {
      if (r.status === 'violated' && implies(m, l)) assert.equal(s.status === 'satisfied', false, `${what}: ${m} satisfied above the violated ${l}`);
    }
  }
  const satisfied = [...rows.values()].filter((r) => r.status === 'satisfied').map((r) => r.level);
  assert.deepEqual(j['strongest'], strongestOf(satisfied), `${what}: strongest = the maximal satisfied levels`);
}

test('--levels on a long fork: SI and SER violated, each with its own named counterexample; the table matches the schema', async () => {
  const { code, j, rows } = await levelsJsonOf(LONG_FORK);
  assert.equal(code, 0, 'the table is complete');
  assertTableShape(j, rows, 'long fork');
  for (const l of ['si', 'ser'] as const) {
    const r = rows.get(l)!;
    assert.equal(r.status, 'violated');
    assert.equal(r.basis, 'checked');
    assert.equal(r.counterexample!.name, 'long fork');
    assert.equal(r.result!['level'], l, 'the row carries its own check');
  }
  // Strict serializability is violated whether or not it can be checked itself.
  assert.equal(rows.get('strict-ser')!.status, 'violated');
  assert.deepEqual(j['checked'], [...IMPLEMENTED_LEVELS].reverse().filter((l) => l === 'si' || l === 'ser' || rows.get(l)!.basis === 'checked'));
});

test('--levels on a write skew: SI satisfied (and everything checked below it), SER violated by a write skew', async () => {
  const { code, j, rows } = await levelsJsonOf(BANK);
  assert.equal(code, 0);
  assertTableShape(j, rows, 'bank');
  assert.equal(rows.get('si')!.status, 'satisfied');
  assert.equal(rows.get('ser')!.status, 'violated');
  assert.equal(rows.get('ser')!.counterexample!.name, 'write skew');
  for (const l of IMPLEMENTED_LEVELS) if (implies('si', l)) assert.equal(rows.get(l)!.status, 'satisfied', `${l} is below si`);
  assert.ok((j['strongest'] as LevelName[]).some((l) => implies(l, 'si')), 'si or a level above it is among the strongest');
});

test('--levels text: one line per level, the strongest line, and each violated level\'s counterexample', async () => {
  const { code, out } = await run(BANK, '--levels');
  assert.equal(code, 0);
  for (const l of LEVEL_NAMES) assert.match(out, new RegExp(`^${l} +\\S`, 'm'), `a row for ${l}`);
  assert.match(out, /^ser +serializability +VIOLATED +write skew \(2 txns, 2 edges\)$/m);
  assert.match(out, /^si +snapshot isolation +satisfied +/m);
  assert.match(out, /^strongest levels? satisfied: .*si/m);
  assert.match(out, /^SER: VIOLATION/m, 'the violated level\'s block');
  assert.match(out, /write skew \(2 txns, 2 edges\) cycle: a1 -RW\(savings\)-> b1 -RW\(checking\)-> a1/);
  const explained = await run(BANK, '--levels', '--explain');
  assert.ok(explained.out.length > out.length && /contradiction|cycle/.test(explained.out.slice(out.length - 200)), '--explain adds the argument');
});

test('the strongest line shows incomparable levels as such, and says when levels were not checked', () => {
  const row = (level: LevelName, status: 'satisfied' | 'violated' | 'not checked', basis: 'checked' | 'implied' | 'none', from: LevelName | null = null) =>
    ({ level, status, basis, from, result: null, reason: basis === 'none' ? 'not implemented' : '' });
  // A hand-made table: PC and PSI satisfied, SI violated would need a result, so it stays unchecked here.
  const lr: LevelsResult = {
    rows: LEVEL_NAMES.map((l) => ['ru', 'rc', 'ra', 'tcc'].includes(l) ? row(l, 'satisfied', 'implied', 'pc')
      : l === 'pc' || l === 'psi' ? row(l, 'satisfied', 'checked') : row(l, 'not checked', 'none')),
    strongest: ['pc', 'psi'], checked: ['psi', 'pc'],
    counts: { sessions: 1, transactions: 1, checkedTransactions: 1, operations: 1, keys: 1 },
    timesMs: { parse: 0, total: 0 },
  };
  // No level here has a check result to render, so no History is read.
  const text = renderLevelsText(null as never, lr, 'h', 'text', []);
  assert.match(text, /^strongest levels satisfied: pc, psi \(incomparable: neither implies the other\), among the levels checked$/m);
  assert.match(text, isImplementedLevel('rr') ? /^rr +repeatable read +not checked +not checked: not implemented$/m : /^rr +repeatable read +not checked +not implemented yet$/m);
  assert.match(text, /^ra +read atomic +satisfied +implied by pc$/m);
});

test('--level takes every level name; those not implemented yet are refused with exit 2, never run as another level', async () => {
  for (const l of LEVEL_NAMES) {
    const { code, err } = await run(LONG_FORK, '--level', l, '--json');
    if (isImplementedLevel(l)) {
      // A long fork (two readers see two writes in opposite orders) is allowed by parallel SI and
      // the levels below it, and forbidden by prefix consistency, repeatable read (a G2-item
      // cycle) and everything above them.
      assert.equal(code, ['pc', 'rr', 'si', 'ser', 'strict-si', 'strict-ser'].includes(l) ? 1 : 0, `--level ${l} on a long fork`);
    } else {
      assert.equal(code, 2, `--level ${l}`);
      assert.match(err, new RegExp(`--level ${l}: checking ${l} is not implemented yet \\(implemented: ${IMPLEMENTED_LEVELS.join(', ')}\\)`));
    }
  }
  const bad = await run(LONG_FORK, '--level', 'snapshot');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--level must be one of ru, rc, ra, tcc, pc, psi, rr, si, ser, strict-si, strict-ser; got "snapshot"/);
});

test('input no level can check (two writes of one value) is an input error for --levels too: exit 2, no table', async () => {
  const dir = scratchDir('polysi-levels-');
  const f = join(dir, 'dup.jsonl');
  writeFileSync(f, '{"session":"a","txn":"t1","ops":[["w","x",1]]}\n{"session":"b","txn":"t2","ops":[["w","x",1]]}\n');
  const { code, out, err } = await run(f, '--levels');
  assert.equal(code, 2);
  assert.equal(out, '');
  assert.match(err, /dup\.jsonl/);
});

test('usage errors: --levels with --level, or with a drawing', async () => {
  const both = await run(LONG_FORK, '--levels', '--level', 'si');
  assert.equal(both.code, 2);
  assert.match(both.err, /give it or --level, not both/);
  const drawn = await run(LONG_FORK, '--levels', '--svg', join(ROOT, 'never-written.svg'));
  assert.equal(drawn.code, 2);
  assert.match(drawn.err, /use --level LEVEL with them, not --levels/);
  const help = await run('--help');
  assert.match(help.out, /--levels/);
});

test('a limit hit on every level gives unknown rows, exit 3 from the CLI path, and JSON that matches the schema', async () => {
  const { history, format, notes } = await readHistory(BANK);
  const lr = checkLevels(history, { pruning: true, explain: true, timeoutMs: 0 });
  // A violation found before the budget is looked at still counts, and a polynomial level may
  // finish regardless; but SI's check stops, and nothing above an unknown level is satisfied.
  const row = (l: LevelName) => lr.rows.find((r) => r.level === l)!;
  assert.equal(row('si').status, 'unknown');
  assert.equal(row('si').basis, 'checked');
  for (const r of lr.rows) if (implies(r.level, 'si')) assert.notEqual(r.status, 'satisfied', r.level);
  assert.deepEqual(lr.strongest, strongestOf(lr.rows.filter((r) => r.status === 'satisfied').map((r) => r.level)));
  const j = levelsJson(history, lr, { file: BANK, format, notes });
  assertSchema(j, 'unknown');
  const { runLadder } = await import('../../src/cli/ladder.ts');
  const code = runLadder(history, { path: BANK, format, notes, parseMs: 0 }, { pruning: true, explain: true, timeoutMs: 0 }, { json: true, explain: false }, { stdout: () => {}, stderr: () => {} });
  assert.equal(code, 3);
});

test('the schemas name every level of the ladder, and the levels schema is strict', async () => {
  assert.deepEqual(checkSchema.$defs.level.enum, [...LEVEL_NAMES]);
  assert.deepEqual(levelsSchema.$defs.level.enum, [...LEVEL_NAMES]);
  const { j } = await levelsJsonOf(LONG_FORK, '--explain');
  assertSchema(j, 'long fork --explain');
  const clone = () => JSON.parse(JSON.stringify(j)) as Record<string, any>;
  const si = LEVEL_NAMES.indexOf('si');
  const cases: [string, (x: Record<string, any>) => void][] = [
    ['a new top-level field', (x) => { x['surprise'] = 1; }],
    ['a row without status', (x) => { delete x['levels'][si].status; }],
    ['an unknown status', (x) => { x['levels'][si].status = 'fine'; }],
    ['a violated row without a counterexample', (x) => { x['levels'][si].counterexample = null; }],
    ['an implied row without its source', (x) => { x['levels'][si].basis = 'implied'; x['levels'][si].from = null; }],
    ['a checked row without its result', (x) => { x['levels'][si].result = null; }],
    ['a broken check result inside a row', (x) => { delete x['levels'][si].result.verdict; }],
    ['a row missing', (x) => { x['levels'].pop(); }],
    ['an unknown level in strongest', (x) => { x['strongest'] = ['snapshot']; }],
  ];
  for (const [what, mutate] of cases) {
    const x = clone();
    mutate(x);
    assert.equal(validateLevels(x), false, `the schema accepted ${what}`);
  }
});

test('--levels on the small shared histories: known verdicts, and JSON that matches the schema', { skip: needsData() }, async () => {
  const known: [string, LevelName, 'satisfied' | 'violated'][] = [
    ['small/write-skew.txt', 'si', 'satisfied'], ['small/write-skew.txt', 'ser', 'violated'],
    ['small/long-fork.txt', 'si', 'violated'], ['small/causality-violation.txt', 'si', 'violated'],
    ['elle/si-without-g-single.edn', 'si', 'satisfied'], ['elle/si-without-g-single.edn', 'ser', 'violated'],
    ['isovista/pg_ser_bug.txt', 'ser', 'violated'], ['polysi/violations/galera-lost-update.txt', 'si', 'violated'],
  ];
  for (const [f, level, status] of known) {
    const { code, j, rows } = await levelsJsonOf(join(DATA_DIR, f));
    assert.equal(code, 0, f);
    assertTableShape(j, rows, f);
    assert.equal(rows.get(level)!.status, status, `${f}: ${level}`);
  }
});
