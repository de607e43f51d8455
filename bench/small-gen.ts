/**
 * Deterministic small histories for `npm run bench:small` (issue 10): the shape of the
 * CockroachDB history in the issue (12 sessions, 360 transactions, ~20 operations each, about
 * 7,200 operations), from the simulated snapshot-isolation store of test/support/gen.ts.
 *
 * Takes: an output directory and a corpus size. Gives: violation.jsonl (a lost update among
 * correct transactions), valid.jsonl, and corpus/NNNNN.jsonl (every fourth one with a bug), all
 * in our JSON Lines format. Invariant: the same arguments always give byte-identical files
 * (seeded PRNG), and a directory already holding a complete set is reused, not rewritten.
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeJsonl } from '../src/formats/jsonl.ts';
import type { History } from '../src/history/model.ts';
import { mulberry32, simulatedSiHistory, type StoreBug } from '../test/support/gen.ts';

export const SMALL_SHAPE = { sessions: 12, txnsPerSession: 30, keys: 2000, opsPerTxnMin: 16, opsPerTxnMax: 24 } as const;

export function smallHistory(seed: number, bug: StoreBug): History {
  return simulatedSiHistory(mulberry32(seed), {
    ...SMALL_SHAPE, pRead: 0.5, pVoluntaryAbort: 0.01, pUnknown: 0.005, pReadsFirst: 0.5,
    bug, pBug: bug === 'none' ? 0 : 0.05,
  });
}

/** Writes the bench inputs to `dir` (reusing a complete earlier set); returns their paths. */
export function ensureSmallInputs(dir: string, corpusSize: number): { violation: string; valid: string; corpus: string } {
  const corpus = join(dir, `corpus-${corpusSize}`);
  const done = join(corpus, '.complete');
  const out = { violation: join(dir, 'violation.jsonl'), valid: join(dir, 'valid.jsonl'), corpus };
  mkdirSync(corpus, { recursive: true });
  if (!existsSync(out.violation)) writeFileSync(out.violation, writeJsonl(smallHistory(365, 'mixed')));
  if (!existsSync(out.valid)) writeFileSync(out.valid, writeJsonl(smallHistory(361, 'none')));
  if (existsSync(done) && readFileSync(done, 'utf8') === String(corpusSize)) return out;
  for (let i = 0; i < corpusSize; i++) {
    const bug: StoreBug = i % 4 === 0 ? 'mixed' : 'none';
    writeFileSync(join(corpus, `${String(i).padStart(5, '0')}.jsonl`), writeJsonl(smallHistory(10_000 + i, bug)));
  }
  writeFileSync(done, String(corpusSize));
  return out;
}
