// Static analysis of transaction programs (issue 11): the language's errors, the interpreter,
// and the paper's case studies at the stated bounds (each anomaly confirmed on the interpreter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseProgram, analyzeProgram } from '../../src/analyze/index.ts';
import { runExecution } from '../../src/analyze/interp.ts';
import { main } from '../../src/cli/main.ts';

const load = (name: string) => parseProgram(readFileSync(`examples/anode/${name}`, 'utf8'), name);

test('parser errors name the line, the column and what was expected', () => {
  const cases: [string, RegExp][] = [
    ['TABLE A (x KEY);\nTRANSACTION t(a) {\n  UPDATE A SET y = 1 WHERE x = a;\n}', /line 3: column 16: table A has no field y/],
    ['TABLE A (x KEY, y);\nTRANSACTION t(a) {\n  UPDATE A SET y = 1 WHERE x = a\n}', /line 4: column 1: expected ';' after the UPDATE statement, got '}'/],
    ['TABLE A (x, y);\nTRANSACTION t() { SKIP; }', /line 1: column 1: table A needs a primary key/],
    ['TABLE A (x KEY, y);\nTRANSACTION t(a) { SELECT y AS v FROM A WHERE x = b; }', /line 2: column 51: b is neither a field of A nor a variable/],
    ['TABLE A (x KEY);\nISOLATION u si;\nTRANSACTION t() { SKIP; }', /line 2: column 11: unknown transaction u/],
  ];
  for (const [text, re] of cases) assert.throws(() => parseProgram(text, 'bad.anode'), re);
});

test('the interpreter produces the lost update of two concurrent withdraws', () => {
  const p = load('withdraw.anode');
  const run = runExecution(p, {
    instances: [{ txn: 'withdraw', args: [1, 50] }, { txn: 'withdraw', args: [1, 60] }],
    ar: [0, 1], vis: [[false, false], [false, false]],
  }, { value: () => 100, rows: [] });
  const kinds = run.edges.map((e) => `${e.from}${e.kind}${e.to}`).sort();
  assert.deepEqual(kinds, ['0RW1', '0WW1', '1RW0']);
  // Visible: a serial execution, no cycle (the second sees 50 < 60 and does not write).
  const serial = runExecution(p, {
    instances: [{ txn: 'withdraw', args: [1, 50] }, { txn: 'withdraw', args: [1, 60] }],
    ar: [0, 1], vis: [[false, true], [false, false]],
  }, { value: () => 100, rows: [] });
  assert.deepEqual(serial.edges.map((e) => e.kind), ['WR']);
});

test('withdraw: lost update under EC at k=2, confirmed; none under PSI, proved for unbounded executions', async () => {
  const p = load('withdraw.anode');
  const ec = await analyzeProgram(p, { model: 'ec', bound: 4, prove: false, timeoutMs: 60_000 });
  assert.equal(ec.verdict, 'anomaly');
  assert.equal(ec.anomaly!.length, 2);
  assert.equal(ec.anomaly!.explanation.name, 'lost update');
  assert.equal(ec.anomaly!.confirmation.reproduced, true);
  const psi = await analyzeProgram(p, { model: 'psi', bound: 4, prove: true, timeoutMs: 60_000 });
  assert.equal(psi.verdict, 'proved', JSON.stringify(psi.queries));
  assert.equal(psi.proof!.method, 'shortest-path');
  assert.equal(psi.proof!.k, 4);
});

test('TPC-C: an anomaly between two instances under EC (k=2), confirmed', async () => {
  const r = await analyzeProgram(load('tpcc.anode'), { model: 'ec', bound: 2, prove: false, timeoutMs: 60_000 });
  assert.equal(r.verdict, 'anomaly');
  assert.equal(r.anomaly!.length, 2);
  assert.equal(r.anomaly!.confirmation.reproduced, true);
});

test('TPC-C under PSI: no cycle of 2 or 3 instances, a long fork of 4 through New-Order and Order-Status, confirmed', async () => {
  const r = await analyzeProgram(load('tpcc.anode'), { model: 'psi', bound: 4, prove: false, timeoutMs: 60_000 });
  assert.equal(r.verdict, 'anomaly');
  assert.equal(r.anomaly!.length, 4);
  assert.equal(r.anomaly!.explanation.name, 'long fork');
  assert.equal(r.anomaly!.confirmation.reproduced, true);
  const txns = new Set(r.anomaly!.witness.execution.instances.map((x) => x.txn));
  assert.ok(txns.has('NewOrder') && txns.has('OrderStatus'), [...txns].join());
  assert.deepEqual(r.queries.filter((q) => q.query.startsWith('cycle of length 2') || q.query.startsWith('cycle of length 3')).map((q) => q.answer), ['unsat', 'unsat']);
});

test('TPC-C under SI: serializable for all executions, by induction on {NewOrder, Payment} first', async () => {
  const r = await analyzeProgram(load('tpcc.anode'), { model: 'si', bound: 4, prove: true, timeoutMs: 60_000 });
  assert.equal(r.verdict, 'proved');
  assert.equal(r.proof!.method, 'inductive');
  assert.deepEqual(r.proof!.steps![0], ['NewOrder', 'Payment']);
  // Induction does not hold under PSI (the long fork above).
  const psi = await analyzeProgram(load('tpcc.anode'), { model: 'psi', bound: 2, prove: true, timeoutMs: 60_000 });
  assert.notEqual(psi.verdict, 'proved');
});

test('Courseware: an anomaly between two instances under EC (k=2), confirmed', async () => {
  const r = await analyzeProgram(load('courseware.anode'), { model: 'ec', bound: 2, prove: false, timeoutMs: 60_000 });
  assert.equal(r.verdict, 'anomaly');
  assert.equal(r.anomaly!.length, 2);
  assert.equal(r.anomaly!.confirmation.reproduced, true);
});

test('polysi analyze: exit codes 1 (anomaly), 0 (proved), 2 (bad input)', async () => {
  const out: string[] = [];
  const io = { stdout: (s: string) => { out.push(s); }, stderr: (s: string) => { out.push(s); } };
  assert.equal(await main(['analyze', 'examples/anode/withdraw.anode', '--model', 'ec', '--json'], io), 1);
  const j = JSON.parse(out.at(-1)!);
  assert.equal(j.verdict, 'anomaly');
  assert.equal(j.anomaly.confirmed, true);
  assert.equal(await main(['analyze', 'examples/anode/withdraw.anode', '--model', 'si', '--prove'], io), 0);
  assert.equal(await main(['analyze', 'examples/anode/withdraw.anode', '--model', 'xx'], io), 2);
  assert.equal(await main(['analyze', 'examples/long-fork.txt', '--model', 'ec'], io), 2);
});

test('--confirm: the withdraw lost update reproduces on the embedded store\'s lost-update mode, not under snapshot', async () => {
  const out: string[] = [];
  const io = { stdout: (s: string) => { out.push(s); }, stderr: (s: string) => { out.push(s); } };
  assert.equal(await main(['analyze', 'examples/anode/withdraw.anode', '--model', 'ec', '--json', '--confirm', '--db', 'memory:lost-update', '--rounds', '20'], io), 1);
  const lost = JSON.parse(out.at(-1)!);
  assert.equal(lost.dynamic.reproduced, true);
  assert.ok(lost.dynamic.anomalyNames.includes('lost update'), lost.dynamic.anomalyNames.join());
  assert.equal(await main(['analyze', 'examples/anode/withdraw.anode', '--model', 'ec', '--json', '--confirm', '--db', 'memory:snapshot', '--rounds', '20'], io), 1);
  const snap = JSON.parse(out.at(-1)!);
  assert.equal(snap.dynamic.reproduced, false);
  assert.ok(snap.dynamic.aborted > 0, 'first-committer-wins aborts one of the two withdraws');
  // Programs that scan tables cannot run on a key-value store: a clear refusal, exit 2.
  assert.equal(await main(['analyze', 'examples/anode/tpcc.anode', '--model', 'ec', '--bound', '2', '--confirm'], io), 2);
  assert.match(out.at(-1)!, /tpcc\.anode line \d+: --confirm runs only statements that address one record/);
});
