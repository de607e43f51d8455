/**
 * The argument generator (Resolve) on a scenario that needs a case split: no side of either
 * write order closes a cycle by itself, yet all four combinations do. Drawn as
 *
 *     x -WW(k1)-> y   or   u -WW(k1)-> v        (write order 1: either / or)
 *     y -WW(k2)-> x   or   v -WW(k2)-> u        (write order 2: either / or)
 *     certain: y -RW-> v -RW-> y and u -RW-> x -RW-> u (adjacent RW edges: allowed by SI)
 *
 * Same orders give a two-edge WW cycle; mixed orders give x -WW-> y -RW-> v -WW-> u -RW-> x or
 * its mirror image, whose RW edges are not adjacent.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { argue, type ArgStep } from '../../src/explain/argue.ts';
import { solveScenario, type Dep } from '../../src/explain/scenario.ts';
import { K_RW, K_WW } from '../../src/graph/edges.ts';

const [x, y, u, v] = [0, 1, 2, 3];
const dep = (from: number, to: number, kind: number, cons: number, side: number, ref: number): Dep => ({ from, to, kind, key: 0, cons, side, ref });
const DEPS: Dep[] = [
  dep(y, v, K_RW, -1, -1, 0), dep(v, y, K_RW, -1, -1, 1), dep(u, x, K_RW, -1, -1, 2), dep(x, u, K_RW, -1, -1, 3),
  dep(x, y, K_WW, 0, 0, 0), dep(u, v, K_WW, 0, 1, 1),
  dep(y, x, K_WW, 1, 0, 2), dep(v, u, K_WW, 1, 1, 3),
];

function cycleCloses(ids: readonly number[]): boolean {
  return ids.every((id, i) => DEPS[id]!.to === DEPS[ids[(i + 1) % ids.length]!]!.from);
}

test('a scenario that needs a case split: both cases end in a dilemma over the other write order', () => {
  assert.equal(solveScenario(DEPS, 'si').violation, true);
  assert.equal(solveScenario(DEPS.slice(0, 7), 'si').violation, false, 'without one side it is not a violation');
  const steps = argue(DEPS, 'si');
  assert.ok(steps !== null);
  assert.equal(steps.length, 1);
  const split = steps[0]!;
  assert.equal(split.kind, 'cases');
  const cases = split as Extract<ArgStep, { kind: 'cases' }>;
  for (const branch of [cases.either, cases.or]) {
    assert.equal(branch.length, 1);
    const d = branch[0]!;
    assert.equal(d.kind, 'dilemma');
    const dl = d as Extract<ArgStep, { kind: 'dilemma' }>;
    assert.ok(cycleCloses(dl.either) && cycleCloses(dl.or));
  }
});

test('under serializability the certain RW edges alone are a cycle: a contradiction at once', () => {
  const steps = argue(DEPS, 'ser');
  assert.deepEqual(steps?.map((s) => s.kind), ['contradiction']);
});
