/**
 * A history in which nothing is checked is VALID (exit 0), but never silently: a warning on
 * stderr for the text output, and a note in the result data (`notes`, beside `counts`) for
 * `--json` and library callers. An empty pipe once hid a wrong verdict this way.
 * (An input with operations none of which is a transaction, e.g. a Jepsen file of nemesis or
 * single-register ops, is not an empty history: it is refused, exit 2; see
 * test/formats/elle-non-txn-f.test.ts.)
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkHistory } from '../../src/check/index.ts';
import { parseJsonl } from '../../src/formats/jsonl.ts';
import { runCli as run } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('polysi-empty-');

function file(name: string, text: string): string {
  const path = join(DIR, name);
  writeFileSync(path, text);
  return path;
}

const CASES = [
  { name: 'an empty JSONL file', path: () => file('empty.jsonl', ''), format: 'jsonl', txns: 0, warning: /warning: the history has no transactions, so nothing was checked/ },
  { name: 'a JSONL file with only a header', path: () => file('header.jsonl', '{"format":"polysi-history","version":1,"sessions":["a"]}\n'), format: 'auto', txns: 0, warning: /warning: the history has no transactions/ },
  { name: 'an empty PolySI text file', path: () => file('empty.txt', ''), format: 'text', txns: 0, warning: /warning: the history has no transactions/ },
  {
    name: 'a history whose transactions all aborted',
    path: () => file('aborted.jsonl', '{"session":"a","txn":"t1","status":"aborted","ops":[["w","x",1]]}\n{"session":"b","txn":"t2","status":"unknown","ops":[["r","x",1]]}\n'),
    format: 'auto', txns: 2, warning: /warning: none of the 2 transactions takes part in the check/,
  },
];

for (const c of CASES) {
  test(`${c.name}: VALID with exit 0, a warning on stderr, and a note in --json`, async () => {
    const path = c.path();
    const text = await run('check', path, '--format', c.format);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /VALID/);
    assert.match(text.err, c.warning);
    assert.match(text.out, /note: .*nothing was checked/);

    const json = await run('check', path, '--format', c.format, '--json');
    assert.equal(json.code, 0);
    assert.equal(json.err, '', 'the JSON output keeps stderr quiet: the note is in the data');
    const j = JSON.parse(json.out);
    assert.equal(j.verdict, 'valid');
    assert.equal(j.counts.transactions, c.txns);
    assert.equal(j.counts.checkedTransactions, 0);
    assert.ok(j.notes.some((n: string) => /nothing was checked/.test(n)), JSON.stringify(j.notes));
  });
}

test('the HTML report of an empty history carries the note too', async () => {
  const html = join(DIR, 'empty.html');
  const r = await run('check', file('empty2.jsonl', ''), '--format', 'jsonl', '--html', html);
  assert.equal(r.code, 0);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<th>note<\/th><td>the history has no transactions, so nothing was checked/);
});

test('a history with something to check gets no such warning or note', async () => {
  const path = file('one.jsonl', '{"session":"a","txn":"t1","ops":[["w","x",1]]}\n');
  const r = await run('check', path);
  assert.equal(r.code, 0);
  assert.doesNotMatch(r.err, /warning/);
  const j = JSON.parse((await run('check', path, '--json')).out);
  assert.ok(!(j.notes ?? []).some((n: string) => /nothing was checked/.test(n)));
});

test('library callers get the note at both levels, pruning on and off', () => {
  const h = parseJsonl('', 'empty.jsonl');
  for (const level of ['si', 'ser'] as const) {
    for (const pruning of [true, false]) {
      const r = checkHistory(h, { level, pruning });
      assert.equal(r.verdict, 'valid');
      assert.deepEqual(r.notes, ['the history has no transactions, so nothing was checked (an empty file or pipe?)']);
    }
  }
});
