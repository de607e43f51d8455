// Jepsen / Elle histories in EDN and JSON: the two real Elle files, the invoke/completion
// pairing rules, micro-op mapping, the EDN and JSON readers' syntax (and their errors with line
// numbers), streaming through tiny chunks, and the writer's round trip and refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { LabelTable } from '../../src/history/labels.ts';
import {
  describeOp,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  valueLabel,
  type History,
} from '../../src/history/model.ts';
import { ednFormat, parseEdnBytes, readEdnFile } from '../../src/formats/elle-edn.ts';
import { elleJsonFormat, parseElleJsonBytes, readElleJsonFile } from '../../src/formats/elle-json.ts';
import { writeJepsen } from '../../src/formats/elle-writer.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { notesOf } from '../../src/formats/io-notes.ts';
import { contentDiff } from '../../src/cli/convert.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const NO_DATA = needsData();
const ELLE = `${DATA_DIR}/elle/`;
const enc = (s: string) => new TextEncoder().encode(s);
const edn = (s: string, chunkBytes?: number) => parseEdnBytes(enc(s), 'h.edn', chunkBytes === undefined ? {} : { chunkBytes });
const json = (s: string, chunkBytes?: number) => parseElleJsonBytes(enc(s), 'h.json', chunkBytes === undefined ? {} : { chunkBytes });

/** Each txn as "session|status|op op ...", in History order. */
function txns(h: History): string[] {
  const st = ['ok', 'fail', 'info'];
  const out: string[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const ops: string[] = [];
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) ops.push(describeOp(h, op));
    out.push(`${h.sessionLabels[h.txnSession[t]!]}|${st[h.txnStatus[t]!]}|${ops.join(' ')}`);
  }
  return out;
}

function rejects(fn: () => unknown, code: string, line: number, detail: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.equal(e.unit, 'line');
    assert.equal(e.loc, line, e.message);
    assert.match(e.detail, detail);
    return true;
  });
}

test('elle: paper-example.edn (no :process, no :f) parses into 4 committed txns', { skip: NO_DATA }, async () => {
  const h = await readEdnFile(join(ELLE, 'paper-example.edn'));
  assert.equal(h.txnCount, 4);
  assert.deepEqual([...h.txnStatus], [TXN_COMMITTED, TXN_COMMITTED, TXN_COMMITTED, TXN_COMMITTED]);
  assert.equal(h.sessionCount, 4, 'without :process each txn is its own session');
  assert.deepEqual(txns(h), [
    'txn 0|ok|append(253,1) append(253,3) append(253,4) append(255,2) append(255,3) append(255,4) append(255,5) append(256,1) append(256,2)',
    'txn 2|ok|append(255,8) r(253,[1 3 4])',
    'txn 4|ok|append(256,4) r(255,[2 3 4 5 8]) r(256,[1 2 4]) r(253,[1 3 4])',
    'txn 6|ok|append(250,10) r(253,[1 3 4]) r(255,[2 3 4 5]) append(256,3)',
  ]);
  assert.deepEqual(h.txnLabelTable.toArray(), ['0', '2', '4', '6']);
  assert.deepEqual([...h.txnLoc], [1, 3, 5, 7]);
  assert.match(notesOf(h).join('\n'), /4 transaction\(s\) without :process/);
  assert.ok(ednFormat.sniff(readFileSync(join(ELLE, 'paper-example.edn')), 'x', false));
});

test('elle: si-without-g-single.edn: processes are sessions, nil reads of list keys are empty lists', { skip: NO_DATA }, async () => {
  const h = await readEdnFile(join(ELLE, 'si-without-g-single.edn'));
  assert.deepEqual(h.sessionLabels, ['2', '4', '7', '9']);
  assert.deepEqual(h.txnLabelTable.toArray(), ['10', '20', '30', '40']);
  assert.deepEqual(txns(h), [
    '2|ok|append(9,2)',
    '4|ok|append(8,1) r(9,[])',
    // key 6 is first read (nil) and only appended later: still a list read.
    '7|ok|r(6,[]) r(8,[]) append(9,5)',
    '9|ok|append(6,2) r(9,[2])',
  ]);
  assert.deepEqual(notesOf(h), []);
  assert.ok(ednFormat.sniff(readFileSync(join(ELLE, 'si-without-g-single.edn')), 'x', false), 'comments before the first map');
});

const PAIRING = `
{:type :invoke, :f :txn, :value [[:w :x 1] [:r :y nil]], :process 0, :index 0}
{:type :invoke, :f :start, :value nil, :process :nemesis, :index 1}
{:type :invoke, :f :txn, :value [[:append "k" 1] [:r "k" nil]], :process 1, :index 2}
{:type :info, :f :start, :value [:isolated {:n1 #{:n2}}], :process :nemesis, :index 3}
{:type :ok, :f :txn, :value [[:w :x 1] [:r :y 5]], :process 0, :index 4}
{:type :fail, :f :txn, :value [[:append "k" 1] [:r "k" nil]], :process 1, :index 5, :error [:aborted "x"]}
{:type :invoke, :f :txn, :value [[:w :y 5]], :process 0, :index 6}
{:type :info, :f :txn, :process 0, :index 7}
{:type :invoke, :f :txn, :value [[:r :x nil] [:w :x 2]], :process 2, :index 8}
{:type :ok, :f :txn, :value [[:r :y 5] [:r "k" [1]]], :process 3, :index 9}
`;

test('elle: invoke/completion pairing, outcomes, nemesis ops, unknown reads', () => {
  const h = edn(PAIRING);
  assert.deepEqual(h.sessionLabels, ['0', '1', '2', '3']);
  assert.deepEqual(txns(h), [
    '0|ok|w(:x,1) r(:y,5)', // the completion's reads are authoritative
    '0|info|w(:y,5)', // :info without :value takes the invocation's
    '1|fail|append(k,1)', // a nil read in a :fail txn is unknown: dropped
    '2|info|w(:x,2)', // never completed: unknown, nil read dropped
    '3|ok|r(:y,5) r(k,[1])', // a completion without invoke is a txn of its own
  ]);
  assert.deepEqual(h.txnLabelTable.toArray(), ['0', '6', '2', '8', '9']);
  assert.deepEqual([...h.txnStatus], [TXN_COMMITTED, TXN_UNKNOWN, TXN_ABORTED, TXN_UNKNOWN, TXN_COMMITTED]);
  const notes = notesOf(h).join('\n');
  assert.match(notes, /skipped 2 operation\(s\) that are not transactions \(:f :start; first at line 3\)/);
  assert.match(notes, /1 invocation\(s\) never completed/);
  assert.match(notes, /1 completion\(s\) without an :invoke/);
  assert.match(notes, /dropped 2 read\(s\) with unknown \(nil\) results/);
  // Strings and keywords are different keys and values ("k" vs :k).
  assert.deepEqual(h.keyLabels, [':x', ':y', 'k']);
});

test('elle: register nil reads are the initial value; keys and values keep their types', () => {
  const h = edn(`{:type :ok, :value [[:r 1 nil] [:w 1 "a"] [:r "1" 1] [:w 18446744073709551615 9223372036854775808N]], :process "p", :index 0}`);
  assert.deepEqual(txns(h), ['p|ok|r(1,init) w(1,"a") r(1,1) w(18446744073709551615,9223372036854775808)']);
  assert.equal(h.keyLabels.length, 3, 'key 1 and key "1" are different keys');
  assert.equal(valueLabel(h, 0), 'init');
});

test('elle: semantic errors name the line', () => {
  rejects(() => edn('{:type :invoke, :value [], :process 1}\n{:type :invoke, :value [], :process 1}'), 'inconsistent', 2, /process 1 invokes a transaction while its invocation at line 1 is still pending/);
  rejects(() => edn('{:type :ok, :value [[:append 1 1]], :process 1}\n{:type :ok, :value [[:w 1 2]], :process 1}'), 'unsupported', 2, /key 1 is used both as a register .* and as a list/);
  rejects(() => edn('{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:r 1 5]]}'), 'unsupported', 2, /both/);
  rejects(() => edn('{:type :ok, :value [[:w 1 1]]}\n\n{:type :ok, :value [[:r 1 [1]]]}'), 'unsupported', 3, /both/);
  rejects(() => edn('{:type :ok, :value [[:cas 1 [1 2]]]}'), 'syntax', 1, /unknown micro-op :cas.*expected :r, :w or :append/);
  rejects(() => edn('{:type :ok, :value [[:r 1]]}'), 'syntax', 1, /micro-op \[f k v\] with three elements/);
  rejects(() => edn('{:type :ok, :value 5}'), 'syntax', 1, /expected :value to be a vector of micro-ops/);
  rejects(() => edn('{:type :done, :value []}'), 'syntax', 1, /expected :type to be :invoke, :ok, :fail or :info, found :done/);
  rejects(() => edn('[:type :ok]'), 'syntax', 1, /expected an operation map/);
  rejects(() => edn('{:type :ok, :value [[:w 1 1.5]]}'), 'unsupported', 1, /values must be integers or strings, found 1.5/);
  rejects(() => edn('{:type :ok, :value [[:w 1 :v]]}'), 'unsupported', 1, /found :v/);
  rejects(() => edn('{:type :ok, :value [[:w [1] 1]]}'), 'unsupported', 1, /keys must be integers, keywords or strings/);
  rejects(() => edn('{:type :ok, :value [[:r 1 [1 nil]]]}'), 'unsupported', 1, /list read contains nil/);
  rejects(() => edn('{:type :ok, :process 1}'), 'syntax', 1, /without a preceding :invoke must carry/);
  rejects(() => edn('{:type :ok, :value [], :process 1.5}'), 'syntax', 1, /:process to be an integer, keyword or string/);
});

test('edn reader: the Jepsen subset (tags, discard, sets, symbols, chars, strings, numbers, comments)', () => {
  const h = edn(`; a comment
#jepsen.history.Op{:index 0, :time 1.5e9, :type :invoke, :process 0, :f :txn, :value [[:w "a\\"b\\n\\u00e9" 1]]}
#_ {:type :bogus}
{:index 1, :time 2M, :type :ok, :process 0, :f :txn, :value [[:w "a\\"b\\nÃ©" 1]], :extra #{sym/bol \\a \\newline nil true 1/2 ##Inf (1 2) #inst "2020-01-01"}}
,,, {:type :ok :process 0 :value ([:r "é" nil])} ; trailing comment`);
  assert.deepEqual(txns(h), ['0|ok|w(a"b\nÃ©,1)', '0|ok|r(é,init)']);
  assert.equal(h.keyLabels[0], 'a"b\nÃ©');
});

test('edn reader: one vector (or list) of maps is streamed like one map per line', () => {
  const lines = PAIRING.trim().split('\n');
  const base = edn(PAIRING);
  for (const wrapped of [`[${lines.join('\n')}]`, `(\n${lines.join(',\n')}\n)\n`, `  [ ${lines.join(' ')} ] `]) {
    assert.equal(diffHistories(base, edn(wrapped)), null);
  }
  rejects(() => edn(`[${lines.join('\n')}`), 'truncated', 1, /the top-level '\[' opened at line 1 is not closed/);
  rejects(() => edn(`[${lines[0]}] {:type :ok}`), 'syntax', 1, /expected end of input after the top-level sequence/);
});

test('edn reader: syntax errors say where and what was expected', () => {
  rejects(() => edn('{:type :ok, :value [[:w 1 1]]}\n{:type :ok,\n :value [[:w 1 1]]'), 'truncated', 2, /the map opened at line 2 is not closed; expected '}'/);
  rejects(() => edn('{:type :ok, :value [[:w 1 1)}'), 'syntax', 1, /unexpected '\)' inside the vector opened at line 1; expected '\]'/);
  rejects(() => edn('{:type :ok, :value []}}'), 'syntax', 1, /unexpected '}': no form is open here/);
  rejects(() => edn('{:type :ok, :v "abc\ndef'), 'truncated', 1, /the string opened at line 1 is not closed/);
  rejects(() => edn('{:type :ok, :v "a\\qb"}'), 'syntax', 1, /unsupported escape \\q/);
  rejects(() => edn('{:type :ok, :v 017}'), 'syntax', 1, /leading zero/);
  rejects(() => edn('{:type :ok, :v 12abc}'), 'syntax', 1, /malformed number "12abc"/);
  rejects(() => edn('{:type :ok, :v ^:meta x}'), 'syntax', 1, /unexpected '\^'; expected a value/);
  rejects(() => edn('{:type :ok, :v #?(:clj 1)}'), 'syntax', 1, /unsupported dispatch '#\?'/);
  rejects(() => edn('{:type :ok :v}'), 'syntax', 1, /has a key without a value/);
  rejects(() => edn('\n\n{:type :ok, :v \\bogus}'), 'syntax', 3, /unknown character literal \\bogus/);
  rejects(() => edn('{:a ' + '['.repeat(300) + ']'.repeat(300) + '}'), 'syntax', 1, /nested deeper than 256/);
});

test('edn reader: invalid UTF-8 is an error, not replacement characters', () => {
  const bytes = new Uint8Array([...enc('{:type :ok, :value [[:w "a'), 0xff, ...enc('" 1]]}')]);
  assert.throws(() => parseEdnBytes(bytes), (e: unknown) => e instanceof InputError && /invalid UTF-8/.test(e.detail));
});

test('elle-json: the elle-cli layouts (array, one object per line) read like the EDN', () => {
  const ednText = `{:index 10, :type :invoke, :process 2, :f :txn, :value [[:append 9 2]]}
{:index 11, :type :ok, :process 2, :f :txn, :value [[:append 9 2]]}
{:index 20, :type :invoke, :process 4, :f :txn, :value [[:append 8 1] [:r 9 nil]]}
{:index 21, :type :ok, :process 4, :f :txn, :value [[:append 8 1] [:r 9 nil]]}
{:index 30, :type :invoke, :process :nemesis, :f :kill, :value nil}
{:index 40, :type :invoke, :process 9, :f :txn, :value [[:w "x" 2] [:r 9 nil]]}
{:index 41, :type :info, :process 9, :f :txn, :value [[:w "x" 2] [:r 9 nil]]}`;
  const objs = [
    '{"index":10,"type":"invoke","process":2,"f":"txn","value":[["append",9,2]]}',
    '{"index":11,"type":"ok","process":2,"f":"txn","value":[["append",9,2]]}',
    '{"index":20,"type":"invoke","process":4,"f":"txn","value":[["append",8,1],["r",9,null]]}',
    '{"index":21,"type":":ok","process":4,"f":":txn","value":[[":append",8,1],["r",9,null]]}',
    '{"index":30,"type":"invoke","process":"nemesis","f":"kill","value":null}',
    '{"index":40,"type":"invoke","process":9,"f":"txn","value":[["w","x",2],["r",9,null]]}',
    '{"index":41,"type":"info","process":9,"f":"txn","value":[["w","x",2],["r",9,null]]}',
  ];
  const a = edn(ednText);
  for (const text of [`[${objs.join(',\n')}]\n`, `${objs.join('\n')}\n`, ` [ ${objs.join(' , ')} ] `]) {
    const b = json(text);
    assert.equal(diffHistories(a, b), null);
    // Line numbers in notes match when there is one object per line, as in the EDN.
    if (text.includes('\n{')) assert.deepEqual(notesOf(b), notesOf(a));
    else assert.equal(notesOf(b).length, notesOf(a).length);
  }
  assert.ok(elleJsonFormat.sniff(enc(`[${objs.join(',\n')}]`), 'x', false));
  assert.ok(!elleJsonFormat.sniff(enc('{"params":{"id":0},"data":[[{"events":[],"success":true}]]}'), 'x', false));
  assert.ok(!ednFormat.sniff(enc(`[${objs[0]}]`), 'x', false));
});

test('elle-json: big integers stay exact; JSON syntax errors name the line', () => {
  const h = json('[{"type":"ok","process":0,"value":[["w",12345678901234567890,98765432109876543210],["r",1,-0]]}]');
  assert.deepEqual(txns(h), ['0|ok|w(12345678901234567890,98765432109876543210) r(1,0)']);
  rejects(() => json('[{"type":"ok","value":[]},\n]'), 'syntax', 2, /expected a value, found '\]'/);
  rejects(() => json('[{"type":"ok","value":[]}\n{"type":"ok","value":[]}]'), 'syntax', 2, /expected ',' or '\]' after an element of the top-level array/);
  rejects(() => json('{"type":"ok","value":[1 2]}'), 'syntax', 1, /expected ',' or '\]'/);
  rejects(() => json('{"type":"ok",\n"value":[]'), 'truncated', 1, /the object opened at line 1 is not closed/);
  rejects(() => json('{"type":\'ok\'}'), 'syntax', 1, /expected a JSON value/);
  rejects(() => json('{"type":"ok","value":[["w",1,01]]}'), 'syntax', 1, /malformed number "01"/);
  rejects(() => json('{"type":"ok","value":[["w",1,"a\nb"]]}'), 'syntax', 1, /control character/);
  rejects(() => json('{"type":"ok","value":[["w",1,1.0]]}'), 'unsupported', 1, /found 1.0/);
  rejects(() => json('{"type":"ok","value":[["w",1,1]]} x'), 'syntax', 1, /expected a JSON value/);
});

test('elle: parsing through tiny chunks gives the same history and the same errors', { skip: NO_DATA }, async () => {
  const inputs = [PAIRING, readFileSync(join(ELLE, 'paper-example.edn'), 'utf8'), readFileSync(join(ELLE, 'si-without-g-single.edn'), 'utf8'),
    '\uFEFF{:type :ok, :value [[:w "é" 1]]}', '{:type :ok, :value [[:w 1 1]]}\n{:type :ok,\n :value [[:w 1 1]]'];
  const outcome = (f: () => History): string => {
    try {
      const h = f();
      return JSON.stringify([txns(h), h.txnLabelTable.toArray(), [...h.txnLoc], notesOf(h)]);
    } catch (e) {
      assert.ok(e instanceof InputError, String(e));
      return e.message;
    }
  };
  for (const text of inputs) {
    const whole = outcome(() => edn(text));
    for (let chunk = 1; chunk <= 23; chunk++) assert.equal(outcome(() => edn(text, chunk)), whole, `chunk ${chunk}`);
    const asJson = `[${text.replace(/[^\n]/g, '').split('').map(() => '{"type":"ok","value":[["w",1,"é"]]}').join(',\n')}]`;
    const wholeJ = outcome(() => json(asJson));
    for (let chunk = 1; chunk <= 11; chunk++) assert.equal(outcome(() => json(asJson, chunk)), wholeJ);
  }
  // And through the file reader (fs reads into a small buffer that must grow).
  const dir = scratchDir('polysi-elle-');
  try {
    writeFileSync(join(dir, 'p.edn'), PAIRING);
    assert.equal(outcome(() => edn(PAIRING)), JSON.stringify(await readEdnFile(join(dir, 'p.edn'), { chunkBytes: 5 }).then((h) => [txns(h), h.txnLabelTable.toArray(), [...h.txnLoc], notesOf(h)])));
    writeFileSync(join(dir, 'p.json'), '[{"type":"ok","value":[]}');
    await assert.rejects(readElleJsonFile(join(dir, 'p.json'), { chunkBytes: 3 }), (e: unknown) => e instanceof InputError && e.code === 'truncated');
    await assert.rejects(readEdnFile(join(dir, 'missing.edn')), (e: unknown) => e instanceof InputError && e.code === 'io');
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('elle writer: EDN and JSON round trips keep the history; lossy cases are refused', { skip: NO_DATA }, async () => {
  for (const h of [edn(PAIRING), edn('[]'), await readEdnFile(join(ELLE, 'paper-example.edn')), await readEdnFile(join(ELLE, 'si-without-g-single.edn'))]) {
    for (const syntax of ['edn', 'json'] as const) {
      const text = writeJepsen(h, syntax);
      const back = syntax === 'edn' ? edn(text) : json(text);
      assert.equal(contentDiff(h, back), null, text);
      assert.deepEqual(back.sessionLabels, h.sessionLabels);
      assert.equal(writeJepsen(back, syntax), text, 'writing is deterministic');
    }
  }
  const refuse = (build: (b: HistoryBuilder) => void, why: RegExp) => {
    const b = new HistoryBuilder();
    build(b);
    const h = b.build();
    for (const syntax of ['edn', 'json'] as const) {
      assert.throws(() => writeJepsen(h, syntax), (e: unknown) => e instanceof Error && /^cannot write /.test(e.message) && why.test(e.message));
    }
  };
  refuse((b) => { const t = b.beginTxn(b.session(1), 't', TXN_ABORTED); b.read(t, 1, null); }, /did not commit but reads the initial value/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 1, 1); b.append(t, 1, 2); }, /used both as a register and as a list/);
  refuse((b) => { b.session(2); const t = b.beginTxn(b.session(1)); b.write(t, 1, 1); }, /session 2 has no transactions/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 1, 1); b.write(t, '1', 2); }, /two different keys are both named "1"/);
  // A value label neither an integer nor a quoted string (no parser of ours makes one).
  const b = new HistoryBuilder();
  const t = b.beginTxn(b.session(1));
  b.write(t, 1, 5);
  const odd: History = { ...b.build(), valueLabelTable: LabelTable.of(['init', '5 apples']) };
  assert.throws(() => writeJepsen(odd, 'edn'), (e: unknown) => e instanceof Error && /^cannot write <memory> as Elle EDN: value 5 apples is neither an integer nor a string/.test(e.message));
});

test('elle: an input without any form is truncated; an explicit [] is an empty history', () => {
  rejects(() => edn(''), 'truncated', 1, /no operations in the input/);
  rejects(() => edn('; only a comment\n\n'), 'truncated', 3, /no operations/);
  rejects(() => json('  \n'), 'truncated', 2, /no operations/);
  assert.equal(edn('[]').txnCount, 0);
  assert.equal(json('[ ]').txnCount, 0);
  // Operations but none a transaction: refused, never an empty (vacuously valid) history.
  rejects(() => edn('{:type :info, :f :kill, :process :nemesis}'), 'unsupported', 1, /none of the 1 operation\(s\) is a transaction \(:f :kill; the first is \{:type :info, :f :kill, :process :nemesis\}\)/);
});
