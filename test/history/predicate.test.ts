// The predicate language (src/history/predicate.ts): parsing, errors with columns, evaluation
// on present and absent rows, and the canonical text round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePredicate, matches, predicateText, PredicateSyntaxError } from '../../src/history/predicate.ts';

test('evaluates comparisons, modulo, between and boolean connectives', () => {
  const cases: [string, string | number, string | number, boolean][] = [
    ['value % 3 = 0', 1, 30, true],
    ['value % 3 = 0', 1, 31, false],
    ['value % 3 = 0', 1, -30, true],
    ['key >= 10 and key < 20', 10, 0, true],
    ['key >= 10 and key < 20', 20, 0, false],
    ['value between 1 and 5', 'k', 5, true],
    ['value between 1 and 5', 'k', 6, false],
    ['not (value = "x" or value between 1 and 5)', 'k', 'x', false],
    ['not (value = "x" or value between 1 and 5)', 'k', 9, true],
    ['value <> 3', 'k', 4, true],
    ['value != 3', 'k', 'three', false], // mixed types: unknown, so false
    ['value % 2 = 0', 'k', 'even', false],
    ['key = "a" or false', 'a', 1, true],
    ['true', 'a', 1, true],
  ];
  for (const [text, k, v, want] of cases) assert.equal(matches(parsePredicate(text), k, v), want, `${text} on (${k}, ${v})`);
});

test('an absent row matches nothing, not even "true" or a negation', () => {
  for (const text of ['true', 'not false', 'not (value = 1)']) assert.equal(matches(parsePredicate(text), 1, null), false, text);
});

test('syntax errors name the column and what was expected', () => {
  const bad: [string, number, RegExp][] = [
    ['value %% 3 = 0', 8, /expected an integer after "%"/],
    ['value = ', 9, /expected key, value, an integer/],
    ['value = 1 xor key = 2', 11, /expected "and", "or" or the end/],
    ['(value = 1', 11, /expected "\)"/],
    ['value % 0 = 0', 10, /must not be 0/],
    ['value ~ 1', 7, /expected a comparison/],
    ['value = "abc', 9, /unterminated string/],
    ['value between 1 or 2', 17, /expected "and" after "between/],
  ];
  for (const [text, col, re] of bad) {
    assert.throws(() => parsePredicate(text), (e: unknown) => e instanceof PredicateSyntaxError && e.column === col && re.test(e.message), text);
  }
});

test('the canonical text parses back to an equal predicate', () => {
  for (const text of ['value % 3 = 0', 'key >= 10 and (key < 20 or not value = "x\\"y")', 'value between -1 and 5 or false']) {
    const p = parsePredicate(text);
    assert.deepEqual(parsePredicate(predicateText(p)), p, text);
  }
});
