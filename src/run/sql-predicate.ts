/**
 * A predicate (history/predicate.ts) as an SQL WHERE clause over a relation's table, whose rows
 * are `(k, v)`: `key` is `k`, `value` is `v`, `x % m` is `MOD(x, m)`.
 *
 * Takes: a parsed Predicate and the dialect's placeholder for the i-th parameter (0-based).
 * Gives: the clause's text and its parameters: every constant of the predicate is a parameter,
 * never spliced into the text (the text holds only column names, operators and placeholders).
 * Invariant: on a table of present rows with integer `k` and `v` (an absent row has no row), the
 * clause selects exactly the rows `matches(p, k, v)` accepts. Where the predicate language and
 * SQL part ways the clause follows the language: a comparison with a string constant is false
 * (its `!=` too), and so is `%` of a string; a comparison between constants is decided here. SQL's
 * MOD and the language's `%` both take the sign of the dividend.
 */

import { matches, type Predicate, type Term } from '../history/predicate.ts';

export interface SqlClause {
  sql: string;
  params: number[];
}

const SQL_CMP: Record<string, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** The WHERE clause of p (without the WHERE). */
export function predicateSql(p: Predicate, placeholder: (i: number) => string): SqlClause {
  const params: number[] = [];
  const param = (n: number): string => {
    params.push(n);
    return placeholder(params.length - 1);
  };
  /** A term's SQL (a string constant never gets here). */
  const term = (t: Term): string => {
    if (t.kind === 'const') return param(t.mod === undefined ? (t.value as number) : (t.value as number) % t.mod);
    const col = t.kind === 'key' ? 'k' : 'v';
    return t.mod === undefined ? col : `MOD(${col}, ${param(t.mod)})`;
  };
  const constant = (ts: readonly Term[]) => ts.every((t) => t.kind === 'const');
  const walk = (q: Predicate): string => {
    switch (q.op) {
      case 'true': return '(1 = 1)';
      case 'false': return '(1 = 0)';
      case 'not': return `(NOT ${walk(q.arg)})`;
      case 'and': case 'or': return `(${q.args.map(walk).join(q.op === 'and' ? ' AND ' : ' OR ')})`;
      case 'cmp': case 'between': {
        const terms = q.op === 'cmp' ? [q.left, q.right] : [q.arg, q.low, q.high];
        // No column: the language decides (on any present row: the terms do not read it).
        if (constant(terms)) return matches(q, 0, 0) ? '(1 = 1)' : '(1 = 0)';
        // A string against an integer column is false (checked before any parameter is taken).
        if (terms.some((t) => t.kind === 'const' && typeof t.value !== 'number')) return '(1 = 0)';
        const sql = terms.map(term);
        return q.op === 'cmp' ? `(${sql[0]} ${SQL_CMP[q.cmp]} ${sql[1]})` : `(${sql[0]} BETWEEN ${sql[1]} AND ${sql[2]})`;
      }
    }
  };
  return { sql: walk(p), params };
}
