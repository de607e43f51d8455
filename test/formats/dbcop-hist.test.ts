// dbcop history text: dbcop's own examples, the grammar's corners, errors with line and column,
// and exact round trips with the real dbcop bincode histories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { describeOp, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { dbcopHistFormat, parseDbcopHist, writeDbcopHist } from '../../src/formats/dbcop-hist.ts';
import { parseDbcopBincode } from '../../src/formats/dbcop-bincode.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

const NO_DATA = needsData();
const FIG7 = `${DATA_DIR}/polysi/valid/fig7/`;
const enc = (s: string) => new TextEncoder().encode(s);

function sessions(h: History): string[][] {
  const st = ['', '!', '?'];
  return Array.from({ length: h.sessionCount }, (_, s) => {
    const out: string[] = [];
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      const ops: string[] = [];
      for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) ops.push(describeOp(h, op));
      out.push(`[${ops.join(' ')}]${st[h.txnStatus[t]!]}`);
    }
    return out;
  });
}

function rejects(text: string, code: string, line: number, detail: RegExp): void {
  assert.throws(() => parseDbcopHist(text, 'h.hist'), (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.loc, line, e.message);
    assert.match(e.detail, detail);
    return true;
  });
}

test("dbcop-hist: dbcop's own examples", () => {
  const full = '// session 1\n[x:=1 y:=1] [z==2 z:=3]\n[y:=3]\n---\n// session 2\n[a==1 b:=3] [c:=3]\n[d==3]\n';
  const h = parseDbcopHist(full);
  assert.deepEqual(sessions(h), [
    ['[w(x,1) w(y,1)]', '[r(z,2) w(z,3)]', '[w(y,3)]'],
    ['[r(a,1) w(b,3)]', '[w(c,3)]', '[r(d,3)]'],
  ]);
  assert.deepEqual(h.sessionLabels, ['1', '2']);
  assert.deepEqual(h.txnLabelTable.toArray(), ['s1:0', 's1:1', 's1:2', 's2:0', 's2:1', 's2:2']);
  assert.deepEqual([...h.txnLoc], [2, 2, 3, 6, 6, 7]);
  assert.deepEqual(sessions(parseDbcopHist('[x:=1] [y:=2]!\n')), [['[w(x,1)]', '[w(y,2)]!']]);
  assert.deepEqual(sessions(parseDbcopHist('[a:=1 b==2 c==? d:=5]\n')), [['[w(a,1) r(b,2) r(c,init) w(d,5)]']]);
  assert.deepEqual(sessions(parseDbcopHist('[x:=1]\n---\n---\n[y:=2]\n')), [['[w(x,1)]'], [], ['[w(y,2)]']]);
  assert.deepEqual(sessions(parseDbcopHist('// just a comment\n')), [[]]);
  assert.deepEqual(sessions(parseDbcopHist('')), [[]]);
  assert.equal(writeDbcopHist(h), full.replace(/\/\/.*\n/g, '').replace('[x:=1 y:=1] [z==2 z:=3]', '[x:=1 y:=1]\n[z==2 z:=3]').replace('[a==1 b:=3] [c:=3]', '[a==1 b:=3]\n[c:=3]'));
});

test('dbcop-hist: grammar corners (CRLF, blanks, x==0, unicode names, trailing blanks)', () => {
  const h = parseDbcopHist('\uFEFF  [ x==0  x:=7 ]!  [été_2:=18446744073709551615]\r\n\r\n\t// c\r\n -- \r\n[x==7]\n   ');
  assert.deepEqual(sessions(h), [['[r(x,init) w(x,7)]!', '[w(été_2,18446744073709551615)]'], ['[r(x,7)]']]);
  assert.ok(dbcopHistFormat.sniff(enc('// c\n\n[x:=1]\n'), 'a', false));
  assert.ok(dbcopHistFormat.sniff(enc('---\n'), 'a', false));
  assert.ok(!dbcopHistFormat.sniff(enc('[{:type :ok}]\n'), 'a', false));
  assert.ok(!dbcopHistFormat.sniff(enc('w(1,2,3,4)\n'), 'a', false));
});

test('dbcop-hist: errors name line and column and say what was expected', () => {
  rejects('[x:=1]', 'truncated', 1, /column 7: expected '\[' starting another transaction, or the end of the line, found end of input/);
  rejects('[x:=1]\n[y:=2', 'truncated', 2, /column 6: expected a space or '\]' after an event/);
  rejects('[x:=1]\n[]\n', 'syntax', 2, /column 2: expected a variable name/);
  rejects('[x=1]\n', 'syntax', 1, /column 3: expected ':=' \(write\) or '==' \(read\)/);
  rejects('[x==a]\n', 'syntax', 1, /column 5: expected a version \(unsigned integer\) or '\?'/);
  rejects('[x:=-1]\n', 'syntax', 1, /column 5: expected a version/);
  rejects('[x:=1y]\n', 'syntax', 1, /column 6: expected a space or '\]' after the version/);
  rejects('[x:=18446744073709551616]\n', 'syntax', 1, /a version below 2\^64/);
  rejects('[x:=1] junk\n', 'syntax', 1, /column 8: expected '\[' starting another transaction/);
  rejects('[x:=1]!!\n', 'syntax', 1, /column 8/);
  rejects('--- x\n', 'syntax', 1, /only dashes on a separator line/);
  rejects('x:=1\n', 'syntax', 1, /expected '\[' starting a transaction, '\/\/' starting a comment, or a '---' separator/);
  rejects('// no newline', 'truncated', 1, /the end of the comment line/);
});

test('dbcop-hist: real bincode histories survive bincode -> text -> bincode labels and all', { skip: NO_DATA }, () => {
  const files = readdirSync(FIG7).filter((f) => f.endsWith('.bincode')).sort().slice(0, 6);
  for (const f of files) {
    const hb = parseDbcopBincode(new Uint8Array(readFileSync(FIG7 + f)), f);
    const text = writeDbcopHist(hb);
    assert.ok(dbcopHistFormat.sniff(enc(text.slice(0, 4096)), 'x', false));
    const ht = parseDbcopHist(text, f);
    assert.equal(diffHistories(hb, ht, true), null, f);
    assert.equal(writeDbcopHist(ht), text);
  }
});

test('dbcop-hist: the writer refuses what the text cannot hold', () => {
  const refuse = (build: (b: HistoryBuilder) => void, why: RegExp) => {
    const b = new HistoryBuilder();
    build(b);
    assert.throws(() => writeDbcopHist(b.build()), (e: unknown) => e instanceof Error && /^cannot write /.test(e.message) && why.test(e.message));
  };
  refuse(() => {}, /no sessions/);
  refuse((b) => { b.beginTxn(b.session(1)); }, /has no operations/);
  refuse((b) => { const t = b.beginTxn(b.session(1), 't', TXN_UNKNOWN); b.write(t, 1, 1); }, /unknown outcome/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.append(t, 1, 1); }, /list-append/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 'a b', 1); }, /not a dbcop variable name/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 'a', 'v'); }, /value "v" is not an unsigned/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 'a', 0); }, /written value 0/);
  refuse((b) => { const t = b.beginTxn(b.session(1)); b.write(t, 'a', 5); b.write(t, 'b', 5n ** 30n); b.write(t, 'c', 5); b.write(t, 1, 1); b.write(t, '1', 2); }, /two different keys are both labelled 1/);
});
