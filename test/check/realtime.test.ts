/**
 * The real-time order edges (src/graph/realtime.ts): their transitive closure is exactly the
 * real-time order "a committed and returned before b was invoked" on the included txns (no
 * edge out of an unknown-outcome txn, none for a txn without times), and their number stays
 * within n x (the most txns running at one instant), not the quadratic closure.
 * Also: the formats carry the times (JSON Lines "start"/"end", Elle's :time).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_COMMITTED, TXN_UNKNOWN, type History, txnLabel } from '../../src/history/model.ts';
import { validate } from '../../src/validate/validate.ts';
import { EdgeList, K_RT } from '../../src/graph/edges.ts';
import { addRealTimeOrder } from '../../src/graph/realtime.ts';
import { readHistory } from '../../src/formats/index.ts';
import { writeJsonl } from '../../src/formats/jsonl.ts';
import { mulberry32 } from '../support/prng.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('polysi-rt-');
let files = 0;
async function readHistoryFromString(text: string, format: string): Promise<History> {
  const path = join(DIR, `h${files++}.${format === 'edn' ? 'edn' : 'jsonl'}`);
  writeFileSync(path, text);
  return (await readHistory(path, format)).history;
}

/** n txns, each writing its own key (all included), with random intervals; some unknown, some untimed. */
function randomTimed(seed: number, n: number, sessions: number): History {
  const rng = mulberry32(seed);
  const b = new HistoryBuilder('<rt>');
  for (let i = 0; i < n; i++) {
    const t = b.beginTxn(b.session(i % sessions), `T${i}`, rng() < 0.1 ? TXN_UNKNOWN : TXN_COMMITTED);
    b.write(t, `k${i}`, i + 1);
    // Unknown txns take part only when read: a reader in a txn of its own, after everything.
    const s = Math.floor(rng() * 40), e = s + Math.floor(rng() * 12);
    if (rng() < 0.9) b.setTimes(t, s, e);
  }
  const r = b.beginTxn(b.session('reader'), 'R', TXN_COMMITTED);
  for (let i = 0; i < n; i++) b.read(r, `k${i}`, i + 1);
  b.setTimes(r, 1000, 1001);
  return b.build();
}

test('RT edges: their closure is the real-time order, and they number at most n x concurrency', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const h = randomTimed(seed, 5 + (seed % 40), 1 + (seed % 7));
    const v = validate(h);
    const known = new EdgeList();
    const pushed = addRealTimeOrder(v, known);
    assert.equal(pushed, known.length);
    const n = h.txnCount;
    const reach = Array.from({ length: n }, () => new Uint8Array(n));
    for (let i = 0; i < known.length; i++) {
      assert.equal(known.kind.get(i), K_RT);
      reach[known.from.get(i)]![known.to.get(i)] = 1;
    }
    for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) if (reach[a]![k]) for (let c = 0; c < n; c++) if (reach[k]![c]) reach[a]![c] = 1;
    const S = h.txnStart!, E = h.txnEnd!;
    let concurrency = 0;
    for (let a = 0; a < n; a++) {
      let running = 0;
      for (let c = 0; c < n; c++) if (S[c]! <= S[a]! && S[a]! <= E[c]!) running++;
      concurrency = Math.max(concurrency, running);
      for (let b = 0; b < n; b++) {
        const want = a !== b && v.included[a] === 1 && v.included[b] === 1 && h.txnStatus[a] === TXN_COMMITTED && E[a]! < S[b]!;
        assert.equal(reach[a]![b] === 1, want, `seed ${seed}: ${txnLabel(h, a)} -> ${txnLabel(h, b)} ([${S[a]},${E[a]}] [${S[b]},${E[b]}])`);
      }
    }
    assert.ok(known.length <= n * Math.max(1, concurrency), `seed ${seed}: ${known.length} edges for ${n} txns, concurrency ${concurrency}`);
  }
});

test('RT edges: n txns one after another (closure n^2/2 pairs) give n - 1 edges', () => {
  // Each txn's frontier is the one txn before it. (The bound is n x concurrency: n/2 txns all
  // running at one instant, followed by n/2 more, would still give n^2/4; see realtime.ts.)
  const b = new HistoryBuilder('<waves>');
  const n = 2000;
  for (let i = 0; i < n; i++) {
    const t = b.beginTxn(b.session(i % 8), `T${i}`, TXN_COMMITTED);
    b.write(t, 'x', i + 1);
    b.setTimes(t, 2 * i, 2 * i + 1);
  }
  const v = validate(b.build());
  const known = new EdgeList();
  assert.equal(addRealTimeOrder(v, known), n - 1);
});

test('formats: JSON Lines "start"/"end" and Elle :time give txnStart/txnEnd; bad times are clear errors', async () => {
  const jsonl = '{"session":1,"txn":"a","start":5,"end":9,"ops":[["w","x",1]]}\n{"session":2,"txn":"b","ops":[["r","x",1]]}\n';
  // (JSON Lines takes start and end together; Elle's :time may give only the invocation's.)
  const h = await readHistoryFromString(jsonl, 'jsonl');
  assert.deepEqual(Array.from(h.txnStart!), [5, Number.NaN]);
  assert.deepEqual(Array.from(h.txnEnd!), [9, Number.NaN]);
  await assert.rejects(readHistoryFromString('{"session":1,"start":"soon","end":3,"ops":[]}\n', 'jsonl'), /line 1.*"start" to be a time/);
  await assert.rejects(readHistoryFromString('{"session":1,"start":9,"end":5,"ops":[]}\n', 'jsonl'), /line 1.*"end" \(5\) is before "start" \(9\)/);
  const edn = '{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 100, :index 0}\n' +
    '{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 250, :index 1}\n' +
    '{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :time 300, :index 2}\n' +
    '{:type :ok, :f :txn, :value [[:r :x 1]], :process 1, :time 400, :index 3}\n';
  const e = await readHistoryFromString(edn, 'edn');
  assert.deepEqual(Array.from(e.txnStart!), [100, 300]);
  assert.deepEqual(Array.from(e.txnEnd!), [250, 400]);
  const untimed = await readHistoryFromString('{"session":1,"ops":[["w","x",1]]}\n', 'jsonl');
  assert.equal(untimed.txnStart, undefined);
  // The JSON Lines writer keeps them: a round trip gives the same times.
  const back = await readHistoryFromString(writeJsonl(e), 'jsonl');
  assert.deepEqual(Array.from(back.txnStart!), [100, 300]);
  assert.deepEqual(Array.from(back.txnEnd!), [250, 400]);
  assert.doesNotMatch(writeJsonl(untimed), /start/);
});
