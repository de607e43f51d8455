// dbcop serde JSON: both layouts dbcop has used, the value-0 / success rules, header checks,
// errors with line numbers, and exact round trips with the real dbcop bincode histories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { describeOp, TXN_UNKNOWN, type History, txnLabel } from '../../src/history/model.ts';
import { dbcopJsonFormat, parseDbcopJsonBytes, writeDbcopJson } from '../../src/formats/dbcop-json.ts';
import { parseDbcopBincode, writeDbcopBincode } from '../../src/formats/dbcop-bincode.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { notesOf } from '../../src/formats/io-notes.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

const NO_DATA = needsData();
const FIG7 = `${DATA_DIR}/polysi/valid/fig7/`;
const enc = (s: string) => new TextEncoder().encode(s);
const parse = (s: string) => parseDbcopJsonBytes(enc(s), 'h.json');

function txns(h: History): string[] {
  const st = ['ok', 'aborted', 'unknown'];
  return Array.from({ length: h.txnCount }, (_, t) => {
    const ops: string[] = [];
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) ops.push(describeOp(h, op));
    return `${txnLabel(h, t)}|${st[h.txnStatus[t]!]}|${ops.join(' ')}`;
  });
}

function rejects(text: string, code: string, line: number, detail: RegExp): void {
  assert.throws(() => parse(text), (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.loc, line, e.message);
    assert.match(e.detail, detail);
    return true;
  });
}

test('dbcop-json: real bincode histories survive bincode -> JSON -> bincode exactly', { skip: NO_DATA }, () => {
  const files = readdirSync(FIG7).filter((f) => f.endsWith('.bincode')).sort().slice(0, 6);
  assert.ok(files.length > 0);
  for (const f of files) {
    const bytes = new Uint8Array(readFileSync(FIG7 + f));
    const hb = parseDbcopBincode(bytes, f);
    const text = writeDbcopJson(hb);
    assert.ok(dbcopJsonFormat.sniff(enc(text.slice(0, 65536)), 'x.json', false));
    const hj = parseDbcopJsonBytes(enc(text), f);
    assert.equal(diffHistories(hb, hj, true), null, f);
    assert.equal(writeDbcopJson(hj), text, 'the header travels with the history');
    // Back to bincode: the same history (the bincode writer computes its own header).
    assert.equal(diffHistories(parseDbcopBincode(writeDbcopBincode(hj), f), hb, true), null, f);
  }
});

const CLASSIC = `{"params":{"id":7,"n_node":2,"n_variable":10,"n_transaction":2,"n_event":3},
"info":"PostgreSQL","start":"2022-07-22T21:44:17.344836587+08:00","end":"2022-07-22T21:44:18+08:00",
"data":[
 [{"events":[{"write":true,"variable":1,"value":5,"success":true},{"write":false,"variable":2,"value":0,"success":true}],"success":true},
  {"events":[{"write":true,"variable":3,"value":6,"success":false,"start_time":1,"end_time":2}],"success":false}],
 [{"events":[{"write":false,"variable":1,"value":5,"success":true},{"write":true,"variable":2,"value":0,"success":true}],"success":true}]
]}`;

test('dbcop-json: classic layout: value 0 is the initial value, success=false events dropped and noted', () => {
  const h = parse(CLASSIC);
  assert.deepEqual(h.sessionLabels, ['1', '2']);
  assert.deepEqual(txns(h), ['s1:0|ok|w(1,5) r(2,init)', 's1:1|aborted|', 's2:0|ok|r(1,5) w(2,init)']);
  assert.deepEqual([...h.txnLoc], [4, 5, 6]);
  assert.match(notesOf(h).join(), /dropped 1 event\(s\) with success=false/);
  const again = writeDbcopJson(h);
  assert.match(again, /^\{"params":\{"id":7,"n_node":2,"n_variable":10,"n_transaction":2,"n_event":3\},"info":"PostgreSQL","start":"2022-07-22T21:44:17.344836587\+08:00"/);
  assert.equal(diffHistories(parse(again), h, true), null);
});

test('dbcop-json: variables at or above params.n_variable are read with a note (issue 23 item 8)', () => {
  const h = parse(CLASSIC.replace('"n_variable":10', '"n_variable":2'));
  assert.deepEqual(txns(h), ['s1:0|ok|w(1,5) r(2,init)', 's1:1|aborted|', 's2:0|ok|r(1,5) w(2,init)']);
  assert.match(notesOf(h).join('\n'), /variable\(s\) are at or above params\.n_variable = 2 \(first at line 4\): read anyway/);
  assert.doesNotMatch(notesOf(parse(CLASSIC)).join('\n'), /n_variable/);
});

test('dbcop-json: newer dbcop layout (bare sessions, committed, tagged and compact events)', () => {
  const h = parse(`[[{"events":[{"Write":{"variable":"x","version":1}},{"Read":{"variable":"y","version":null}}],"committed":true},
    {"events":[["r","x",1],["w","y",2],["r","z",0]],"committed":false}],
   []]`);
  assert.deepEqual(h.sessionLabels, ['1', '2']);
  assert.deepEqual(txns(h), ['s1:0|ok|w(x,1) r(y,init)', 's1:1|aborted|r(x,1) w(y,2) r(z,init)']);
  assert.deepEqual([...h.sessionTxnStart], [0, 2, 2]);
});

test('dbcop-json: malformed or inconsistent input is an error with its line', () => {
  rejects('{"data":[[{"events":[],"success":true,"extra":1}]]}', 'syntax', 1, /unexpected field "extra" in txn s1:0/);
  rejects('{"data":[[{"events":[]}]]}', 'syntax', 1, /txn s1:0 has no "success"/);
  rejects('{"data":[[{"events":[{"write":1,"variable":1,"value":1,"success":true}],"success":true}]]}', 'syntax', 1, /"write" to be true or false, found 1/);
  rejects('{"data":[[{"events":[\n{"write":true,"variable":-1,"value":1,"success":true}],"success":true}]]}', 'syntax', 2, /the variable to be an unsigned 64-bit integer, found -1/);
  rejects('{"data":[[{"events":[{"write":true,"variable":1,"success":true}],"success":true}]]}', 'syntax', 1, /has no "value" field/);
  rejects('{"data":[[{"events":[{"write":true,"variable":1,"value":1,"success":true,"when":3}],"success":true}]]}', 'syntax', 1, /unknown field "when" in an event/);
  rejects('{"info":"x"}', 'syntax', 1, /has no "data" field/);
  rejects('{"data":[], "format":1}', 'syntax', 1, /unknown field "format"/);
  rejects('{"data":{}}', 'syntax', 1, /expected the list of sessions/);
  rejects(CLASSIC.replace('"n_node":2', '"n_node":3'), 'inconsistent', 1, /holds 2 session\(s\) but params.n_node says 3/);
  rejects(CLASSIC.replace('"n_event":3', '"n_event":1'), 'inconsistent', 4, /holds 2 events but params.n_event says at most 1/);
  rejects(CLASSIC.replace('"n_transaction":2', '"n_transaction":1'), 'inconsistent', 4, /session 1 holds 2 txns but params.n_transaction says at most 1/);
  rejects(CLASSIC.slice(0, -2), 'truncated', 3, /the array opened at line 3 is not closed/);
  rejects(CLASSIC + '\n{}', 'syntax', 8, /expected one JSON document/);
  rejects('', 'truncated', 1, /empty file/);
  rejects('[[{"events":[["x",1,1]],"committed":true}]]', 'syntax', 1, /expected an event \["r" \| "w", variable, version\]/);
});

test('dbcop-json: the writer refuses what dbcop cannot hold', () => {
  const refuse = (build: (b: HistoryBuilder) => void, why: RegExp) => {
    const b = new HistoryBuilder();
    build(b);
    assert.throws(() => writeDbcopJson(b.build()), (e: unknown) => e instanceof Error && /^cannot write /.test(e.message) && why.test(e.message));
  };
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.append(t, 1, 1); }, /list-append/);
  refuse((b) => { const t = b.beginTxn(b.session(1), 't', TXN_UNKNOWN); b.write(t, 1, 1); }, /unknown outcome/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 'x', 1); }, /key x is not an unsigned 64-bit integer/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 1, 0); }, /written value 0 would read back as the initial value/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 1, -3); }, /value -3 is not an unsigned/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 1, 2); b.write(t, '1', 3); }, /two different keys are both labelled 1/);
});
