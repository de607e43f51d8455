/**
 * Issue 23 item 7: Jepsen operations whose `:f` is not `:txn` but whose `:value` is a vector of
 * micro-ops (`:f :read` / `:f :write`, as real repositories write them) are transactions, in
 * EDN and Elle JSON, parsed from bytes and streamed in tiny chunks. Before, they were skipped:
 * 0 transactions checked, exit 0. A file in which no operation is a transaction is refused
 * (exit 2, naming the first operation), never checked as an empty history.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkHistory } from '../../src/check/index.ts';
import { parseEdnBytes, readEdnFile } from '../../src/formats/elle-edn.ts';
import { parseElleJsonBytes, readElleJsonFile } from '../../src/formats/elle-json.ts';
import { notesOf } from '../../src/formats/io-notes.ts';
import { InputError } from '../../src/history/errors.ts';
import { describeOp, TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('polysi-nontxn-');
const enc = (s: string) => new TextEncoder().encode(s);

/**
 * A lost update written the way register workloads write it: p0 and p1 read x = 0 (nil: the
 * initial value) and write it; p2 reads after both. A nemesis op in between; p3's `:read` is
 * invoked with a nil value (held until its completion shows the micro-ops); p4's `:write`
 * fails.
 */
const EDN = `{:type :invoke, :f :read, :value [[:r :x nil] [:w :x 1]], :process 0, :time 10}
{:type :invoke, :f :write, :value [[:r :x nil] [:w :x 2]], :process 1, :time 11}
{:type :info, :f :start-partition, :value [:isolated {:n1 #{:n2}}], :process :nemesis}
{:type :ok, :f :read, :value [[:r :x nil] [:w :x 1]], :process 0, :time 20}
{:type :ok, :f :write, :value [[:r :x nil] [:w :x 2]], :process 1, :time 21}
{:type :invoke, :f :read, :value nil, :process 3, :time 30}
{:type :ok, :f :read, :value [[:r :x 2]], :process 3, :time 40}
{:type :invoke, :f :write, :value [[:w :y 7]], :process 4, :time 50}
{:type :fail, :f :write, :value nil, :process 4, :time 60}
{:type :info, :f :stop-partition, :value nil, :process :nemesis}
`;

const JSON_TEXT = `[
{"type": "invoke", "f": "read", "value": [["r", "x", null], ["w", "x", 1]], "process": 0, "time": 10},
{"type": "invoke", "f": "write", "value": [["r", "x", null], ["w", "x", 2]], "process": 1, "time": 11},
{"type": "info", "f": "start-partition", "value": ["isolated", {"n1": ["n2"]}], "process": "nemesis"},
{"type": "ok", "f": "read", "value": [["r", "x", null], ["w", "x", 1]], "process": 0, "time": 20},
{"type": "ok", "f": "write", "value": [["r", "x", null], ["w", "x", 2]], "process": 1, "time": 21},
{"type": "invoke", "f": "read", "value": null, "process": 3, "time": 30},
{"type": "ok", "f": "read", "value": [["r", "x", 2]], "process": 3, "time": 40},
{"type": "invoke", "f": "write", "value": [["w", "y", 7]], "process": 4, "time": 50},
{"type": "fail", "f": "write", "value": null, "process": 4, "time": 60},
{"type": "info", "f": "stop-partition", "value": null, "process": "nemesis"}
]`;

function shape(h: History): string[] {
  const st = ['ok', 'fail', 'info'];
  const out: string[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const ops: string[] = [];
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) ops.push(describeOp(h, op));
    out.push(`${h.sessionLabels[h.txnSession[t]!]}|${st[h.txnStatus[t]!]}|${ops.join(' ')}`);
  }
  return out;
}

const READERS: [string, () => Promise<History>][] = [
  ['EDN bytes', async () => parseEdnBytes(enc(EDN), 'h.edn')],
  ['EDN streamed in 7-byte chunks', async () => {
    const p = join(DIR, 'h.edn');
    writeFileSync(p, EDN);
    return readEdnFile(p, { chunkBytes: 7 });
  }],
  ['Elle JSON bytes', async () => parseElleJsonBytes(enc(JSON_TEXT), 'h.json')],
  ['Elle JSON streamed in 5-byte chunks', async () => {
    const p = join(DIR, 'h.json');
    writeFileSync(p, JSON_TEXT);
    return readElleJsonFile(p, { chunkBytes: 5 });
  }],
];

for (const [name, read] of READERS) {
  test(`${name}: ops whose :f is :read / :write with micro-op values are transactions`, async () => {
    const h = await read();
    const x = name.startsWith('EDN') ? ':x' : 'x';
    const y = name.startsWith('EDN') ? ':y' : 'y';
    assert.deepEqual(shape(h), [
      `0|ok|r(${x},init) w(${x},1)`,
      `1|ok|r(${x},init) w(${x},2)`,
      `3|ok|r(${x},2)`,
      `4|fail|w(${y},7)`,
    ]);
    assert.deepEqual([...h.txnStatus], [TXN_COMMITTED, TXN_COMMITTED, TXN_COMMITTED, TXN_ABORTED]);
    // The held invocation of p3 gives the txn its start time and line.
    assert.equal(h.txnStart?.[2], 30);
    assert.equal(h.txnEnd?.[2], 40);
    const notes = notesOf(h).join('\n');
    assert.match(notes, /read 4 transaction\(s\) from operations whose :f is not :txn \(:read, :write\)/);
    const nemesisLine = name.startsWith('EDN') ? 3 : 4; // the JSON array opens on a line of its own
    assert.ok(notes.includes(`skipped 2 operation(s) that are not transactions (:f :start-partition, :stop-partition; first at line ${nemesisLine})`), notes);
    // The lost update is found: before, no transaction was read and the verdict was VALID.
    assert.equal(checkHistory(h, { level: 'si', pruning: true }).verdict, 'violation');
    assert.equal(checkHistory(h, { level: 'rc', pruning: true }).verdict, 'valid');
  });
}

test('a :read invocation of unknown outcome whose completion is :info stays an unknown transaction', () => {
  const h = parseEdnBytes(enc(`{:type :invoke, :f :read, :value [[:r :x nil]], :process 0}
{:type :info, :f :read, :value nil, :process 0}
{:type :invoke, :f :write, :value [[:w :x 1]], :process 0}
{:type :ok, :f :write, :value [[:w :x 1]], :process 0}
`), 'h.edn');
  assert.deepEqual([...h.txnStatus], [TXN_UNKNOWN, TXN_COMMITTED]);
});

function rejectsUnsupported(fn: () => unknown, line: number, detail: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.code, 'unsupported', e.message);
    assert.equal(e.loc, line);
    assert.match(e.message, detail);
    return true;
  });
}

test('a history in which no operation is a transaction is refused, naming the first operation', () => {
  // A single-register linearizability workload: :f :read / :write with scalar values.
  const register = `{:type :invoke, :f :write, :value 3, :process 0}
{:type :ok, :f :write, :value 3, :process 0}
{:type :invoke, :f :read, :value nil, :process 1}
{:type :ok, :f :read, :value 3, :process 1}
`;
  rejectsUnsupported(() => parseEdnBytes(enc(register), 'reg.edn'), 1,
    /^reg\.edn line 1: none of the 4 operation\(s\) is a transaction \(:f :write, :read; the first is \{:type :invoke, :f :write, :value 3, :process 0\}\)/);
  rejectsUnsupported(() => parseElleJsonBytes(enc('[{"type":"info","f":"kill","value":null,"process":"nemesis"}]'), 'n.json'), 1,
    /none of the 1 operation\(s\) is a transaction \(:f :kill/);
});

test('a micro-op vector with an unknown micro-op is refused with its line, not skipped', () => {
  assert.throws(() => parseEdnBytes(enc('{:type :ok, :f :cas, :value [[:cas :x [1 2]]], :process 0}\n'), 'c.edn'),
    (e: unknown) => e instanceof InputError && e.code === 'syntax' && e.loc === 1 && /unknown micro-op :cas/.test(e.message));
});

test('CLI: a :f :read history is checked (exit 1 for its lost update); one with no transaction exits 2 naming it', async () => {
  const p = join(DIR, 'cli.edn');
  writeFileSync(p, EDN);
  const r = await runCli('check', p, '--level', 'si');
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /4 transactions/);

  const q = join(DIR, 'register.edn');
  writeFileSync(q, '{:type :invoke, :f :read, :value nil, :process 1}\n{:type :ok, :f :read, :value 3, :process 1}\n');
  const s = await runCli('check', q);
  assert.equal(s.code, 2, s.out + s.err);
  assert.match(s.err, /register\.edn line 1: none of the 2 operation\(s\) is a transaction/);
});
