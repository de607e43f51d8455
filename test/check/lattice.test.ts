/**
 * The lattice of isolation levels (src/result/lattice.ts) as data: its shape is what
 * docs/levels.md draws and what `--levels` relies on to skip work, so each claim is pinned here.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LEVEL_NAMES, type LevelName } from '../../src/result/types.ts';
import {
  COVERS, implies, incomparable, isDownClosed, LEVELS, strongerNeighbours, strongerThan, strongestOf, weakerThan, weakestOf,
} from '../../src/result/lattice.ts';

test('every level is described, and the covers are the Hasse diagram drawn in docs/levels.md', () => {
  assert.deepEqual(Object.keys(LEVELS).sort(), [...LEVEL_NAMES].sort());
  for (const l of LEVEL_NAMES) assert.equal(LEVELS[l].name, l);
  assert.deepEqual(COVERS.map(([w, s]) => `${w}<${s}`), [
    'ru<rc', 'rc<ra', 'ra<tcc', 'tcc<pc', 'tcc<psi', 'pc<si', 'psi<si', 'si<ser', 'rr<ser', 'si<strict-si', 'ser<strict-ser', 'strict-si<strict-ser',
  ]);
});

test('the covers are irredundant: no cover is implied by a path through another level', () => {
  for (const [w, s] of COVERS) {
    const between = LEVEL_NAMES.filter((m) => m !== w && m !== s && implies(s, m) && implies(m, w));
    assert.deepEqual(between, [], `${w} < ${s} has levels between`);
  }
});

test('the order is a partial order with strict-ser at the top, and ru and rr (no session order) at the bottom', () => {
  assert.deepEqual(weakestOf(LEVEL_NAMES), ['ru', 'rr']);
  assert.deepEqual(strongestOf(LEVEL_NAMES), ['strict-ser']);
  for (const a of LEVEL_NAMES) {
    assert.ok(implies(a, a), `${a} reflexive`);
    if (a !== 'rr') assert.ok(implies(a, 'ru'), `${a} implies ru`);
    assert.ok(implies('strict-ser', a), `strict-ser implies ${a}`);
    for (const b of LEVEL_NAMES) {
      if (a !== b) assert.ok(!(implies(a, b) && implies(b, a)), `${a} and ${b} imply each other`);
      for (const c of LEVEL_NAMES) if (implies(a, b) && implies(b, c)) assert.ok(implies(a, c), `${a} > ${b} > ${c}`);
    }
  }
});

test('it is not a chain: PC and PSI are incomparable, and RR is incomparable with every level but SER and above', () => {
  assert.ok(incomparable('pc', 'psi'));
  for (const l of ['ru', 'rc', 'ra', 'tcc', 'pc', 'psi', 'si', 'strict-si'] as const) assert.ok(incomparable('rr', l), `rr vs ${l}`);
  assert.ok(incomparable('ser', 'strict-si'));
  assert.deepEqual(strongerNeighbours('tcc'), ['pc', 'psi']);
  assert.deepEqual(weakerThan('si'), ['ru', 'rc', 'ra', 'tcc', 'pc', 'psi']);
  assert.deepEqual(strongerThan('pc'), ['si', 'ser', 'strict-si', 'strict-ser']);
  assert.deepEqual(strongerThan('rr'), ['ser', 'strict-ser']);
});

test('strongest and weakest of a set, and down-closure', () => {
  assert.deepEqual(strongestOf(['ru', 'rc', 'ra', 'tcc', 'pc', 'psi']), ['pc', 'psi']);
  assert.deepEqual(strongestOf(['ru', 'rc', 'ra', 'rr', 'tcc', 'pc']), ['pc', 'rr']);
  assert.deepEqual(weakerThan('ser'), ['ru', 'rc', 'ra', 'tcc', 'pc', 'psi', 'rr', 'si']);
  assert.deepEqual(strongestOf([]), []);
  assert.deepEqual(weakestOf(['si', 'psi', 'pc', 'strict-ser']), ['pc', 'psi']);
  const down = (l: LevelName) => [l, ...weakerThan(l)];
  for (const l of LEVEL_NAMES) {
    assert.ok(isDownClosed(down(l)), `below ${l}`);
    assert.deepEqual(strongestOf(down(l)), [l]);
  }
  assert.ok(!isDownClosed(['si', 'pc']), 'psi is missing under si');
  assert.ok(isDownClosed([]));
});
