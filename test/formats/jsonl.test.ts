// PolySI JSON Lines: the spec example, round trips (real files and a History using every model
// feature), and a table of malformed inputs with error code and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import {
  assertHistory,
  describeOp,
  INITIAL_VALUE,
  OP_APPEND,
  OP_READ,
  OP_READ_LIST,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  valueLabel,
  type History,
} from '../../src/history/model.ts';
import { parseJsonl, writeJsonl } from '../../src/formats/jsonl.ts';
import { parsePolysiText } from '../../src/formats/polysi-text.ts';
import { parseDbcopBincode } from '../../src/formats/dbcop-bincode.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

const NO_DATA = needsData();
const DATA = `${DATA_DIR}/`;

function roundTrip(h: History, what: string): void {
  const text = writeJsonl(h);
  const back = parseJsonl(text, 'rt.jsonl');
  assertHistory(back);
  assert.equal(diffHistories(h, back), null, what);
  // Once written in History order, the ids are reproduced exactly, and so is the text.
  const again = writeJsonl(back);
  assert.equal(diffHistories(back, parseJsonl(again, 'rt2.jsonl'), true), null, what);
  assert.equal(again, text, what);
}

test('the spec example parses as documented', () => {
  const text = [
    '{"format":"polysi-history","version":1,"sessions":["s1","s2"]}',
    '{"session":"s1","txn":"t1","status":"committed","ops":[["w","x",1],["r","y",null],["append","l",3],["r","l",[1,2,3]]]}',
    '{"session":"s2","txn":"t2","status":"aborted","ops":[["w","y",{"int":"18446744073709551615"}]]}',
    '{"session":"s2","txn":"t3","status":"unknown","ops":[]}',
    '',
  ].join('\n');
  const h = parseJsonl(text, 'ex.jsonl');
  assert.deepEqual(h.sessionLabels, ['s1', 's2']);
  assert.deepEqual(h.txnLabelTable.toArray(), ['t1', 't2', 't3']);
  assert.deepEqual([...h.txnStatus], [TXN_COMMITTED, TXN_ABORTED, TXN_UNKNOWN]);
  assert.deepEqual([...h.opKind], [OP_WRITE, OP_READ, OP_APPEND, OP_READ_LIST, OP_WRITE]);
  assert.equal(h.opValue[1], INITIAL_VALUE);
  assert.deepEqual([0, 1, 2, 3, 4].map((op) => describeOp(h, op)),
    ['w(x,1)', 'r(y,init)', 'append(l,3)', 'r(l,[1 2 3])', 'w(y,18446744073709551615)']);
  assert.deepEqual([...h.txnLoc], [2, 3, 4]);
  assert.deepEqual([...h.txnOpStart], [0, 4, 5, 5]);
});

test('without a header: sessions in order of first appearance, txn names generated', () => {
  const h = parseJsonl('{"session":2,"ops":[["w",1,"a"]]}\n\n{"session":1,"ops":[]}\n{"session":"2","txn":7,"ops":[["r","1","a"]]}', 'x');
  assert.deepEqual(h.sessionLabels, ['2', '1']);
  assert.deepEqual(h.txnLabelTable.toArray(), ['L1', '7', 'L3']);
  assert.equal(h.opKey[0], h.opKey[1]); // "1" and 1 are one key
  assert.equal(h.opValue[0], h.opValue[1]);
  assert.equal(valueLabel(h, h.opValue[0]!), '"a"');
});

test('jsonl round trip: real text and dbcop files', { skip: NO_DATA }, () => {
  for (const dir of ['small', 'isovista', 'polysi/violations']) {
    for (const f of readdirSync(`${DATA}${dir}`).filter((n) => n.endsWith('.txt'))) {
      roundTrip(parsePolysiText(readFileSync(`${DATA}${dir}/${f}`, 'utf8'), f), f);
    }
  }
  for (const f of ['polysi/violations/dgraph-causality.bincode', 'polysi/valid/fig8/25_400_8_10000_0.95_uniform.bincode',
    'polysi/valid/fig7/20_10_15_10000_0.5_uniform.bincode']) {
    roundTrip(parseDbcopBincode(new Uint8Array(readFileSync(`${DATA}${f}`)), f), f);
  }
});

test('jsonl round trip: a History using every feature of the model', () => {
  const b = new HistoryBuilder('mixed');
  const empty = b.session('idle'); // a session without transactions
  void empty;
  const s1 = b.session('s1'), s2 = b.session(2);
  const t1 = b.beginTxn(s2, 'b', TXN_UNKNOWN);
  b.append(t1, 'list', 1);
  b.append(t1, 'list', 'two');
  b.readList(t1, 'list', [1, 'two', null]);
  b.readList(t1, 'other', []);
  const t2 = b.beginTxn(s1, 'a', TXN_ABORTED);
  b.write(t2, 5, 0); // the number 0 is an ordinary value in jsonl
  b.write(t2, 'k"\n\u2028', 'v"\\');
  b.read(t2, 'x', null);
  b.write(t2, 'big', 123456789012345678901234567890n);
  b.write(t2, '123456789012345678901234567890', -5);
  b.write(t2, 6, null); // a write of the initial value stays one
  const t3 = b.beginTxn(s1, 'c');
  void t3; // an empty committed txn
  const t4 = b.beginTxn(s2, 'd');
  b.read(t4, 'list', 'two');
  b.setNode(t4, b.node('n1')); // nodes (issue 24): t4 and t1 on two nodes, t2 and t3 on none
  b.setNode(t1, b.node('node "2"'));
  const h = b.build();
  assert.deepEqual([...h.txnNode!].map((n) => (n < 0 ? null : h.nodeLabels![n])), [null, null, 'node "2"', 'n1']); // History order: a, c (s1), b, d (s2)
  roundTrip(h, 'mixed');
});

test('"node" on txn lines: read by the fast and the general path alike, written back, absent when no txn has one', () => {
  const text = '{"session":"0","txn":"0.0","ops":[["w",1,1]],"node":"n2"}\n' +
    '{"session":"0","txn":"0.1","ops":[["r",1,1]]}\n' +
    '{ "node" : "n\\u0031", "session":"1","txn":"1.0","ops":[["r",1,1]]}\n' + // escaped: the general path
    '{"session":"1","txn":"1.1","node":"n2","ops":[]}\n';
  const h = parseJsonl(text, 'nodes.jsonl');
  assert.deepEqual(h.nodeLabels, ['n2', 'n1']);
  assert.deepEqual([...h.txnNode!], [0, -1, 1, 0]);
  assert.match(writeJsonl(h), /"txn":"1\.1","status":"committed","ops":\[\],"node":"n2"\}/);
  assert.equal(diffHistories(h, parseJsonl(writeJsonl(h))), null);
  const plain = parseJsonl('{"session":"0","ops":[["w",1,1]]}\n');
  assert.equal(plain.txnNode, undefined);
  assert.equal(plain.nodeLabels, undefined);
  assert.doesNotMatch(writeJsonl(plain), /node/);
  // diffHistories tells nodes apart (a converter that dropped them would be caught).
  assert.match(diffHistories(h, parseJsonl(text.replace('"node":"n2"', '"node":"n3"')))!, /txnNode\[0\]: n2 vs n3/);
  assert.match(diffHistories(h, parseJsonl(text.replaceAll(',"node":"n2"', '')))!, /txnNode\[0\]: n2 vs none/);
});

const BAD: Array<[string, string, number, RegExp?]> = [
  ['{"session":1,"ops":[]}\nnot json\n', 'syntax', 2, /invalid JSON/],
  ['[1,2]\n', 'syntax', 1, /expected a JSON object/],
  ['{"session":1}\n', 'syntax', 1, /"ops" to be an array/],
  ['{"ops":[]}\n', 'syntax', 1, /"session" to be a string or an integer, found undefined/],
  ['{"session":1.5,"ops":[]}\n', 'syntax', 1, /"session"/],
  ['{"session":1,"ops":[],"extra":1}\n', 'syntax', 1, /unknown field "extra"/],
  ['{"session":1,"status":"done","ops":[]}\n', 'syntax', 1, /"status" to be "committed", "aborted" or "unknown"/],
  ['{"session":1,"status":"toString","ops":[]}\n', 'syntax', 1, /"status"/],
  ['{"session":1,"ops":[["x",1,1]]}\n', 'syntax', 1, /kind of op 1/],
  ['{"session":1,"ops":[["w",1]]}\n', 'syntax', 1, /op 1 to be \["r"\|"w"\|"append", key, value\]/],
  ['{"session":1,"ops":[["w",1,1],["w",1,1.5]]}\n', 'syntax', 1, /the value of op 2/],
  ['{"session":1,"ops":[["w",1,9007199254740993]]}\n', 'syntax', 1, /within ±2\^53/],
  ['{"session":1,"ops":[["w",true,1]]}\n', 'syntax', 1, /the key of op 1/],
  ['{"session":1,"ops":[["w",9007199254740993,1]]}\n', 'syntax', 1, /write large integer keys as strings/],
  ['{"session":1,"ops":[["r",1,[1,{"x":1}]]]}\n', 'syntax', 1, /element 2 of the list read by op 1/],
  ['{"session":1,"ops":[["w",1,{"int":"1.5"}]]}\n', 'syntax', 1],
  ['{"session":1,"ops":[["w",1,{"int":"1","x":2}]]}\n', 'syntax', 1],
  ['{"session":1,"txn":{},"ops":[]}\n', 'syntax', 1, /"txn"/],
  ['{"session":1,"ops":[]}\n{"session":1,"ops":[],"node":2}\n', 'syntax', 2, /"node" to be a non-empty string/],
  ['{"session":1,"ops":[],"node":""}\n', 'syntax', 1, /"node" to be a non-empty string/],
  ['{"session":1,"ops":[],"node":null}\n', 'syntax', 1, /"node"/],
  ['{"session":1,"txn":"a","ops":[]}\n\n{"session":2,"txn":"a","ops":[]}\n', 'inconsistent', 3, /already appears at line 1/],
  ['{"format":"polysi-history","version":1,"sessions":["a"]}\n{"session":"b","ops":[]}\n', 'inconsistent', 2, /not among the sessions/],
  ['{"format":"polysi-history","version":1,"sessions":["a","a"]}\n', 'inconsistent', 1, /declared twice/],
  ['{"format":"polysi-history","version":2}\n', 'unsupported', 1, /version 2/],
  ['{"format":"other","version":1}\n', 'syntax', 1, /"format":"polysi-history"/],
  ['{"format":"polysi-history","version":1,"x":0}\n', 'syntax', 1, /unknown header field/],
  ['{"format":"polysi-history","version":1,"sessions":"a"}\n', 'syntax', 1, /"sessions" to be an array/],
  ['{"session":1,"ops":[]}\n{"format":"polysi-history","version":1}\n', 'syntax', 2, /only be the first line/],
];

test('malformed jsonl: error code, line and message', () => {
  for (const [input, code, line, msg] of BAD) {
    assert.throws(() => parseJsonl(input, 'bad.jsonl'), (e: unknown) => {
      assert.ok(e instanceof InputError, `${JSON.stringify(input)}: ${String(e)}`);
      assert.equal(e.code, code, `${JSON.stringify(input)}: ${e.message}`);
      assert.equal(e.unit, 'line');
      assert.equal(e.loc, line, JSON.stringify(input));
      assert.match(e.message, new RegExp(`^bad\\.jsonl line ${line}: `));
      if (msg) assert.match(e.message, msg, JSON.stringify(input));
      return true;
    });
  }
});

test('the writer refuses what it cannot write without loss', () => {
  const make = (f: (b: HistoryBuilder, t: number) => void): History => {
    const b = new HistoryBuilder();
    f(b, b.beginTxn(b.session('a'), 'x'));
    return b.build();
  };
  assert.throws(() => writeJsonl(make((b, t) => b.write(t, 1, 1.5))), /value 1.5 is neither an integer nor a string/);
  assert.throws(() => writeJsonl(make((b, t) => { b.write(t, 1, 1); b.write(t, '1', 2); })), /two different keys/);
  assert.throws(() => writeJsonl(make((b, t) => { b.write(t, 1, 5); b.write(t, 1, 5n); })), /two different values/);
  assert.throws(() => writeJsonl(make((b) => { b.beginTxn(0, 'x'); })), /share a label/);
});
