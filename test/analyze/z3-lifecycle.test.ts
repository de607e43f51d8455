/**
 * Z3 (WebAssembly) and the GC: z3-solver frees its objects from FinalizationRegistry callbacks
 * on the main thread while `solver.check()` runs on a pthread over the same context; a free that
 * lands during a check corrupted Z3's heap in CI ("memory access out of bounds" in
 * ast_manager::delete_node) and the check never answered. src/analyze/encode/z3.ts queues those
 * callbacks and runs them only between checks; src/analyze/queries.ts bounds every check so that
 * a dead worker is an error, not a hang.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadZ3, z3DeferredCount, z3Idle } from '../../src/analyze/encode/z3.ts';
import { answerWithin } from '../../src/analyze/queries.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('Z3 finalizers are queued by the GC and run only by z3Idle()', async () => {
  const Z = await loadZ3();
  z3Idle();
  // Wrappers that die at once: their finalizers would decrement Z3 reference counts.
  (() => { for (let i = 0; i < 2000; i++) Z.Int.const(`x${i}`).add(i); })();
  for (let i = 0; i < 20 && z3DeferredCount() === 0; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(z3DeferredCount() > 0, 'the GC finalised wrappers, and their callbacks wait');
  // Not while the context is in use (freed term numbers would be reused at the GC's pace) ...
  const waiting = z3DeferredCount();
  z3Idle();
  assert.equal(z3DeferredCount(), waiting);
  // ... but once a newer context is handed out.
  await loadZ3();
  z3Idle();
  assert.equal(z3DeferredCount(), 0);
  void Z;
});

test('a check that never answers is an error after its bound, not a hang', async () => {
  const never = new Promise<string>(() => {});
  await assert.rejects(answerWithin(never, 30), /Z3 gave no answer .* its WebAssembly worker stopped/);
  assert.equal(await answerWithin(Promise.resolve('sat'), 30), 'sat');
});

// a2-findings.md F2: Z3 numbers terms per context, in creation order, and orders them by those
// numbers, so a context shared by successive analyses gave the same program different witnesses
// (and numbers of queries) run to run. Each analysis now has a fresh context.
test('the same program analysed three times in one process gives the same witness and the same queries', async () => {
  const { readFileSync } = await import('node:fs');
  const { parseProgram, analyzeProgram } = await import('../../src/analyze/index.ts');
  const src = readFileSync('examples/anode/courseware.anode', 'utf8') + `
ISOLATION Enroll si;
SERIALIZABLE AddCourse WITH AddCourse;
SERIALIZABLE AddStudent WITH AddStudent;
SERIALIZABLE Enroll WITH RemCourse;
SERIALIZABLE Enroll WITH RemStudent;
`;
  const answers: string[] = [];
  // Frequent collections: a term freed in the middle of an analysis let Z3 reuse its number at
  // the GC's pace (the full test suite saw two witnesses before terms were kept until the next
  // analysis).
  const timer = setInterval(() => gc(), 3);
  try {
    for (let run = 0; run < 3; run++) {
      const r = await analyzeProgram(parseProgram(src, 'courseware-si.anode'), { model: 'ec', bound: 3, prove: false, timeoutMs: 60_000 });
      const w = r.anomaly?.witness;
      answers.push(JSON.stringify([r.verdict, w?.execution, w?.cycle.map((e) => [e.from, e.to, e.kind, e.item]), r.queries.map((q) => [q.query, q.answer])]));
    }
  } finally {
    clearInterval(timer);
  }
  assert.equal(answers[1], answers[0]);
  assert.equal(answers[2], answers[0]);
});

test('a context handed out before is deleted once its objects are released', async () => {
  const { z3Contexts } = await import('../../src/analyze/encode/z3.ts');
  await (async () => {
    const Z = await loadZ3();
    const s = new Z.Solver();
    s.add(Z.Int.const('x').gt(1));
    assert.equal(await s.check(), 'sat');
  })();
  await loadZ3(); // retires the one above
  for (let i = 0; i < 20 && z3Contexts() > 1; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
    z3Idle();
  }
  assert.equal(z3Contexts(), 1);
});
