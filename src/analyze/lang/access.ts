/**
 * What each SQL statement of a program can touch, found by a syntactic pass (ANODE §4.3, Λ).
 *
 * Takes: a resolved `Program`. Gives: one `Access` per SQL statement: the IF conditions that must
 * hold for it to run (with their polarity), the FOREACH loops around it, the fields it reads and
 * writes (`ALIVE` stands for the record's existence, read by every statement that looks a record
 * up (a DELETE: those it does not remove), and written by INSERT and DELETE), the primary key it pins when its WHERE fixes every key
 * field by an equality, and the fields it certainly writes back after reading (read-modify-write).
 * Invariant: `reads`/`writes` over-approximate what the interpreter (interp.ts) touches, so a
 * dependency the program can produce always has a pair of statements with a field in common.
 */

import type { Expr, Pred, Program, SqlStmt, Stmt, Table } from './ast.ts';

export const ALIVE = '$alive';

export interface Access {
  stmt: SqlStmt;
  txn: string;
  table: Table;
  guards: { cond: Pred; pos: boolean }[];
  /** FOREACH row variables around the statement, outermost first. */
  loops: string[];
  reads: Set<string>;
  writes: Set<string>;
  /** Key field → expression (without fields) when the statement addresses exactly one record. */
  exactKey: Map<string, Expr> | null;
  /**
   * Statements of the same instance that write every record this one found (itself for an
   * UPDATE; an UPDATE or DELETE with the same WHERE, later, in the same loops) and the fields
   * they write: when this statement found a record, each of them writes it if its guard holds.
   */
  writeBacks: { stmt: number; fields: Set<string> }[];
  /** Existence and the WHERE's fields: read on every record looked at, matching or not (phantoms). */
  whereFields: Set<string>;
}

export interface ProgramInfo {
  program: Program;
  access: Access[];
  tables: Map<string, Table>;
  /** Tables no transaction inserts into or deletes from: every key exists, always. */
  staticTables: Set<string>;
}

export function fieldsOfExpr(e: Expr, out: Set<string>): Set<string> {
  switch (e.k) {
    case 'field': out.add(e.name); break;
    case 'bin': fieldsOfExpr(e.l, out); fieldsOfExpr(e.r, out); break;
    case 'neg': fieldsOfExpr(e.e, out); break;
    default: break;
  }
  return out;
}

export function fieldsOfPred(p: Pred, out: Set<string>): Set<string> {
  switch (p.k) {
    case 'cmp': fieldsOfExpr(p.l, out); fieldsOfExpr(p.r, out); break;
    case 'and': case 'or': fieldsOfPred(p.l, out); fieldsOfPred(p.r, out); break;
    case 'not': fieldsOfPred(p.p, out); break;
    default: break;
  }
  return out;
}

/** Top-level conjuncts `keyField = expr-without-fields` pinning every key field, or null. */
export function exactKeyOf(where: Pred, table: Table): Map<string, Expr> | null {
  const m = new Map<string, Expr>();
  const walk = (p: Pred): void => {
    if (p.k === 'and') { walk(p.l); walk(p.r); return; }
    if (p.k !== 'cmp' || p.op !== '=') return;
    for (const [a, b] of [[p.l, p.r], [p.r, p.l]] as const) {
      if (a.k === 'field' && table.key.includes(a.name) && fieldsOfExpr(b, new Set()).size === 0 && !m.has(a.name)) m.set(a.name, b);
    }
  };
  walk(where);
  return table.key.every((k) => m.has(k)) ? m : null;
}

export function analyzeProgram(program: Program): ProgramInfo {
  const tables = new Map(program.tables.map((t) => [t.name, t]));
  const staticTables = new Set(tables.keys());
  for (const { stmt } of program.stmts) if (stmt.k === 'insert' || stmt.k === 'delete') staticTables.delete(stmt.table);
  const access: Access[] = new Array(program.stmts.length);
  for (const txn of program.txns) {
    const visit = (block: Stmt[], guards: Access['guards'], loops: string[]): void => {
      block.forEach((s) => {
        if (s.k === 'if') {
          visit(s.then, [...guards, { cond: s.cond, pos: true }], loops);
          visit(s.else, [...guards, { cond: s.cond, pos: false }], loops);
        } else if (s.k === 'foreach') visit(s.body, guards, [...loops, s.target]);
        else if (s.k === 'select' || s.k === 'update' || s.k === 'insert' || s.k === 'delete') {
          access[s.id] = describe(s, txn.name, tables.get(s.table)!, guards, loops);
        }
      });
    };
    visit(txn.body, [], []);
  }
  for (const a of access) linkWriteBacks(a, access);
  return { program, access, tables, staticTables };
}

function describe(s: SqlStmt, txn: string, table: Table, guards: Access['guards'], loops: string[]): Access {
  const reads = new Set<string>();
  const writes = new Set<string>();
  let exactKey: Map<string, Expr> | null = null;
  const writeBacks: Access['writeBacks'] = [];
  let whereFields = new Set<string>();
  if (s.k === 'insert') {
    for (const f of table.fields) if (!table.key.includes(f)) writes.add(f);
    writes.add(ALIVE);
    exactKey = new Map(s.values.filter((v) => table.key.includes(v.field)).map((v) => [v.field, v.e]));
  } else {
    reads.add(ALIVE);
    fieldsOfPred(s.where, reads);
    exactKey = exactKeyOf(s.where, table);
    if (s.k === 'select') for (const f of s.fields) reads.add(f);
    whereFields = fieldsOfPred(s.where, new Set([ALIVE]));
    if (s.k === 'update') for (const set of s.sets) { writes.add(set.field); fieldsOfExpr(set.e, reads); }
    if (s.k === 'delete') writes.add(ALIVE);
  }
  for (const k of table.key) { reads.delete(k); writes.delete(k); }
  for (const k of table.key) whereFields.delete(k);
  return { stmt: s, txn, table, guards, loops, reads, writes, exactKey, writeBacks, whereFields };
}

/** WHERE is a conjunction of equalities on key fields pinning every key field, and nothing else. */
export function keyOnly(where: Pred, table: Table): boolean {
  if (exactKeyOf(where, table) === null) return false;
  const conj = (p: Pred): boolean => p.k === 'and' ? conj(p.l) && conj(p.r)
    : p.k === 'cmp' && p.op === '=' && ((p.l.k === 'field' && table.key.includes(p.l.name) && fieldsOfExpr(p.r, new Set()).size === 0)
      || (p.r.k === 'field' && table.key.includes(p.r.name) && fieldsOfExpr(p.l, new Set()).size === 0));
  return conj(where);
}

/**
 * Read-modify-write: an UPDATE writes every record it matched; a statement followed (later in
 * its transaction, in the same loops) by an UPDATE or DELETE with the same WHERE has those
 * records written too, when the later statement's guard holds. The later UPDATE must not change
 * the WHERE's fields, and the transaction must not insert into the table.
 */
function linkWriteBacks(a: Access, all: Access[]): void {
  if (a.stmt.k === 'insert') return;
  const where = JSON.stringify(a.stmt.where);
  const predFields = fieldsOfPred(a.stmt.where, new Set());
  const inserts = all.some((b) => b.txn === a.txn && b.table === a.table && b.stmt.k === 'insert');
  for (const b of all) {
    if (b.txn !== a.txn || b.table !== a.table || (b.stmt.k !== 'update' && b.stmt.k !== 'delete')) continue;
    if (b.stmt.id < a.stmt.id || JSON.stringify(b.stmt.where) !== where || b.loops.join() !== a.loops.join() || inserts) continue;
    if (b.stmt.k === 'update' && b.stmt.sets.some((x) => predFields.has(x.field))) continue;
    a.writeBacks.push({ stmt: b.stmt.id, fields: new Set([...b.writes]) });
  }
}
