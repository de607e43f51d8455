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
    'pl-1<ru', 'pl-1<pl-2', 'pl-2<mav', 'ru<rc', 'mav<rc', 'rc<ss-rc', 'ss-rc<ra', 'ra<tcc', 'tcc<pc', 'tcc<psi', 'mav<rr', 'mav<pl-si',
    'pc<si', 'psi<si', 'pl-si<si', 'rr<pl-3', 'pl-si<pl-3', 'si<ser', 'pl-3<ser', 'si<strict-si', 'ser<strict-ser', 'strict-si<strict-ser',
  ]);
});

test('the covers are irredundant: no cover is implied by a path through another level', () => {
  for (const [w, s] of COVERS) {
    const between = LEVEL_NAMES.filter((m) => m !== w && m !== s && implies(s, m) && implies(m, w));
    assert.deepEqual(between, [], `${w} < ${s} has levels between`);
  }
});

test('the order is a partial order with strict-ser at the top and pl-1 (no session order) at the bottom', () => {
  assert.deepEqual(weakestOf(LEVEL_NAMES), ['pl-1']);
  assert.deepEqual(strongestOf(LEVEL_NAMES), ['strict-ser']);
  for (const a of LEVEL_NAMES) {
    assert.ok(implies(a, a), `${a} reflexive`);
    assert.ok(implies(a, 'pl-1'), `${a} implies pl-1`);
    // The levels without session order imply no strong-session one.
    if (['pl-1', 'pl-2', 'mav', 'rr', 'pl-si', 'pl-3'].includes(a)) assert.ok(!implies(a, 'ru'), `${a} does not imply ru`);
    assert.ok(implies('strict-ser', a), `strict-ser implies ${a}`);
    for (const b of LEVEL_NAMES) {
      if (a !== b) assert.ok(!(implies(a, b) && implies(b, a)), `${a} and ${b} imply each other`);
      for (const c of LEVEL_NAMES) if (implies(a, b) && implies(b, c)) assert.ok(implies(a, c), `${a} > ${b} > ${c}`);
    }
  }
});

test('it is not a chain: PC and PSI are incomparable, and RR is incomparable with every strong-session level below SER', () => {
  assert.ok(incomparable('pc', 'psi'));
  for (const l of ['ru', 'rc', 'ss-rc', 'ra', 'tcc', 'pc', 'psi', 'pl-si', 'si', 'strict-si'] as const) assert.ok(incomparable('rr', l), `rr vs ${l}`);
  assert.ok(incomparable('ru', 'pl-2'));
  assert.ok(incomparable('ru', 'mav'));
  assert.ok(incomparable('pl-3', 'si'));
  assert.ok(incomparable('ser', 'strict-si'));
  assert.deepEqual(strongerNeighbours('tcc'), ['pc', 'psi']);
  assert.deepEqual(weakerThan('si'), ['pl-1', 'ru', 'pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc', 'pc', 'psi', 'pl-si']);
  assert.deepEqual(strongerThan('pc'), ['si', 'ser', 'strict-si', 'strict-ser']);
  assert.deepEqual(strongerThan('rr'), ['pl-3', 'ser', 'strict-ser']);
  assert.deepEqual(strongerThan('mav'), ['rc', 'ss-rc', 'ra', 'tcc', 'pc', 'psi', 'rr', 'pl-si', 'si', 'pl-3', 'ser', 'strict-si', 'strict-ser']);
});

test('strongest and weakest of a set, and down-closure', () => {
  assert.deepEqual(strongestOf(['ru', 'rc', 'ra', 'tcc', 'pc', 'psi']), ['pc', 'psi']);
  assert.deepEqual(strongestOf(['ru', 'rc', 'ra', 'rr', 'tcc', 'pc']), ['pc', 'rr']);
  assert.deepEqual(weakerThan('ser'), ['pl-1', 'ru', 'pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc', 'pc', 'psi', 'rr', 'pl-si', 'si', 'pl-3']);
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
