/**
 * The probe's cell outcome (src/probe/types.ts `cellOutcome`): a cell no run of which showed the
 * anomaly is "prevented" only when the checker decided the probed level on every run; a run it
 * could not decide makes the cell "undecided", never a ✓ (a probe of PostgreSQL's repeatable read
 * once showed ✓ for a run whose probed level was `unknown`).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellOutcome } from '../../src/probe/types.ts';
import { cellText } from '../../src/probe/render.ts';
import type { Cell } from '../../src/probe/types.ts';

const counts = { runs: 3, allowedRuns: 0, abortedRuns: 0, blockedRuns: 0, undecidedRuns: 0 };

test('cellOutcome: an undecided run keeps the cell from being prevented; an allowed run still wins', () => {
  assert.equal(cellOutcome(counts), 'prevented');
  assert.equal(cellOutcome({ ...counts, undecidedRuns: 1 }), 'undecided');
  assert.equal(cellOutcome({ ...counts, undecidedRuns: 1, abortedRuns: 2 }), 'undecided');
  assert.equal(cellOutcome({ ...counts, undecidedRuns: 1, allowedRuns: 1 }), 'allowed');
  assert.equal(cellOutcome({ ...counts, runs: 0 }), 'not-exercised');
});

test('cellText: an undecided cell says so, with its runs', () => {
  const c = { ...counts, undecidedRuns: 2, outcome: 'undecided', incomplete: false, planned: 3 } as unknown as Cell;
  assert.equal(cellText(c), '? undecided 2/3');
});
