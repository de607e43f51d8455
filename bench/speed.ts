/**
 * Speed budgets that used to be assertions in unit tests (a unit test on a shared 2-core machine
 * must not fail because a neighbour was busy). Each case runs a few times and reports its best
 * time against its budget; the exit code is 1 when a best time is over budget, so this can gate
 * a performance change on a quiet machine.
 *
 * Usage: npm run bench:speed   (needs the shared histories: ../shared/data or POLYSI_SHARED_DATA)
 */

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDbcopBincode } from '../src/formats/dbcop-bincode.ts';
import { parsePolysiText } from '../src/formats/polysi-text.ts';
import { main } from '../src/cli/main.ts';
import { caseSeed, simulatedSerialHistory, simulatedSiHistory } from '../test/support/gen.ts';
import { mulberry32 } from '../test/support/prng.ts';
import { DATA_DIR } from '../test/support/requirements.ts';

interface Case { name: string; budgetMs: number; runs: number; run: () => unknown | Promise<unknown> }

if (!existsSync(DATA_DIR)) {
  console.error(`bench:speed: no shared histories at ${DATA_DIR} (put shared/ beside the checkout or set POLYSI_SHARED_DATA)`);
  process.exit(2);
}

const fig8 = new Uint8Array(readFileSync(join(DATA_DIR, 'polysi/valid/fig8/25_400_8_10000_0.5_uniform.bincode')));
const dgraphText = readFileSync(join(DATA_DIR, 'isovista/dgraph_si.txt'), 'utf8');
const dgraph = join(DATA_DIR, 'polysi/violations/dgraph-causality.bincode');
const quiet = { stdout: () => {}, stderr: () => {} };

const CASES: Case[] = [
  { name: 'parse fig8 bincode (1.5 MB)', budgetMs: 100, runs: 10, run: () => parseDbcopBincode(fig8, 'fig8') },
  { name: 'parse isovista/dgraph_si.txt', budgetMs: 50, runs: 10, run: () => parsePolysiText(dgraphText, 'dgraph_si.txt') },
  {
    name: 'check + explain + SVG of dgraph-causality.bincode', budgetMs: 3000, runs: 3, run: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'polysi-speed-'));
      try {
        const code = await main(['check', dgraph, '--explain', '--svg', join(dir, 'd.svg')], quiet);
        if (code !== 1) throw new Error(`expected a violation (exit 1), got ${code}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    name: 'simulate 20 x 2 histories of 10 sessions x 50 txns', budgetMs: 5000, runs: 3, run: () => {
      for (let i = 0; i < 20; i++) {
        simulatedSiHistory(mulberry32(caseSeed(0x55, i)), { sessions: 10, txnsPerSession: 50, keys: 20, opsPerTxnMax: 8 });
        simulatedSerialHistory(mulberry32(caseSeed(0x56, i)), { sessions: 10, txnsPerSession: 50, keys: 20, opsPerTxnMax: 8 });
      }
    },
  },
];

let over = 0;
for (const c of CASES) {
  let best = Infinity;
  let first = 0;
  for (let i = 0; i < c.runs; i++) {
    const t0 = performance.now();
    await c.run();
    const ms = performance.now() - t0;
    if (i === 0) first = ms;
    best = Math.min(best, ms);
  }
  const ok = best <= c.budgetMs;
  if (!ok) over++;
  console.log(`${ok ? 'ok  ' : 'SLOW'} ${c.name}: best of ${c.runs} ${best.toFixed(1)} ms (first ${first.toFixed(1)} ms), budget ${c.budgetMs} ms`);
}
process.exit(over === 0 ? 0 : 1);
