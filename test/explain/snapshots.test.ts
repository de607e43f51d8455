/**
 * Snapshot tests of the explanations of the real violations in ../shared/data: the proof-style
 * text and the JSON data of every counterexample, plus the name each must carry (from
 * ../shared/data/README.md and the papers, not from our own output).
 * Rewrite the snapshots with UPDATE_SNAPSHOTS=1 (see snapshot.ts) and review the diff.
 */

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkHistory, type Level } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';
import { anomalyLabel, renderExplanationText } from '../../src/render/text.ts';
import { matchSnapshot } from './snapshot.ts';
import { verifyExplanation } from './verify-explanation.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

const NO_DATA = needsData();
const DATA = DATA_DIR;

interface Case { path: string; level: Level; snapshot: string; firstName: string }

const CASES: Case[] = [
  // PolySI §5.3, Figure 5: two transactions read key 0 = 4 from T:(1,4) and both overwrite it.
  { path: 'polysi/violations/galera-lost-update.txt', level: 'si', snapshot: 'galera-lost-update', firstName: 'lost update' },
  // PolySI Appendix D.2 (a causality violation); the smallest one is within one session.
  { path: 'polysi/violations/yugabyte-causality.txt', level: 'si', snapshot: 'yugabyte-causality', firstName: 'G-single-process (session guarantee violation)' },
  { path: 'small/long-fork.txt', level: 'si', snapshot: 'long-fork', firstName: 'G-nonadjacent (long fork)' },
  { path: 'small/causality-violation.txt', level: 'si', snapshot: 'causality-violation', firstName: 'G-single (causality violation)' },
  { path: 'small/session-guarantee.txt', level: 'si', snapshot: 'session-guarantee', firstName: 'G-single-process (session guarantee violation)' },
  { path: 'small/write-skew.txt', level: 'ser', snapshot: 'write-skew-ser', firstName: 'G2-item (write skew)' },
];

/** Paths differ between machines: the data directory is written as <data>. */
function portable(s: string): string {
  return s.split(DATA).join('<data>');
}

describe('explanations of the real violations', { skip: NO_DATA }, () => {
  for (const c of CASES) {
    test(`explanation of ${c.path} under ${c.level.toUpperCase()} matches its snapshot`, async () => {
      const { history } = await readHistory(join(DATA, c.path));
      const r = checkHistory(history, { level: c.level, pruning: true, explain: true });
      assert.equal(r.verdict, 'violation');
      const cxs = r.anomalies.map((a) => a.explanation!);
      assert.ok(cxs.length > 0 && cxs.every((x) => x !== undefined));
      assert.equal(anomalyLabel(cxs[0]!), c.firstName);
      for (const cx of cxs) assert.deepEqual(verifyExplanation(history, c.level, cx), [], `${c.path}: ${anomalyLabel(cx)}`);
      const text = cxs.map((cx, i) => renderExplanationText(cx, { index: i + 1, total: cxs.length })).join('\n\n');
      matchSnapshot(`${c.snapshot}.txt`, `${portable(text)}\n`);
      matchSnapshot(`${c.snapshot}.json`, `${portable(JSON.stringify(cxs, null, 2))}\n`);
    });
  }
});
