// The memory budget (--max-memory, CheckOptions.maxMemoryMb): past it the verdict is 'unknown'
// naming the stage, decided before the stage allocates its tables; under it, the same verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { checkHistory } from '../../src/check/index.ts';
import { MemoryBudget, MemoryLimitError } from '../../src/util/memory.ts';
import type { History } from '../../src/history/model.ts';
import { mulberry32, simulatedSiHistory } from '../support/gen.ts';
import { scratchDir } from '../support/scratch.ts';

/** `writers` sessions, each one txn that blindly writes key "hot": writers^2/2 constraints. */
function blindWrites(writers: number): History {
  const b = new HistoryBuilder('<blind>');
  for (let i = 0; i < writers; i++) {
    const t = b.beginTxn(b.session(`s${i}`), `t${i}`);
    b.write(t, 'hot', i + 1);
  }
  return b.build();
}

const rssMb = (): number => process.memoryUsage().rss / 2 ** 20;

test('a budget below what the process already uses: unknown, after parsing', () => {
  const h = simulatedSiHistory(mulberry32(1), { sessions: 3, txnsPerSession: 5, keys: 4 });
  const r = checkHistory(h, { level: 'si', pruning: true, maxMemoryMb: 1 });
  assert.equal(r.verdict, 'unknown');
  assert.equal(r.decidedBy, 'limit');
  assert.match(r.unknownReason ?? '', /^the memory budget \(1 MB\) would be exceeded after parsing the input \(about \d+ MB needed\)$/);
});

test('a polygraph too big for the budget: unknown naming construction, before it is built', () => {
  // 3,000 blind writers: 4,498,500 constraints, some 200 MB of records; the budget leaves 64 MB.
  const h = blindWrites(3000);
  const budget = Math.ceil(rssMb()) + 64;
  const before = process.memoryUsage().arrayBuffers;
  const r = checkHistory(h, { level: 'si', pruning: true, maxMemoryMb: budget });
  assert.equal(r.verdict, 'unknown');
  assert.match(r.unknownReason ?? '', new RegExp(`^the memory budget \\(${budget} MB\\) would be exceeded by building the polygraph`));
  assert.equal(r.constraints.before, 4_498_500);
  // Nothing of that size was allocated.
  assert.ok(process.memoryUsage().arrayBuffers - before < 50 * 2 ** 20);
});

test('under a generous budget the verdicts and counts are those of an unbounded check', () => {
  for (const bug of ['none', 'lost-update', 'mixed'] as const) {
    for (let seed = 1; seed <= 4; seed++) {
      const h = simulatedSiHistory(mulberry32(seed), { sessions: 5, txnsPerSession: 20, keys: 10, bug });
      for (const level of ['si', 'ser'] as const) {
        const a = checkHistory(h, { level, pruning: true, explain: false });
        const b = checkHistory(h, { level, pruning: true, explain: false, maxMemoryMb: 1e6 });
        assert.equal(b.verdict, a.verdict, `${bug} ${seed} ${level}`);
        assert.deepEqual(b.constraints, a.constraints, `${bug} ${seed} ${level}`);
      }
    }
  }
});

test('MemoryBudget: reserve throws MemoryLimitError naming the stage past the budget, and only then', () => {
  let rss = 90 * 2 ** 20;
  const budget = new MemoryBudget(100, () => rss);
  budget.reserve('prune', 10 * 2 ** 20);
  assert.equal(budget.leftBytes(), 10 * 2 ** 20);
  assert.throws(() => budget.reserve('prune', 10 * 2 ** 20 + 1), (e: unknown) =>
    e instanceof MemoryLimitError && e.stage === 'prune' && e.message === 'the memory budget (100 MB) would be exceeded by pruning (about 101 MB needed)');
  rss = 101 * 2 ** 20;
  assert.throws(() => budget.reserve('solve', 0), /exceeded by solving/);
  assert.throws(() => new MemoryBudget(0), RangeError);
  assert.throws(() => checkHistory(blindWrites(2), { level: 'si', pruning: true, maxMemoryMb: -1 }), RangeError);
});

test('the CLI: --max-memory below the process size exits 3 (unknown) naming the stage; a bad value exits 2', async () => {
  const { main } = await import('../../src/cli/main.ts');
  const { writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = scratchDir('polysi-memory-');
  try {
    const path = join(dir, 'h.txt');
    writeFileSync(path, 'w(1,1,0,0)\nr(1,1,1,1)\n');
    let out = '';
    const code = await main(['check', path, '--json', '--max-memory', '1'], { stdout: (s) => { out += s; }, stderr: () => {} });
    assert.equal(code, 3);
    const j = JSON.parse(out);
    assert.equal(j.verdict, 'unknown');
    assert.match(j.unknownReason, /^the memory budget \(1 MB\) would be exceeded after parsing the input/);
    let err = '';
    assert.equal(await main(['check', path, '--max-memory', 'lots'], { stdout: () => {}, stderr: (s) => { err += s; } }), 2);
    assert.match(err, /--max-memory takes a number of megabytes/);
    out = '';
    assert.equal(await main(['check', path, '--json', '--max-memory', '100000'], { stdout: (s) => { out += s; }, stderr: () => {} }), 0);
    assert.equal(JSON.parse(out).verdict, 'valid');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
