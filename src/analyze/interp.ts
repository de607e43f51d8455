/**
 * An interpreter of transaction programs over an abstract execution (ANODE §3.3): the program's
 * own semantics, sharing no code with the encoding, used to confirm every predicted anomaly and
 * as the brute-force oracle of the differential tests.
 *
 * Takes: a program, instances (transaction + arguments), an arbitration order and a visibility
 * relation, and an initial database. Gives: what each instance read and wrote, and the
 * dependency graph (WR, WW, RW between instances) of that execution. Each instance runs on the
 * view made of the initial database and the writes of the instances visible to it, applied in
 * arbitration order (last writer wins), then its own writes.
 * Invariant: `vis` ⊆ `ar`; the graph's edges are computed from item reads and writes only.
 *
 * Semantics fixed here (docs/analyze-language.md): NULL is 0 in arithmetic and comparisons;
 * division by 0 gives 0; static tables (never inserted into or deleted from) hold every key, with
 * `initial.value(table, field)` in each field until written; record existence is an item of its
 * own (`Table[key].exists`), absent until inserted (static tables: always live). SELECT, UPDATE
 * and DELETE see only live records and read existence on every record they look at (phantoms
 * included), except that a DELETE does not read the existence of the records it removes; INSERT
 * makes its record live with the given values without reading it (ANODE §3: a transaction does
 * not read what it inserts or deletes), so an INSERT of a live key replaces the record; a row-set
 * variable used as a number is its first row's (in key order) single selected field.
 */

import { ALIVE, analyzeProgram, exactKeyOf, fieldsOfExpr, fieldsOfPred, type ProgramInfo } from './lang/access.ts';
import type { Expr, Pred, Program, Stmt, Table, Transaction } from './lang/ast.ts';

export interface Instance { txn: string; args: number[] }

export interface AbstractExecution {
  instances: Instance[];
  /** Instance indices in arbitration order. */
  ar: number[];
  /** vis[i][j]: instance i is visible to instance j. */
  vis: boolean[][];
}

export interface InitialDb {
  /** Value of every non-key field of a static-table record nobody wrote. */
  value(table: string, field: string): number;
  /** Rows present at the start in tables that are inserted into or deleted from. */
  rows: { table: string; values: Record<string, number> }[];
}

export type DepKind = 'WR' | 'WW' | 'RW';
export interface DepEdge {
  from: number;
  to: number;
  kind: DepKind;
  /** `Table[key].field` for people. */
  item: string;
  /** WR: the value read (written by `from`); RW: the value `from` read; WW: the value `from` wrote. */
  fromValue: number;
  /** WR: = fromValue; RW and WW: the value `to` wrote. */
  toValue: number;
}

export interface Run {
  edges: DepEdge[];
  /** Per instance: items read (table/key/field → writer, -1 = initial) and written. */
  reads: Map<string, number>[];
  writes: Set<string>[];
  /** Per instance: the value of each item it read first, and the last value it wrote. */
  readValues: Map<string, number>[];
  writeValues: Map<string, number>[];
}

type Row = Map<string, number>; // field → value, ALIVE → 0/1
interface RowSet { rows: Row[]; fields: string[] }
type Value = number | null | RowSet | Row;
const INIT = -1;

export function itemName(table: string, key: string, field: string): string {
  return `${table}[${key}].${field === ALIVE ? 'exists' : field}`;
}

/** Executes `exec` on `db` and returns the dependency graph; throws on an unknown transaction or arity. */
export function runExecution(program: Program | ProgramInfo, exec: AbstractExecution, db: InitialDb): Run {
  const info = 'access' in program ? program : analyzeProgram(program);
  const txns = new Map(info.program.txns.map((t) => [t.name, t]));
  const n = exec.instances.length;
  // versions[item] = writers in arbitration order with the row they left behind.
  const written = new Map<string, { writer: number; value: number }[]>();
  const rowAfter = new Map<string, Map<number, Row>>(); // table|key → writer → row
  const reads: Map<string, number>[] = Array.from({ length: n }, () => new Map());
  const writes: Set<string>[] = Array.from({ length: n }, () => new Set());
  const readValues: Map<string, number>[] = Array.from({ length: n }, () => new Map());
  const writeValues: Map<string, number>[] = Array.from({ length: n }, () => new Map());
  const preds: { reader: number; table: Table; test: (row: Row) => boolean; fields: string[]; seen: Map<string, number> }[] = [];
  const initRows = new Map<string, Row>();
  for (const r of db.rows) {
    const t = info.tables.get(r.table)!;
    const row: Row = new Map(t.fields.map((f) => [f, r.values[f] ?? 0]));
    row.set(ALIVE, 1);
    initRows.set(`${r.table}|${keyOf(t, row)}`, row);
  }
  const pos = new Array<number>(n);
  exec.ar.forEach((i, p) => { pos[i] = p; });

  for (const me of exec.ar) {
    const inst = exec.instances[me]!;
    const txn = txns.get(inst.txn);
    if (txn === undefined || txn.params.length !== inst.args.length) throw new Error(`bad instance ${inst.txn}(${inst.args.join(', ')})`);
    // The view: item → { value, writer } for items written by visible instances (later in ar wins).
    const view = new Map<string, { value: number; writer: number }>();
    for (const w of exec.ar) {
      if (w === me) break;
      if (!exec.vis[w]![me]) continue;
      for (const item of writes[w]!) {
        const vs = written.get(item)!;
        const v = vs.find((x) => x.writer === w)!;
        view.set(item, { value: v.value, writer: w });
      }
    }
    const own = new Map<string, number>();
    const keysOf = (table: Table): string[] => {
      const ks = new Set<string>();
      for (const k of initRows.keys()) if (k.startsWith(`${table.name}|`)) ks.add(k.slice(table.name.length + 1));
      for (const item of [...view.keys(), ...own.keys()]) if (item.startsWith(`${table.name}|`)) ks.add(item.slice(table.name.length + 1, item.lastIndexOf('|')));
      return [...ks].sort(compareKeys);
    };
    const get = (table: Table, key: string, field: string, record: boolean): number => {
      const item = `${table.name}|${key}|${field}`;
      if (own.has(item)) return own.get(item)!;
      const v = view.get(item);
      const value = v !== undefined ? v.value
        : table.key.includes(field) ? Number(key.split(',')[table.key.indexOf(field)])
        : info.staticTables.has(table.name) ? (field === ALIVE ? 1 : db.value(table.name, field))
        : initRows.get(`${table.name}|${key}`)?.get(field) ?? 0;
      if (record && !table.key.includes(field) && !reads[me]!.has(item)) {
        reads[me]!.set(item, v === undefined ? INIT : v.writer);
        readValues[me]!.set(item, value);
      }
      return value;
    };
    const rowOf = (table: Table, key: string, fields: Iterable<string>, record: boolean): Row => {
      const row: Row = new Map();
      for (const f of table.key) row.set(f, Number(key.split(',')[table.key.indexOf(f)]));
      for (const f of fields) if (!table.key.includes(f)) row.set(f, get(table, key, f, record));
      return row;
    };
    const put = (table: Table, key: string, field: string, value: number): void => {
      own.set(`${table.name}|${key}|${field}`, value);
      writes[me]!.add(`${table.name}|${key}|${field}`);
    };
    const env = new Map<string, Value>();
    txn.params.forEach((p, i) => env.set(p, inst.args[i]!));

    // Records a statement looks at: the pinned key, or every known key (the rest is found after the run).
    const candidates = (table: Table, where: Pred): string[] => {
      const exact = exactKeyOf(where, table);
      if (exact !== null) return [table.key.map((k) => String(num(evalExpr(exact.get(k)!, env, null)))).join(',')];
      return keysOf(table);
    };
    // `deleting`: a DELETE does not read the existence of the records it removes (writing "absent"
    // does not depend on it; ANODE §3: a transaction does not read what it deletes), only of
    // records it finds absent.
    const matching = (table: Table, where: Pred, extra: string[], deleting = false): { key: string; row: Row }[] => {
      const whereFields = [...fieldsOfPred(where, new Set())];
      const out: { key: string; row: Row }[] = [];
      const exact = exactKeyOf(where, table) !== null;
      const seen = new Map<string, number>();
      for (const key of candidates(table, where)) {
        const alive = get(table, key, ALIVE, exact && !deleting);
        // A looked-up record's WHERE fields are read; its other fields only if it matches.
        if (exact) for (const f of whereFields) get(table, key, f, true);
        const row = rowOf(table, key, [...whereFields, ...extra], false);
        if (alive === 1 && evalPred(where, env, row)) {
          out.push({ key, row });
          for (const f of [...(deleting ? [] : [ALIVE]), ...whereFields, ...extra]) get(table, key, f, true);
        } else if (deleting && exact) get(table, key, ALIVE, true);
      }
      if (!exact) {
        // Predicate read: resolved after the run against every version of every key.
        const snapshot = new Map(env);
        const viewNow = new Map(view);
        preds.push({
          reader: me, table, fields: [ALIVE, ...whereFields],
          test: (row) => evalPred(where, snapshot, row), seen,
        });
        for (const item of viewNow.keys()) if (item.startsWith(`${table.name}|`)) seen.set(item, viewNow.get(item)!.writer);
      }
      return out;
    };

    const exec1 = (block: Stmt[]): void => {
      for (const s of block) {
        switch (s.k) {
          case 'skip': break;
          case 'let': env.set(s.target, num(evalExpr(s.e, env, null))); break;
          case 'if': exec1(evalPred(s.cond, env, null) ? s.then : s.else); break;
          case 'foreach': {
            const rows = (env.get(s.over) as RowSet).rows;
            for (const r of rows) { env.set(s.target, r); exec1(s.body); }
            break;
          }
          case 'select': {
            const table = info.tables.get(s.table)!;
            const rows = matching(table, s.where, s.fields).map((m) => m.row);
            if (s.agg === null) env.set(s.target, { rows, fields: s.fields });
            else if (s.agg === 'COUNT') env.set(s.target, rows.length);
            else {
              const vals = rows.map((r) => r.get(s.fields[0]!)!);
              env.set(s.target, vals.length === 0 ? null
                : s.agg === 'MIN' ? Math.min(...vals) : s.agg === 'MAX' ? Math.max(...vals) : vals.reduce((a, b) => a + b, 0));
            }
            break;
          }
          case 'update': {
            const table = info.tables.get(s.table)!;
            const used = new Set<string>();
            for (const set of s.sets) fieldsOfExpr(set.e, used);
            for (const { key, row } of matching(table, s.where, [...used])) {
              const vals = s.sets.map((set) => num(evalExpr(set.e, env, row)));
              s.sets.forEach((set, i) => put(table, key, set.field, vals[i]!));
            }
            break;
          }
          case 'insert': {
            const table = info.tables.get(s.table)!;
            const row: Row = new Map();
            for (const v of s.values) row.set(v.field, num(evalExpr(v.e, env, null)));
            const key = keyOf(table, row);
            // ANODE §3: an INSERT makes the record live (replacing a live one) without reading it.
            for (const f of table.fields) if (!table.key.includes(f)) put(table, key, f, row.get(f) ?? 0);
            put(table, key, ALIVE, 1);
            break;
          }
          case 'delete': {
            const table = info.tables.get(s.table)!;
            for (const { key } of matching(table, s.where, [], true)) put(table, key, ALIVE, 0);
            break;
          }
        }
      }
    };
    exec1((txn as Transaction).body);
    for (const [item, value] of own) {
      writeValues[me]!.set(item, value);
      if (!written.has(item)) written.set(item, []);
      written.get(item)!.push({ writer: me, value });
      const [t, k] = item.split('|');
      const rk = `${t}|${k}`;
      if (!rowAfter.has(rk)) rowAfter.set(rk, new Map());
      const table = info.tables.get(t!)!;
      rowAfter.get(rk)!.set(me, rowOf(table, k!, table.fields, false));
      const after = rowAfter.get(rk)!.get(me)!;
      after.set(ALIVE, get(table, k!, ALIVE, false));
    }
  }

  // Predicate reads: a key is read if some version of it (initial or any writer's) matches.
  for (const p of preds) {
    const keys = new Set<string>();
    for (const k of initRows.keys()) if (k.startsWith(`${p.table.name}|`)) keys.add(k.slice(p.table.name.length + 1));
    for (const k of rowAfter.keys()) if (k.startsWith(`${p.table.name}|`)) keys.add(k.slice(p.table.name.length + 1));
    for (const key of keys) {
      const versions: Row[] = [];
      const init = initRows.get(`${p.table.name}|${key}`);
      if (init !== undefined) versions.push(init);
      for (const r of rowAfter.get(`${p.table.name}|${key}`)?.values() ?? []) versions.push(r);
      if (!versions.some((r) => r.get(ALIVE) === 1 && p.test(r))) continue;
      for (const f of p.fields) {
        const item = `${p.table.name}|${key}|${f}`;
        if (p.table.key.includes(f) || reads[p.reader]!.has(item) || writes[p.reader]!.has(item)) continue;
        const from = p.seen.get(item) ?? INIT;
        reads[p.reader]!.set(item, from);
        const init = initRows.get(`${p.table.name}|${key}`);
        readValues[p.reader]!.set(item, from === INIT ? (f === ALIVE ? (init === undefined ? 0 : 1) : init?.get(f) ?? 0) : writeValues[from]!.get(item) ?? 0);
      }
    }
  }
  return { edges: dependencies(n, pos, reads, writes, readValues, writeValues), reads, writes, readValues, writeValues };
}

function dependencies(
  n: number, pos: number[], reads: Map<string, number>[], writes: Set<string>[], readValues: Map<string, number>[], writeValues: Map<string, number>[],
): DepEdge[] {
  const edges: DepEdge[] = [];
  const label = (item: string): string => {
    const [t, k, f] = item.split('|');
    return itemName(t!, k!, f!);
  };
  for (let t = 0; t < n; t++) {
    for (const [item, w] of reads[t]!) {
      const rv = readValues[t]!.get(item) ?? 0;
      if (w !== INIT && w !== t) edges.push({ from: w, to: t, kind: 'WR', item: label(item), fromValue: rv, toValue: rv });
      for (let u = 0; u < n; u++) {
        if (u === t || !writes[u]!.has(item)) continue;
        if (w === INIT || pos[w]! < pos[u]!) edges.push({ from: t, to: u, kind: 'RW', item: label(item), fromValue: rv, toValue: writeValues[u]!.get(item) ?? 0 });
      }
    }
    for (const item of writes[t]!) {
      for (let u = 0; u < n; u++) {
        if (u !== t && writes[u]!.has(item) && pos[t]! < pos[u]!) {
          edges.push({ from: t, to: u, kind: 'WW', item: label(item), fromValue: writeValues[t]!.get(item) ?? 0, toValue: writeValues[u]!.get(item) ?? 0 });
        }
      }
    }
  }
  return edges;
}

function keyOf(table: Table, row: Row): string {
  return table.key.map((k) => String(row.get(k) ?? 0)).join(',');
}

function compareKeys(a: string, b: string): number {
  const x = a.split(',').map(Number);
  const y = b.split(',').map(Number);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function num(v: Value): number {
  return typeof v === 'number' ? v : 0;
}

/** An expression's integer value in `env` (NULL and empty row sets count as 0; x / 0 = 0). */
export function evalNum(e: Expr, env: ReadonlyMap<string, Value>, row: Row | null): number {
  return num(evalExpr(e, env, row));
}

function evalExpr(e: Expr, env: ReadonlyMap<string, Value>, row: Row | null): Value {
  switch (e.k) {
    case 'int': return e.v;
    case 'null': return null;
    case 'field': return row?.get(e.name) ?? 0;
    case 'var': {
      const v = env.get(e.name);
      if (isRowSet(v)) return v.rows.length === 0 ? null : v.rows[0]!.get(v.fields[0]!) ?? null;
      return v === undefined ? null : (v as number | null);
    }
    case 'dot': {
      const v = env.get(e.name);
      const r = isRowSet(v) ? v.rows[0] : (v as Row | undefined);
      return r === undefined ? null : r.get(e.field) ?? null;
    }
    case 'neg': return -num(evalExpr(e.e, env, row));
    case 'bin': {
      const a = num(evalExpr(e.l, env, row));
      const b = num(evalExpr(e.r, env, row));
      switch (e.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return b === 0 ? 0 : Math.trunc(a / b);
      }
    }
  }
}

function isRowSet(v: Value | undefined): v is RowSet {
  return typeof v === 'object' && v !== null && 'rows' in v;
}

/** A predicate's truth in `env` (and `row` for field names): SQL's comparisons on integers, a missing value as 0. */
export function evalPred(p: Pred, env: ReadonlyMap<string, Value>, row: Row | null): boolean {
  switch (p.k) {
    case 'true': return true;
    case 'and': return evalPred(p.l, env, row) && evalPred(p.r, env, row);
    case 'or': return evalPred(p.l, env, row) || evalPred(p.r, env, row);
    case 'not': return !evalPred(p.p, env, row);
    case 'isnull': {
      const v = env.get(p.name);
      const isNull = v === null || v === undefined || (isRowSet(v) && v.rows.length === 0);
      return p.neg ? !isNull : isNull;
    }
    case 'cmp': {
      const a = num(evalExpr(p.l, env, row));
      const b = num(evalExpr(p.r, env, row));
      switch (p.op) {
        case '<': return a < b;
        case '<=': return a <= b;
        case '=': return a === b;
        case '<>': return a !== b;
        case '>': return a > b;
        case '>=': return a >= b;
      }
    }
  }
}
