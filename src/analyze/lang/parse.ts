/**
 * Parser of transaction programs (docs/analyze-language.md): tables, transactions, isolation
 * declarations.
 *
 * Takes: the program text and a source name for messages. Gives: a resolved `Program` (see
 * ast.ts for the invariant), or throws `InputError` naming the line, the column and what was
 * expected ("line 3: column 14: expected ';' after the UPDATE statement, got 'WHERE'").
 * Never returns a partly resolved program.
 */

import { InputError } from '../../history/errors.ts';
import type { Aggregate, ArithOp, CmpOp, Expr, Loc, ModelName, Pred, Program, SqlStmt, Stmt, Table, Transaction, VarInfo } from './ast.ts';
import { MODEL_NAMES } from './ast.ts';

type TokKind = 'name' | 'int' | 'sym' | 'eof';
interface Tok { kind: TokKind; text: string; loc: Loc }

const SYMBOLS = ['<=', '>=', '<>', '!=', '(', ')', '{', '}', ',', ';', '.', '=', '<', '>', '+', '-', '*', '/'];
const KEYWORDS = new Set([
  'TABLE', 'KEY', 'PRIMARY', 'TRANSACTION', 'ISOLATION', 'SERIALIZABLE', 'WITH', 'SELECT', 'AS', 'FROM', 'WHERE',
  'UPDATE', 'SET', 'INSERT', 'INTO', 'VALUES', 'DELETE', 'LET', 'IF', 'ELSE', 'FOREACH', 'IN', 'SKIP', 'AND', 'OR',
  'NOT', 'IS', 'NULL', 'MIN', 'MAX', 'COUNT', 'SUM', 'THEN', 'END', 'DO', 'REQUIRES',
]);

function lex(text: string, source: string): Tok[] {
  const toks: Tok[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') { line++; i++; lineStart = i; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '#' || (c === '-' && text[i + 1] === '-')) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    const loc = { line, col: i - lineStart + 1 };
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j]!)) j++;
      toks.push({ kind: 'name', text: text.slice(i, j), loc });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[0-9]/.test(text[j]!)) j++;
      if (j < text.length && /[A-Za-z_]/.test(text[j]!)) fail(source, loc, `a number cannot run into a name ("${text.slice(i, j + 1)}")`);
      toks.push({ kind: 'int', text: text.slice(i, j), loc });
      i = j;
      continue;
    }
    const sym = SYMBOLS.find((s) => text.startsWith(s, i));
    if (sym === undefined) fail(source, loc, `unexpected character ${JSON.stringify(c)}`);
    toks.push({ kind: 'sym', text: sym === '!=' ? '<>' : sym, loc });
    i += sym.length;
  }
  toks.push({ kind: 'eof', text: '', loc: { line, col: i - lineStart + 1 } });
  return toks;
}

function fail(source: string, loc: Loc, detail: string): never {
  throw new InputError('syntax', source, 'line', loc.line, `column ${loc.col}: ${detail}`);
}

function show(t: Tok): string {
  return t.kind === 'eof' ? 'the end of the file' : `'${t.text}'`;
}

/** Variables in scope while parsing one transaction: name → info, and which are assigned so far. */
interface Scope {
  txn: Transaction;
  assigned: Set<string>;
  depth: number;
}

class Parser {
  private pos = 0;
  private readonly stmts: { stmt: SqlStmt; txn: string }[] = [];
  private readonly tables = new Map<string, Table>();
  constructor(private readonly toks: Tok[], private readonly source: string) {}

  private get t(): Tok { return this.toks[this.pos]!; }
  private next(): Tok { return this.toks[this.pos++]!; }
  private isKw(kw: string, ahead = 0): boolean {
    const t = this.toks[this.pos + ahead]!;
    return t.kind === 'name' && t.text.toUpperCase() === kw;
  }
  private isSym(s: string): boolean { return this.t.kind === 'sym' && this.t.text === s; }
  private error(what: string, at: Tok = this.t): never {
    fail(this.source, at.loc, `expected ${what}, got ${show(at)}`);
  }
  private kw(kw: string, context: string): Tok {
    if (!this.isKw(kw)) this.error(`${kw} ${context}`);
    return this.next();
  }
  private sym(s: string, context: string): Tok {
    if (!this.isSym(s)) this.error(`'${s}' ${context}`);
    return this.next();
  }
  private name(what: string): Tok {
    const t = this.t;
    if (t.kind !== 'name' || KEYWORDS.has(t.text.toUpperCase())) this.error(what);
    return this.next();
  }

  program(): Program {
    const txns: Transaction[] = [];
    const isolation = new Map<string, ModelName>();
    const pairs: { a: Tok; b: Tok }[] = [];
    const isoToks: Tok[] = [];
    while (this.t.kind !== 'eof') {
      if (this.isKw('TABLE')) this.table();
      else if (this.isKw('TRANSACTION')) {
        const txn = this.transaction();
        if (txns.some((x) => x.name === txn.name)) fail(this.source, txn.loc, `transaction ${txn.name} is defined twice`);
        txns.push(txn);
      } else if (this.isKw('ISOLATION')) {
        this.next();
        const names = [this.name('a transaction name after ISOLATION')];
        while (this.isSym(',')) { this.next(); names.push(this.name('a transaction name')); }
        const m = this.t;
        const model = m.text.toLowerCase() as ModelName;
        if (m.kind !== 'name' || !MODEL_NAMES.includes(model)) this.error(`a consistency model (${MODEL_NAMES.join(', ')})`);
        this.next();
        this.sym(';', 'after the ISOLATION declaration');
        for (const n of names) {
          if (isolation.has(n.text)) fail(this.source, n.loc, `the isolation of ${n.text} is declared twice`);
          isolation.set(n.text, model);
          isoToks.push(n);
        }
      } else if (this.isKw('SERIALIZABLE')) {
        this.next();
        const a = this.name('a transaction name after SERIALIZABLE');
        this.kw('WITH', 'between the two transaction names');
        const b = this.name('a transaction name after WITH');
        this.sym(';', 'after the SERIALIZABLE declaration');
        pairs.push({ a, b });
      } else this.error('TABLE, TRANSACTION, ISOLATION or SERIALIZABLE');
    }
    if (txns.length === 0) fail(this.source, this.t.loc, 'expected at least one TRANSACTION');
    for (const n of [...isoToks, ...pairs.flatMap((p) => [p.a, p.b])]) {
      if (!txns.some((x) => x.name === n.text)) fail(this.source, n.loc, `unknown transaction ${n.text}`);
    }
    return {
      source: this.source, tables: [...this.tables.values()], txns, stmts: this.stmts, isolation,
      serializablePairs: pairs.map((p) => [p.a.text, p.b.text]),
    };
  }

  private table(): void {
    const at = this.next();
    const name = this.name('a table name after TABLE');
    if (this.tables.has(name.text)) fail(this.source, name.loc, `table ${name.text} is defined twice`);
    this.sym('(', 'before the field list');
    const fields: string[] = [];
    const key: string[] = [];
    for (;;) {
      const f = this.name('a field name');
      if (fields.includes(f.text)) fail(this.source, f.loc, `field ${f.text} appears twice in table ${name.text}`);
      fields.push(f.text);
      if (this.isKw('PRIMARY')) { this.next(); this.kw('KEY', 'after PRIMARY'); key.push(f.text); }
      else if (this.isKw('KEY')) { this.next(); key.push(f.text); }
      if (this.isSym(',')) { this.next(); continue; }
      this.sym(')', 'or \',\' in the field list');
      break;
    }
    if (this.isSym(';')) this.next();
    if (key.length === 0) fail(this.source, at.loc, `table ${name.text} needs a primary key: mark one or more fields KEY`);
    this.tables.set(name.text, { name: name.text, loc: at.loc, fields, key });
  }

  private transaction(): Transaction {
    const at = this.next();
    const name = this.name('a transaction name after TRANSACTION');
    this.sym('(', 'before the parameter list');
    const params: string[] = [];
    const vars = new Map<string, VarInfo>();
    if (!this.isSym(')')) {
      for (;;) {
        const p = this.name('a parameter name');
        if (vars.has(p.text)) fail(this.source, p.loc, `parameter ${p.text} appears twice`);
        params.push(p.text);
        vars.set(p.text, { kind: 'param', depth: 0 });
        if (!this.isSym(',')) break;
        this.next();
      }
    }
    this.sym(')', 'after the parameters');
    const txn: Transaction = { name: name.text, loc: at.loc, params, requires: { k: 'true' }, body: [], vars };
    // `REQUIRES p`: the parameters' domain; only parameters are in scope, no fields.
    if (this.isKw('REQUIRES')) {
      this.next();
      txn.requires = this.pred({ txn, assigned: new Set(params), depth: 0 }, null);
    }
    txn.body = this.block({ txn, assigned: new Set(params), depth: 0 });
    return txn;
  }

  private block(scope: Scope): Stmt[] {
    this.sym('{', 'to open a block');
    const out: Stmt[] = [];
    while (!this.isSym('}')) {
      if (this.t.kind === 'eof') this.error("'}' to close the block");
      out.push(this.stmt(scope));
    }
    this.next();
    return out;
  }

  private tableRef(): Table {
    const n = this.name('a table name');
    const t = this.tables.get(n.text);
    if (t === undefined) fail(this.source, n.loc, `unknown table ${n.text} (tables must be declared before use)`);
    return t;
  }

  private fieldOf(table: Table, what: string): Tok {
    const f = this.name(what);
    if (!table.fields.includes(f.text)) fail(this.source, f.loc, `table ${table.name} has no field ${f.text}`);
    return f;
  }

  private stmt(scope: Scope): Stmt {
    const at = this.t;
    const loc = at.loc;
    if (this.isKw('SELECT')) return this.select(scope);
    if (this.isKw('UPDATE')) {
      this.next();
      const table = this.tableRef();
      this.kw('SET', `after UPDATE ${table.name}`);
      const sets: { field: string; e: Expr }[] = [];
      for (;;) {
        const f = this.fieldOf(table, 'a field to SET');
        if (table.key.includes(f.text)) fail(this.source, f.loc, `UPDATE cannot change the primary key field ${f.text}`);
        if (sets.some((s) => s.field === f.text)) fail(this.source, f.loc, `field ${f.text} is SET twice`);
        this.sym('=', `after SET ${f.text}`);
        sets.push({ field: f.text, e: this.expr(scope, table) });
        if (!this.isSym(',')) break;
        this.next();
      }
      const where = this.where(scope, table);
      this.sym(';', 'after the UPDATE statement');
      return this.sql({ k: 'update', id: -1, loc, table: table.name, sets, where }, scope);
    }
    if (this.isKw('INSERT')) {
      this.next();
      this.kw('INTO', 'after INSERT');
      const table = this.tableRef();
      this.sym('(', 'before the field list of INSERT');
      const fields: Tok[] = [];
      for (;;) {
        const f = this.fieldOf(table, 'a field name');
        if (fields.some((x) => x.text === f.text)) fail(this.source, f.loc, `field ${f.text} appears twice`);
        fields.push(f);
        if (!this.isSym(',')) break;
        this.next();
      }
      this.sym(')', 'after the field list of INSERT');
      this.kw('VALUES', 'after the field list');
      const vt = this.sym('(', 'before the values');
      const values: { field: string; e: Expr }[] = [];
      for (let i = 0; ; i++) {
        if (i >= fields.length) this.error(`')': INSERT lists ${fields.length} fields`);
        values.push({ field: fields[i]!.text, e: this.expr(scope, null) });
        if (!this.isSym(',')) break;
        this.next();
      }
      if (values.length !== fields.length) fail(this.source, vt.loc, `INSERT lists ${fields.length} fields but ${values.length} values`);
      this.sym(')', 'after the values');
      for (const k of table.key) {
        if (!values.some((v) => v.field === k)) fail(this.source, loc, `INSERT INTO ${table.name} must give the primary key field ${k}`);
      }
      this.sym(';', 'after the INSERT statement');
      return this.sql({ k: 'insert', id: -1, loc, table: table.name, values }, scope);
    }
    if (this.isKw('DELETE')) {
      this.next();
      this.kw('FROM', 'after DELETE');
      const table = this.tableRef();
      const where = this.where(scope, table);
      this.sym(';', 'after the DELETE statement');
      return this.sql({ k: 'delete', id: -1, loc, table: table.name, where }, scope);
    }
    if (this.isKw('LET')) {
      this.next();
      const v = this.name('a variable name after LET');
      this.sym('=', `after LET ${v.text}`);
      const e = this.expr(scope, null);
      this.sym(';', 'after the LET statement');
      this.assign(scope, v, { kind: 'scalar', depth: scope.depth, assignments: 1 });
      return { k: 'let', loc, target: v.text, e };
    }
    if (this.isKw('IF')) {
      this.next();
      const cond = this.pred(scope, null);
      if (this.isKw('THEN')) this.next();
      const before = new Set(scope.assigned);
      const then = this.block(scope);
      const afterThen = scope.assigned;
      let els: Stmt[] = [];
      scope.assigned = new Set(before);
      if (this.isKw('ELSE')) {
        this.next();
        if (this.isKw('IF')) els = [this.stmt(scope)];
        else els = this.block(scope);
      }
      // A variable is assigned after the IF only if both branches assign it.
      scope.assigned = new Set([...afterThen].filter((x) => scope.assigned.has(x)));
      return { k: 'if', loc, cond, then, else: els };
    }
    if (this.isKw('FOREACH')) {
      this.next();
      const v = this.name('a loop variable after FOREACH');
      this.kw('IN', `after FOREACH ${v.text}`);
      const over = this.name('a row-set variable after IN');
      const info = scope.txn.vars.get(over.text);
      if (info === undefined || !scope.assigned.has(over.text)) fail(this.source, over.loc, `unknown variable ${over.text}`);
      if (info.kind !== 'rows') fail(this.source, over.loc, `FOREACH needs a row set (the result of a SELECT), ${over.text} is not one`);
      const before = new Set(scope.assigned);
      this.assign(scope, v, { kind: 'row', depth: scope.depth + 1, table: info.table, over: over.text, fields: info.fields });
      scope.depth++;
      const body = this.block(scope);
      scope.depth--;
      scope.assigned = before;
      return { k: 'foreach', loc, target: v.text, over: over.text, body };
    }
    if (this.isKw('SKIP')) {
      this.next();
      this.sym(';', 'after SKIP');
      return { k: 'skip', loc };
    }
    this.error('a statement (SELECT, UPDATE, INSERT, DELETE, LET, IF, FOREACH or SKIP)');
  }

  private select(scope: Scope): Stmt {
    const loc = this.next().loc;
    let agg: Aggregate | null = null;
    const aggTok = this.t;
    const fieldToks: Tok[] = [];
    let star = false;
    if (['MIN', 'MAX', 'COUNT', 'SUM'].some((a) => this.isKw(a))) {
      agg = this.next().text.toUpperCase() as Aggregate;
      this.sym('(', `after ${agg}`);
      if (agg === 'COUNT' && this.isSym('*')) { this.next(); star = true; }
      else fieldToks.push(this.name('a field name'));
      this.sym(')', `after the ${agg} argument`);
    } else {
      for (;;) {
        fieldToks.push(this.name('a field name or MIN, MAX, COUNT, SUM'));
        if (!this.isSym(',')) break;
        this.next();
      }
    }
    this.kw('AS', 'after the SELECT list');
    const v = this.name('a variable name after AS');
    this.kw('FROM', `after AS ${v.text}`);
    const table = this.tableRef();
    for (const f of fieldToks) {
      if (!table.fields.includes(f.text)) fail(this.source, f.loc, `table ${table.name} has no field ${f.text}`);
    }
    const fields = fieldToks.map((f) => f.text);
    if (star && fields.length === 0) fields.push(...table.key);
    void aggTok;
    const where = this.where(scope, table);
    this.sym(';', 'after the SELECT statement');
    const stmt: SqlStmt = { k: 'select', id: -1, loc, table: table.name, fields, agg, target: v.text, where };
    const r = this.sql(stmt, scope);
    this.assign(scope, v, agg === null
      ? { kind: 'rows', depth: scope.depth, assignments: 1, table: table.name, stmt: stmt.id, fields }
      : { kind: 'scalar', depth: scope.depth, assignments: 1 });
    return r;
  }

  private sql<S extends SqlStmt>(s: S, scope: Scope): S {
    s.id = this.stmts.length;
    this.stmts.push({ stmt: s, txn: scope.txn.name });
    return s;
  }

  private assign(scope: Scope, v: Tok, info: VarInfo): void {
    const old = scope.txn.vars.get(v.text);
    if (old !== undefined) {
      if (old.kind === 'param') fail(this.source, v.loc, `cannot assign to parameter ${v.text}`);
      if (old.kind !== info.kind || old.kind === 'row') fail(this.source, v.loc, `variable ${v.text} is assigned twice with different kinds (${old.kind}, ${info.kind})`);
      if (old.kind === 'rows' && info.kind === 'rows' && (old.table !== info.table || old.fields.join() !== info.fields.join())) {
        fail(this.source, v.loc, `row-set variable ${v.text} is assigned twice from different SELECT lists`);
      }
      old.assignments++;
      old.depth = Math.max(old.depth, info.depth);
    } else scope.txn.vars.set(v.text, info);
    scope.assigned.add(v.text);
  }

  private where(scope: Scope, table: Table): Pred {
    if (!this.isKw('WHERE')) return { k: 'true' };
    this.next();
    return this.pred(scope, table);
  }

  // Predicates: OR < AND < NOT < comparison.
  private pred(scope: Scope, table: Table | null): Pred {
    let l = this.conj(scope, table);
    while (this.isKw('OR')) { this.next(); l = { k: 'or', l, r: this.conj(scope, table) }; }
    return l;
  }
  private conj(scope: Scope, table: Table | null): Pred {
    let l = this.neg(scope, table);
    while (this.isKw('AND')) { this.next(); l = { k: 'and', l, r: this.neg(scope, table) }; }
    return l;
  }
  private neg(scope: Scope, table: Table | null): Pred {
    if (this.isKw('NOT')) { this.next(); return { k: 'not', p: this.neg(scope, table) }; }
    if (this.isSym('(')) {
      // '(' opens either a parenthesised predicate or an arithmetic expression: try the predicate.
      const save = this.pos;
      try {
        this.next();
        const p = this.pred(scope, table);
        if (this.isSym(')')) {
          this.next();
          if (!this.isCmpOp() && !['+', '-', '*', '/'].some((s) => this.isSym(s))) return p;
        }
      } catch (err) {
        if (!(err instanceof Error)) throw err;
      }
      this.pos = save;
    }
    return this.atomPred(scope, table);
  }
  private isCmpOp(): boolean {
    return ['<', '<=', '=', '<>', '>', '>='].some((s) => this.isSym(s));
  }
  private atomPred(scope: Scope, table: Table | null): Pred {
    const t = this.t;
    if (t.kind === 'name' && this.isKw('IS', 1)) {
      const v = this.next();
      this.next();
      let neg = false;
      if (this.isKw('NOT')) { this.next(); neg = true; }
      this.kw('NULL', 'after IS');
      const info = scope.txn.vars.get(v.text);
      if (info === undefined || !scope.assigned.has(v.text) || info.kind === 'param' || info.kind === 'row') {
        fail(this.source, v.loc, `IS NULL needs a local variable assigned by a SELECT or LET, ${v.text} is not one`);
      }
      return { k: 'isnull', name: v.text, neg };
    }
    const l = this.expr(scope, table);
    if (!this.isCmpOp()) this.error('a comparison (<, <=, =, <>, >, >=) or IS NULL');
    const op = this.next().text as CmpOp;
    const r = this.expr(scope, table);
    return { k: 'cmp', op, l, r };
  }

  // Arithmetic: + - < * / < unary minus < atoms.
  private expr(scope: Scope, table: Table | null): Expr {
    let l = this.term(scope, table);
    while (this.isSym('+') || this.isSym('-')) {
      const op = this.next().text as ArithOp;
      l = { k: 'bin', op, l, r: this.term(scope, table) };
    }
    return l;
  }
  private term(scope: Scope, table: Table | null): Expr {
    let l = this.unary(scope, table);
    while (this.isSym('*') || this.isSym('/')) {
      const op = this.next().text as ArithOp;
      l = { k: 'bin', op, l, r: this.unary(scope, table) };
    }
    return l;
  }
  private unary(scope: Scope, table: Table | null): Expr {
    if (this.isSym('-')) { this.next(); return { k: 'neg', e: this.unary(scope, table) }; }
    return this.atom(scope, table);
  }
  private atom(scope: Scope, table: Table | null): Expr {
    const t = this.t;
    if (t.kind === 'int') {
      this.next();
      const v = Number(t.text);
      if (!Number.isSafeInteger(v)) fail(this.source, t.loc, `integer ${t.text} is too large`);
      return { k: 'int', v };
    }
    if (this.isSym('(')) {
      this.next();
      const e = this.expr(scope, table);
      this.sym(')', 'to close the parenthesis');
      return e;
    }
    if (this.isKw('NULL')) { this.next(); return { k: 'null' }; }
    const n = this.name('a number, a variable, a field or \'(\'');
    if (this.isSym('.')) {
      this.next();
      const f = this.name(`a field name after ${n.text}.`);
      const info = scope.txn.vars.get(n.text);
      if (info === undefined || !scope.assigned.has(n.text)) fail(this.source, n.loc, `unknown variable ${n.text}`);
      if (info.kind !== 'rows' && info.kind !== 'row') fail(this.source, n.loc, `${n.text} is not a row or row set, so ${n.text}.${f.text} means nothing`);
      if (!info.fields.includes(f.text)) fail(this.source, f.loc, `${n.text} has no field ${f.text} (its SELECT lists ${info.fields.join(', ')})`);
      return { k: 'dot', name: n.text, field: f.text };
    }
    if (table !== null && table.fields.includes(n.text)) return { k: 'field', name: n.text };
    const info = scope.txn.vars.get(n.text);
    if (info === undefined || !scope.assigned.has(n.text)) {
      fail(this.source, n.loc, table === null ? `unknown variable ${n.text}` : `${n.text} is neither a field of ${table.name} nor a variable`);
    }
    if (info.kind === 'row') fail(this.source, n.loc, `row variable ${n.text} needs a field: ${n.text}.FIELD`);
    if (info.kind === 'rows' && info.fields.length !== 1) {
      fail(this.source, n.loc, `row set ${n.text} has ${info.fields.length} fields; name one: ${n.text}.FIELD`);
    }
    return { k: 'var', name: n.text };
  }
}

/** Parses and resolves a program; throws InputError (code 'syntax', unit 'line') on bad input. */
export function parseProgram(text: string, source = '<program>'): Program {
  const p = new Parser(lex(text, source), source);
  return p.program();
}
