/**
 * Relations, inserts, deletes and predicate reads in PolySI JSON Lines (issue 22; docs/formats.md,
 * "Predicates"): the general path's reading of them and the writer's rendering.
 *
 * Takes (reading): the header's `"relations": {"R": [key, ...]}` and the ops
 *   ["insert", k, v]   ["delete", k]   ["select", "R", "<predicate>", [[k, v], ...]]
 *   ["count", "R", "<predicate>", n]
 * as JSON.parse made them, with the reader's key / value decoding and its `fail` (an InputError
 * naming the file and line). Gives: the builder calls (HistoryBuilder.relation / insert / delete /
 * select / count). Takes (writing): a History with `predicates`; gives the header field and the
 * ops' JSON.
 * Invariant: every input the builder would refuse is refused here first, as an InputError with
 * the line and what was expected (a predicate syntax error with its column inside the
 * predicate), so the builder never throws on a file. A result row that does not match its own
 * predicate is read as written: it is the database's fault, a validation anomaly, not bad input.
 */

import type { HistoryBuilder, RawKey, RawValue } from '../history/builder.ts';
import { OP_COUNT, OP_DELETE, OP_INSERT, OP_SELECT, type History } from '../history/model.ts';
import { parsePredicate, PredicateSyntaxError, type Predicate } from '../history/predicate.ts';

/** The kinds of ops this module reads (the other kinds are the reader's own). */
export const PREDICATE_OP_KINDS: ReadonlySet<string> = new Set(['insert', 'delete', 'select', 'count']);

/** What the reader lends this module for one line. */
export interface JsonlLineContext {
  readonly b: HistoryBuilder;
  /** Throws the InputError of this line ('syntax' unless said otherwise). */
  fail(detail: string, code?: 'syntax' | 'inconsistent'): never;
  /** A short rendering of an offending value. */
  shown(v: unknown): string;
  keyOf(k: unknown, where: string): RawKey;
  valueOf(v: unknown, where: string): RawValue;
}

/** Reads the header's "relations": an object of relation name -> array of its keys. */
export function readRelations(ctx: JsonlLineContext, rels: unknown): void {
  const { b, fail, shown } = ctx;
  if (typeof rels !== 'object' || rels === null || Array.isArray(rels)) {
    fail(`expected "relations" to be an object {"R": [key, ...], ...} of each relation's keys, found ${shown(rels)}`);
  }
  for (const [name, keys] of Object.entries(rels as Record<string, unknown>)) {
    if (!Array.isArray(keys)) fail(`expected relation ${shown(name)} to be an array of its keys, found ${shown(keys)}`);
    const r = b.relation(name);
    (keys as unknown[]).forEach((k, i) => {
      const key = ctx.keyOf(k, `key ${i + 1} of relation ${shown(name)}`);
      const id = b.key(key);
      const had = b.relationOfKey(id);
      if (had === r) fail(`key ${shown(key)} appears twice in relation ${shown(name)}`, 'inconsistent');
      if (had >= 0) fail(`key ${shown(key)} of relation ${shown(name)} is already a key of another relation; a key belongs to at most one`, 'inconsistent');
      b.relation(name, [key]);
    });
  }
}

/** Reads one op whose kind is in PREDICATE_OP_KINDS into txn t. */
export function readPredicateOp(ctx: JsonlLineContext, t: number, op: readonly unknown[], where: string, line: number): void {
  const { b, fail, shown } = ctx;
  const kind = op[0] as string;
  const shape = SHAPES[kind]!;
  if (op.length !== shape.length) fail(`expected ${where} to be ${shape.text}, found ${shown(op)}`);
  if (kind === 'insert' || kind === 'delete') {
    const key = ctx.keyOf(op[1], `the key of ${where}`);
    if (b.relationOfKey(b.key(key)) < 0) {
      fail(`${where} ${kind === 'insert' ? 'inserts' : 'deletes'} key ${shown(key)}, which is not a key of any relation; declare it in the header's "relations"`, 'inconsistent');
    }
    if (kind === 'delete') { b.delete(t, key, line); return; }
    const value = ctx.valueOf(op[2], `the value of ${where}`);
    if (value === null) fail(`expected the value of ${where} (an insert) to be a value, found null; a row is deleted with ["delete", key]`);
    b.insert(t, key, value, line);
    return;
  }
  // select / count: the relation, the predicate, the result.
  const relName = op[1];
  if (typeof relName !== 'string') fail(`expected the relation of ${where} to be a relation's name (a string), found ${shown(relName)}`);
  const r = b.relationId(relName as string);
  if (r < 0) fail(`${where} reads relation ${shown(relName)}, which the header's "relations" does not declare`, 'inconsistent');
  const text = op[2];
  if (typeof text !== 'string') fail(`expected the predicate of ${where} to be a string, found ${shown(text)}`);
  let parsed: Predicate;
  try {
    parsed = parsePredicate(text as string);
  } catch (err) {
    if (!(err instanceof PredicateSyntaxError)) throw err;
    return fail(`the predicate ${shown(text)} of ${where} does not parse: at column ${err.column} of the predicate, ${err.detail}`);
  }
  if (kind === 'count') {
    const n = op[3];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0x7fffffff) {
      fail(`expected the result of ${where} (a count) to be a non-negative integer, found ${shown(n)}`);
    }
    b.count(t, r, parsed, n as number, line, text as string);
    return;
  }
  const result = op[3];
  if (!Array.isArray(result)) fail(`expected the result of ${where} (a select) to be an array of [key, value] rows, found ${shown(result)}`);
  const rows: [RawKey, RawValue][] = [];
  const seen = new Set<number>();
  (result as unknown[]).forEach((row, i) => {
    const rowWhere = `row ${i + 1} of the result of ${where}`;
    if (!Array.isArray(row) || row.length !== 2) fail(`expected ${rowWhere} to be [key, value], found ${shown(row)}`);
    const [k, v] = row as unknown[];
    const key = ctx.keyOf(k, `the key of ${rowWhere}`);
    const value = ctx.valueOf(v, `the value of ${rowWhere}`);
    const id = b.key(key);
    if (b.relationOfKey(id) !== r) fail(`${rowWhere} has key ${shown(key)}, which is not a key of relation ${shown(relName)}`, 'inconsistent');
    if (seen.has(id)) fail(`${rowWhere} has key ${shown(key)} again; a select returns each row at most once`, 'inconsistent');
    seen.add(id);
    if (value === null) fail(`expected the value of ${rowWhere} to be a value, found null; a select returns present rows only`);
    rows.push([key, value]);
  });
  b.select(t, r, parsed, rows, line, text as string);
}

const SHAPES: Record<string, { length: number; text: string }> = {
  insert: { length: 3, text: '["insert", key, value]' },
  delete: { length: 2, text: '["delete", key]' },
  select: { length: 4, text: '["select", relation, predicate, [[key, value], ...]]' },
  count: { length: 4, text: '["count", relation, predicate, n]' },
};

/** The header's `,"relations":{...}` ('' for a key-value history); keys as `keyJson` renders them. */
export function relationsJson(h: History, keyJson: readonly string[]): string {
  const t = h.predicates;
  if (t === undefined) return '';
  const rels: string[] = [];
  for (let r = 0; r < t.relationLabels.length; r++) {
    const keys: string[] = [];
    for (let i = t.relStart[r]!; i < t.relStart[r + 1]!; i++) keys.push(keyJson[t.relKeys[i]!]!);
    rels.push(`${JSON.stringify(t.relationLabels[r])}:[${keys.join(',')}]`);
  }
  return `,"relations":{${rels.join(',')}}`;
}

/** Op `op` (an insert, delete, select or count) as JSON; null for the other kinds. */
export function predicateOpJson(h: History, op: number, keyJson: readonly string[], valJson: readonly string[]): string | null {
  const kind = h.opKind[op]!;
  const k = h.opKey[op]!, v = h.opValue[op]!;
  switch (kind) {
    case OP_INSERT: return `["insert",${keyJson[k]},${valJson[v]}]`;
    case OP_DELETE: return `["delete",${keyJson[k]}]`;
    case OP_SELECT: case OP_COUNT: {
      const t = h.predicates!;
      const head = `${JSON.stringify(t.relationLabels[k])},${JSON.stringify(t.text[v])}`;
      if (kind === OP_COUNT) return `["count",${head},${t.count[v]}]`;
      const rows: string[] = [];
      for (let i = t.resultStart[v]!; i < t.resultStart[v + 1]!; i++) rows.push(`[${keyJson[t.resultKeys[i]!]},${valJson[t.resultValues[i]!]}]`);
      return `["select",${head},[${rows.join(',')}]]`;
    }
    default: return null;
  }
}
