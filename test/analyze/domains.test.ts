// Parameter domains (REQUIRES) and sane witnesses (issue 11): the parser reads them, the
// encoding constrains each slot's parameters with them, confirmation refuses a witness outside
// them, and when a program says nothing the witness still prefers small non-negative values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeProgram, parseProgram } from '../../src/analyze/index.ts';
import { analyzeProgram as access } from '../../src/analyze/lang/access.ts';
import { confirmWitness, inDomain } from '../../src/analyze/confirm.ts';
import { modelSpec } from '../../src/analyze/models.ts';
import { InputError } from '../../src/history/errors.ts';

const analyze = (text: string, model: 'ec' | 'psi' = 'ec') =>
  analyzeProgram(parseProgram(text, 'dom.anode'), { model, bound: 2, prove: false, timeoutMs: 60_000 });

// A lost update that only instances with X < 3 can take part in.
const guarded = (requires: string) => `TABLE T (K KEY, V);
TRANSACTION t(X) ${requires} {
  IF X < 3 {
    SELECT V AS v FROM T WHERE K = 0;
    UPDATE T SET V = v + 1 WHERE K = 0;
  }
}`;

test('REQUIRES parses over parameters only; a field or an unknown name in it is an error with its line', () => {
  const p = parseProgram('TABLE A (K KEY, B);\nTRANSACTION w(ID, Amount) REQUIRES Amount > 0 AND ID >= 0 { SKIP; }', 'ok.anode');
  assert.equal(p.txns[0]!.requires.k, 'and');
  assert.equal(parseProgram('TABLE A (K KEY, B);\nTRANSACTION w(ID) { SKIP; }').txns[0]!.requires.k, 'true');
  assert.throws(() => parseProgram('TABLE A (K KEY, B);\nTRANSACTION w(ID) REQUIRES B > 0 { SKIP; }', 'bad.anode'),
    (e: unknown) => e instanceof InputError && /bad\.anode line 2: .*unknown variable B/.test(e.message));
  assert.throws(() => parseProgram('TABLE A (K KEY, B);\nTRANSACTION w(ID) REQUIRES { SKIP; }', 'bad.anode'),
    (e: unknown) => e instanceof InputError && /line 2/.test(e.message));
});

test('inDomain evaluates REQUIRES on concrete arguments', () => {
  const t = parseProgram('TABLE A (K KEY, B);\nTRANSACTION w(ID, Amount) REQUIRES Amount > 0 AND NOT (ID = 3 OR Amount * 2 > 10) { SKIP; }').txns[0]!;
  assert.equal(inDomain(t, [0, 1]), true);
  assert.equal(inDomain(t, [0, 0]), false);
  assert.equal(inDomain(t, [3, 1]), false);
  assert.equal(inDomain(t, [0, 6]), false);
});

test('the encoding honours REQUIRES: a lost update that needs X < 3 is found without it and not with X >= 3', async () => {
  const free = await analyze(guarded(''));
  assert.equal(free.verdict, 'anomaly');
  assert.equal(free.anomaly!.confirmation.reproduced, true);
  assert.ok(free.anomaly!.witness.execution.instances.every((x) => x.args[0]! < 3));
  const fenced = await analyze(guarded('REQUIRES X >= 3'));
  assert.equal(fenced.verdict, 'none', JSON.stringify(fenced.anomaly?.witness.execution.instances));
});

test('confirmation refuses a witness whose parameters break REQUIRES', async () => {
  const free = await analyze(guarded(''));
  const w = free.anomaly!.witness;
  const info = access(parseProgram(guarded('REQUIRES X > 5'), 'dom.anode'));
  const c = confirmWitness(info, modelSpec(info.program, 'ec'), w);
  assert.equal(c.reproduced, false);
  assert.match(c.reason, /T1 = t\(\d\) breaks the transaction's REQUIRES/);
});

test('withdraw: the witness withdraws a positive amount, and with no REQUIRES parameters stay small and non-negative', async () => {
  const r = await analyze(readFileSync('examples/anode/withdraw.anode', 'utf8'));
  assert.equal(r.anomaly!.explanation.class, 'lost update');
  for (const x of r.anomaly!.witness.execution.instances) {
    assert.ok(x.args[1]! > 0, `Amount = ${x.args[1]}`);
    assert.ok(x.args.every((a) => a >= 0 && a <= 9), x.args.join());
  }
  // The same program without its REQUIRES: Z3 alone happily picks a negative amount; the
  // preference for small non-negative values keeps every parameter in 0..9.
  const bare = await analyze(readFileSync('examples/anode/withdraw.anode', 'utf8').replace('REQUIRES Amount > 0', ''));
  assert.ok(bare.anomaly!.witness.execution.instances.every((x) => x.args.every((a) => a >= 0 && a <= 9)));
});
