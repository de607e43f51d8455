/**
 * The weak levels on the real histories of ../shared/data (skipped locally without the data,
 * failing under CI): which of PL-1, read uncommitted, PL-2, monotonic atomic view, read committed,
 * strong session read committed, read atomic and causal consistency each violates, with the name of the counterexample, every one certified. The
 * recorded SI violations split along the ladder: the lost update and the long fork are causal,
 * the Dgraph histories break causality, the YugabyteDB ones a session guarantee.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkHistory, readHistory } from '../../src/index.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { anomalyLabel } from '../../src/render/text.ts';

const V = 'valid';
const SG = 'G-single-process (session guarantee violation)', CV = 'G-single-process (causality violation)';

/** The weak levels, weakest first along each chain of the lattice. */
const WEAK = ['pl-1', 'ru', 'pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc'] as const;

/**
 * path -> one verdict per level of WEAK: 'valid' or the counterexample's class (description). A session that
 * misses its own earlier write (the YugabyteDB histories) satisfies read committed as Biswas &
 * Enea define it (and as Plume and AWDIT check it), and violates its strong-session variant.
 */
const EXPECTED: Record<string, [string, string, string, string, string, string, string, string]> = {
  'small/long-fork.txt': [V, V, V, V, V, V, V, V],
  'small/causality-violation.txt': [V, V, V, V, V, V, V, CV],
  'small/session-guarantee.txt': [V, V, V, V, V, SG, SG, SG],
  'small/write-skew.txt': [V, V, V, V, V, V, V, V],
  'polysi/violations/galera-lost-update.txt': [V, V, V, V, V, V, V, V],
  'polysi/violations/yugabyte-causality.txt': [V, V, V, V, V, SG, SG, SG],
  'polysi/violations/dgraph-causality.bincode': [V, V, V, V, V, V, V, CV],
  'isovista/dgraph_si.txt': [V, V, V, V, V, V, V, CV],
  'isovista/yugabyte_tcc.txt': [V, V, V, V, V, SG, SG, SG],
  'elle/paper-example.edn': [V, V, V, V, V, V, V, V],
};

for (const [path, want] of Object.entries(EXPECTED)) {
  test(`weak levels on ${path}`, { skip: needsData() }, async () => {
    const { history } = await readHistory(join(DATA_DIR, path));
    const got = WEAK.map((level) => {
      const r = checkHistory(history, { level });
      if (r.verdict === 'valid') return V;
      const cx = r.anomalies[0]?.explanation;
      assert.equal(cx?.certificate.status, 'certified', `${level}: ${JSON.stringify(cx?.certificate)}`);
      return anomalyLabel(cx!);
    });
    assert.deepEqual(got, want);
  });
}
