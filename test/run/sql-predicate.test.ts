/**
 * Predicates as SQL WHERE clauses (src/run/sql-predicate.ts): the text holds only columns,
 * operators and placeholders, every constant is a parameter, and where the predicate language
 * differs from SQL (a string against an integer column, a comparison of constants) the clause
 * is decided as the language decides. (test/db/predicates.test.ts runs the clauses on the
 * databases against `matches`.)
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePredicate } from '../../src/history/predicate.ts';
import { predicateSql } from '../../src/run/sql-predicate.ts';

const CASES: [string, string, number[]][] = [
  ['value % 3 = 0', '(MOD(v, $1) = $2)', [3, 0]],
  ['key between 10 and 19', '(k BETWEEN $1 AND $2)', [10, 19]],
  ['not (value = 30 or key <> 2)', '(NOT ((v = $1) OR (k <> $2)))', [30, 2]],
  ['value % 4 != 0 and key % 2 = 0', '((MOD(v, $1) <> $2) AND (MOD(k, $3) = $4))', [4, 0, 2, 0]],
  ['value = "x"', '(1 = 0)', []],
  ['value != "x" or value > 5', '((1 = 0) OR (v > $1))', [5]],
  ['7 % 4 = 3', '(1 = 1)', []],
  ['true and false', '((1 = 1) AND (1 = 0))', []],
  ['value > 10 % 4', '(v > $1)', [2]],
];

for (const [text, sql, params] of CASES) {
  test(`predicateSql: ${text}`, () => {
    const w = predicateSql(parsePredicate(text), (i) => `$${i + 1}`);
    assert.equal(w.sql, sql);
    assert.deepEqual(w.params, params);
  });
}
