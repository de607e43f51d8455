/**
 * The bounded first-order encoding of ANODE §4, grounded on a fixed number of instance slots.
 *
 * Takes: the analysed program, the model specification, the transactions that may appear, the
 * number of slots n, and the Z3 context. Gives: Z3 variables per slot (its transaction, the
 * values of its parameters and locals, its position in arbitration order) and per ordered pair
 * of slots (vis, WR, WW, RW), with the constraints φ_basic, φ_Ψ (models.ts), the necessary
 * conditions R(i,j) ⇒ ∨ η (two statements touch a common field of a common record, each
 * under its IF conditions, each write really happening: record existence, `effect`) and the
 * sufficient conditions for WW (two writes of the same pinned record that both happen).
 * Queries (queries.ts) add a cycle, a chordless path or the inductive step; `prefer` holds
 * preferences (not constraints) for witnesses that confirm more easily.
 * Invariant: every execution of ≤ n instances of the program under the model, with its real
 * dependency graph, is a model, and so is the restriction to n of its instances of any larger
 * execution (a cycle among the slots may need instances outside them): unknown values (loop
 * iterations, non-key fields, products of variables) are fresh existential constants, forcing
 * rules fire only on certainties, and values are equated only where the models make it certain
 * with instances outside (sameVersion). What holds only when the slots are the whole execution
 * is a preference (closedWorld), never a constraint. docs/analyze-language.md, "Precision of the
 * encoding".
 */

import type { Arith, Bool } from 'z3-solver';
import type { Access, ProgramInfo } from '../lang/access.ts';
import { ALIVE, fieldsOfPred, keyOnly } from '../lang/access.ts';
import type { Expr, Pred, Transaction } from '../lang/ast.ts';
import type { Axiom, ModelSpec } from '../models.ts';
import type { Z3 } from './z3.ts';

type A = Arith<'main'>;
type B = Bool<'main'>;
export type EdgeKindA = 'WR' | 'WW' | 'RW';

/** One disjunct of a necessary condition: which statements and which record. */
export interface Cause {
  kind: EdgeKindA;
  from: number;
  to: number;
  stmtFrom: number;
  stmtTo: number;
  table: string;
  fields: string[];
  key: A[];
  cond: B;
}

/** A per-slot Boolean function of a record's key (effect, below). */
interface EffectFn { call(...args: A[]): B }

/** Variables of one encoding context: slot i evaluating statements of transaction txn. */
interface Ctx { slot: number; txn: Transaction; iter: Map<string, Map<string, A>>; side: B[] }

export class Encoding {
  readonly txnIndex: Map<string, number>;
  readonly type: A[];
  readonly pos: A[];
  readonly vis: B[][];
  readonly rel: Record<EdgeKindA, B[][]>;
  readonly causes: Cause[] = [];
  readonly constraints: B[] = [];
  /**
   * Not constraints: preferences for a witness that confirms more easily (queries.ts asks again
   * with them and keeps the first answer if they cannot hold).
   */
  readonly prefer: B[] = [];
  private fresh = 0;
  private readonly named = new Map<string, A | B>();
  private readonly effects = new Map<string, EffectFn>();
  /** Per slot and table: the record's existence in the slot's view (aliveInView). */
  private readonly alive = new Map<string, EffectFn>();

  constructor(
    readonly Z: Z3,
    readonly info: ProgramInfo,
    readonly spec: ModelSpec,
    /** The transactions slots may take (all of them, or the rest in an inductive proof). */
    readonly txns: Transaction[],
    readonly n: number,
  ) {
    this.txnIndex = new Map(txns.map((t, i) => [t.name, i]));
    const ids = Array.from({ length: n }, (_, i) => i);
    this.type = ids.map((i) => Z.Int.const(`type_${i}`));
    this.pos = ids.map((i) => Z.Int.const(`ar_${i}`));
    const pairs = (name: string): B[][] => ids.map((i) => ids.map((j) => Z.Bool.const(`${name}_${i}_${j}`)));
    this.vis = pairs('vis');
    this.rel = { WR: pairs('WR'), WW: pairs('WW'), RW: pairs('RW') };
    for (const i of ids) this.constraints.push(this.type[i]!.ge(0), this.type[i]!.lt(txns.length));
    if (n > 1) this.constraints.push(Z.Distinct(...this.pos));
    for (const i of ids) for (const t of txns) this.localFacts(i, t);
    // The parameters' domain (REQUIRES): a slot of type t has parameters t accepts.
    for (const i of ids) {
      for (const t of txns) {
        if (t.requires.k === 'true') continue;
        const ctx: Ctx = { slot: i, txn: t, iter: new Map(), side: [] };
        const dom = this.pred(t.requires, ctx, null);
        this.constraints.push(Z.Implies(this.isType(i, t.name), Z.And(dom, ...ctx.side)));
      }
    }
    for (const i of ids) {
      for (const j of ids) {
        if (i === j) {
          for (const r of [this.vis, this.rel.WR, this.rel.WW, this.rel.RW]) this.constraints.push(Z.Not(r[i]![j]!));
          continue;
        }
        this.basic(i, j);
        for (const kind of ['WR', 'WW', 'RW'] as const) this.necessary(kind, i, j);
        this.forcedWW(i, j);
        this.sameVersion(i, j);
        if (i < j) this.closedWorld(i, j);
      }
    }
    for (const i of ids) for (const t of txns) this.aliveInView(i, t);
    this.axioms();
  }

  ar(i: number, j: number): B { return this.pos[i]!.lt(this.pos[j]!); }
  dep(i: number, j: number): B { return this.Z.Or(this.rel.WR[i]![j]!, this.rel.WW[i]![j]!, this.rel.RW[i]![j]!); }
  isType(i: number, txn: string): B { return this.type[i]!.eq(this.txnIndex.get(txn)!); }

  param(i: number, txn: string, v: string): A { return this.int(`${txn}_${i}_${v}`); }

  private int(name: string): A {
    let c = this.named.get(name) as A | undefined;
    if (c === undefined) { c = this.Z.Int.const(name); this.named.set(name, c); }
    return c;
  }
  private bool(name: string): B {
    let c = this.named.get(name) as B | undefined;
    if (c === undefined) { c = this.Z.Bool.const(name); this.named.set(name, c); }
    return c;
  }
  private freshInt(): A { return this.Z.Int.const(`fresh_${this.fresh++}`); }
  private freshBool(): B { return this.Z.Bool.const(`freshb_${this.fresh++}`); }

  /** A variable's value is tracked per slot only if it is assigned once, outside loops. */
  tracked(txn: Transaction, v: string): boolean {
    const info = txn.vars.get(v)!;
    return info.kind === 'param' || (info.kind !== 'row' && info.depth === 0 && info.assignments === 1);
  }

  /** NULL reads as 0: an empty row set's field and a NULL aggregate are 0. A pinned key is what the WHERE says. */
  private localFacts(i: number, txn: Transaction): void {
    const Z = this.Z;
    const facts: B[] = [];
    for (const [v, info] of txn.vars) {
      if (!this.tracked(txn, v) || info.kind === 'param' || info.kind === 'row') continue;
      if (info.kind === 'scalar') facts.push(Z.Implies(this.bool(`${txn.name}_${i}_${v}_null`), this.int(`${txn.name}_${i}_${v}`).eq(0)));
      // A COUNT is a number of rows: never NULL, never negative.
      if (info.kind === 'scalar' && this.accesses(txn).some((a) => a.stmt.k === 'select' && a.stmt.agg === 'COUNT' && a.stmt.target === v)) {
        facts.push(Z.Not(this.bool(`${txn.name}_${i}_${v}_null`)), this.int(`${txn.name}_${i}_${v}`).ge(0));
      }
      if (info.kind === 'rows') {
        const empty = this.bool(`${txn.name}_${i}_${v}_null`);
        const a = this.info.access[info.stmt]!;
        for (const f of info.fields) {
          const val = this.int(`${txn.name}_${i}_${v}.${f}`);
          facts.push(Z.Implies(empty, val.eq(0)));
          const pinned = a.exactKey?.get(f);
          if (pinned !== undefined && onlyKeyEqualities(a)) {
            const ctx: Ctx = { slot: i, txn, iter: new Map(), side: [] };
            facts.push(Z.Implies(Z.Not(empty), val.eq(this.expr(pinned, ctx, null))));
          }
        }
        // A pinned record of a static table always exists.
        if (this.info.staticTables.has(a.table.name) && onlyKeyEqualities(a)) facts.push(Z.Not(empty));
      }
    }
    if (facts.length > 0) this.constraints.push(Z.Implies(this.isType(i, txn.name), Z.And(...facts)));
  }

  expr(e: Expr, ctx: Ctx, rec: Map<string, A> | null): A {
    const Z = this.Z;
    const { slot: i, txn } = ctx;
    switch (e.k) {
      case 'int': return Z.Int.val(e.v);
      case 'null': return Z.Int.val(0);
      case 'field': return rec?.get(e.name) ?? this.freshInt();
      case 'var': {
        const info = txn.vars.get(e.name)!;
        if (!this.tracked(txn, e.name)) return this.freshInt();
        if (info.kind === 'rows') return this.int(`${txn.name}_${i}_${e.name}.${info.fields[0]}`);
        return this.int(`${txn.name}_${i}_${e.name}`);
      }
      case 'dot': {
        const info = txn.vars.get(e.name)!;
        if (info.kind === 'row') return this.iteration(ctx, e.name).get(e.field) ?? this.freshInt();
        if (!this.tracked(txn, e.name)) return this.freshInt();
        return this.int(`${txn.name}_${i}_${e.name}.${e.field}`);
      }
      case 'neg': return this.expr(e.e, ctx, rec).neg();
      case 'bin': {
        const l = this.expr(e.l, ctx, rec);
        const r = this.expr(e.r, ctx, rec);
        if (e.op === '+') return l.add(r);
        if (e.op === '-') return l.sub(r);
        // Products of two unknowns and all divisions stay uninterpreted (fresh): linear arithmetic only.
        if (e.op === '*' && (e.l.k === 'int' || e.r.k === 'int')) return l.mul(r);
        return this.freshInt();
      }
    }
  }

  pred(p: Pred, ctx: Ctx, rec: Map<string, A> | null): B {
    const Z = this.Z;
    switch (p.k) {
      case 'true': return Z.Bool.val(true);
      case 'and': return Z.And(this.pred(p.l, ctx, rec), this.pred(p.r, ctx, rec));
      case 'or': return Z.Or(this.pred(p.l, ctx, rec), this.pred(p.r, ctx, rec));
      case 'not': return Z.Not(this.pred(p.p, ctx, rec));
      case 'isnull': {
        const b = this.tracked(ctx.txn, p.name) ? this.bool(`${ctx.txn.name}_${ctx.slot}_${p.name}_null`) : this.freshBool();
        return p.neg ? Z.Not(b) : b;
      }
      case 'cmp': {
        const l = this.expr(p.l, ctx, rec);
        const r = this.expr(p.r, ctx, rec);
        switch (p.op) {
          case '<': return l.lt(r);
          case '<=': return l.le(r);
          case '=': return l.eq(r);
          case '<>': return l.neq(r);
          case '>': return l.gt(r);
          case '>=': return l.ge(r);
        }
      }
    }
  }

  /** Some iteration of loop variable `v`: a record of the looped-over SELECT that satisfies its WHERE. */
  private iteration(ctx: Ctx, v: string): Map<string, A> {
    let rec = ctx.iter.get(v);
    if (rec !== undefined) return rec;
    const info = ctx.txn.vars.get(v)!;
    if (info.kind !== 'row') throw new Error(`not a loop variable: ${v}`);
    const table = this.info.tables.get(info.table)!;
    rec = new Map(table.fields.map((f) => [f, this.freshInt()]));
    ctx.iter.set(v, rec);
    const over = ctx.txn.vars.get(info.over)!;
    if (over.kind === 'rows') {
      const a = this.info.access[over.stmt]!;
      ctx.side.push(this.pred(a.stmt.k === 'select' ? a.stmt.where : { k: 'true' }, ctx, rec));
      for (const g of a.guards) ctx.side.push(g.pos ? this.pred(g.cond, ctx, null) : this.Z.Not(this.pred(g.cond, ctx, null)));
      if (this.tracked(ctx.txn, info.over)) ctx.side.push(this.Z.Not(this.bool(`${ctx.txn.name}_${ctx.slot}_${info.over}_null`)));
    }
    return rec;
  }

  /** The statement runs: its IF conditions hold and an iteration of each enclosing loop exists. */
  private guard(a: Access, ctx: Ctx): B {
    const Z = this.Z;
    for (const l of a.loops) this.iteration(ctx, l);
    const gs = a.guards.map((g) => (g.pos ? this.pred(g.cond, ctx, null) : Z.Not(this.pred(g.cond, ctx, null))));
    return Z.And(...gs);
  }

  /** The WHERE of `a` holds on record `rec` (INSERT: the record is the inserted one). */
  private where(a: Access, ctx: Ctx, rec: Map<string, A>): B {
    const s = a.stmt;
    if (s.k === 'insert') {
      return this.Z.And(...s.values.filter((v) => a.table.key.includes(v.field)).map((v) => rec.get(v.field)!.eq(this.expr(v.e, ctx, null))));
    }
    return this.pred(s.where, ctx, rec);
  }

  private conflicts(kind: EdgeKindA, a1: Access, a2: Access): string[] {
    if (a1.table !== a2.table) return [];
    const [x, y] = kind === 'WR' ? [a1.writes, a2.reads] : kind === 'WW' ? [a1.writes, a2.writes] : [a1.reads, a2.writes];
    return [...x].filter((f) => y.has(f));
  }

  /** R(i,j) ⇒ some pair of statements (one in each instance) touches a common field of a common record. */
  private necessary(kind: EdgeKindA, i: number, j: number): void {
    const Z = this.Z;
    const ors: B[] = [];
    for (const t1 of this.txns) {
      for (const t2 of this.txns) {
        for (const a1 of this.accesses(t1)) {
          for (const a2 of this.accesses(t2)) {
            const all = this.conflicts(kind, a1, a2);
            if (all.length === 0) continue;
            const reader = kind === 'RW' ? a1 : kind === 'WR' ? a2 : null;
            const writer = kind === 'RW' ? a2 : kind === 'WR' ? a1 : null;
            // 'where' fields (existence and the WHERE's) are read on every record looked at, found
            // or not; the others only on found records.
            // A DELETE pinned to one record reads its existence only when it does not remove it.
            const notDeleting = reader !== null && reader.stmt.k === 'delete' && reader.loops.length === 0;
            const groups: { fields: string[]; found: boolean; absent?: boolean }[] = reader === null ? [{ fields: all, found: false }] : [
              { fields: all.filter((f) => reader.whereFields.has(f) && !(notDeleting && f === ALIVE)), found: false },
              { fields: all.filter((f) => notDeleting && f === ALIVE), found: false, absent: true },
              { fields: all.filter((f) => !reader.whereFields.has(f)), found: true },
            ].filter((g) => g.fields.length > 0);
            for (const group of groups) {
              const key = a1.table.key.map(() => this.freshInt());
              const rec1 = new Map(a1.table.fields.map((f) => [f, a1.table.key.includes(f) ? key[a1.table.key.indexOf(f)]! : this.freshInt()]));
              const rec2 = new Map(a2.table.fields.map((f) => [f, a2.table.key.includes(f) ? key[a2.table.key.indexOf(f)]! : this.freshInt()]));
              const c1: Ctx = { slot: i, txn: t1, iter: new Map(), side: [] };
              const c2: Ctx = { slot: j, txn: t2, iter: new Map(), side: [] };
              // The reader's and the writer's contexts by role (a1 and a2 may be the same statement).
              const rc0 = kind === 'RW' ? c1 : c2;
              const wc0 = kind === 'RW' ? c2 : c1;
              const parts = [this.isType(i, t1.name), this.isType(j, t2.name), this.guard(a1, c1), this.guard(a2, c2), this.where(a1, c1, rec1), this.where(a2, c2, rec2)];
              if (reader !== null && writer !== null) parts.push(this.writeBack(reader, writer, rc0, group.found, i, j));
              if (group.absent === true) parts.push(Z.Not(this.effect(reader!, rc0, key)));
              if (reader !== null) parts.push(...this.notOwnWrite(reader, rc0, group.fields, key));
              // WR on existence: the reader saw the record live (from an INSERT) or absent (from a
              // DELETE), so a found-record probe of the reader is non-empty or empty accordingly.
              if (kind === 'WR' && group.fields.length === 1 && group.fields[0] === ALIVE && (a1.stmt.k === 'insert' || a1.stmt.k === 'delete')) {
                const probe = this.foundProbe(a2, c2);
                if (probe !== null) {
                  const empty = this.bool(`${t2.name}_${j}_${probe}_null`);
                  parts.push(a1.stmt.k === 'insert' ? Z.Not(empty) : empty);
                }
                // A predicate read that saw an inserted record live, with a WHERE on key fields
                // only (so the record matches it), counted it: COUNT ≥ 1, other results not NULL.
                if (a1.stmt.k === 'insert') parts.push(...this.predicateHit(a2, c2));
              }
              if (kind === 'RW') parts.push(...this.noLaterVisibleWriter(i, j, a1.table.name, group.fields, key, j));
              if (kind === 'WR') parts.push(...this.noLaterVisibleWriter(j, i, a1.table.name, group.fields, key, i));
              // The writer(s) really wrote the record (an INSERT found it absent, a DELETE or UPDATE found it).
              if (kind !== 'RW') parts.push(this.effect(a1, c1, key));
              if (kind !== 'WR') parts.push(this.effect(a2, c2, key));
              parts.push(...c1.side, ...c2.side);
              const cond = Z.And(...parts);
              // Preferred reading: a predicate read that conflicts with an INSERT matched the inserted row.
              if (reader !== null && writer !== null && writer.stmt.k === 'insert' && reader.stmt.k !== 'insert' && reader.exactKey === null) {
                const wc = wc0;
                const rc: Ctx = { slot: rc0.slot, txn: rc0.txn, iter: new Map(), side: [] };
                const inserted = new Map(writer.table.fields.map((f, n) => [f, writer.table.key.includes(f) ? key[writer.table.key.indexOf(f)]! : (() => {
                  const v = (writer.stmt as { values: { field: string; e: Expr }[] }).values.find((x) => x.field === f);
                  void n;
                  return v === undefined ? Z.Int.val(0) : this.expr(v.e, wc, null);
                })()]));
                this.prefer.push(Z.Implies(cond, this.pred((reader.stmt as { where: Pred }).where, rc, inserted)));
              }
              this.causes.push({ kind, from: i, to: j, stmtFrom: a1.stmt.id, stmtTo: a2.stmt.id, table: a1.table.name, fields: group.fields, key, cond });
              ors.push(cond);
            }
          }
        }
      }
    }
    this.constraints.push(Z.Implies(this.rel[kind][i]![j]!, ors.length === 0 ? Z.Bool.val(false) : Z.Or(...ors)));
  }

  /**
   * What a predicate read's result says when it includes a given live record: a SELECT outside
   * loops into a tracked variable, whose WHERE mentions key fields only (every version of the
   * record matches it alike), not pinned to one record (foundProbe covers that). The cause it
   * joins has the record live in the reader's view (WR on existence from the INSERT that wrote
   * the version read: the reader does not write the item, interp.ts) and satisfying the WHERE.
   * Why this matters: RemCourse's `IF n = 0 { DELETE ... }` could otherwise see an enrolment and
   * still run its DELETE (common11.md: a refuted RemCourse -RW(Course.exists)-> RemCourse edge).
   */
  private predicateHit(a: Access, ctx: Ctx): B[] {
    const s = a.stmt;
    if (s.k !== 'select' || a.loops.length > 0 || a.exactKey !== null || !this.tracked(ctx.txn, s.target)) return [];
    if ([...fieldsOfPred(s.where, new Set())].some((f) => !a.table.key.includes(f))) return [];
    const Z = this.Z;
    if (s.agg === 'COUNT') return [this.int(`${ctx.txn.name}_${ctx.slot}_${s.target}`).ge(1)];
    return [Z.Not(this.bool(`${ctx.txn.name}_${ctx.slot}_${s.target}_null`))];
  }

  /**
   * Read-modify-write: when the reader found the record, each statement of its instance that
   * writes the record back (access.ts, writeBacks) makes the two instances WW-related, one way
   * or the other, if its guard holds. A key-only SELECT into a tracked row set found the record
   * iff the set is not empty, which also covers conflicts on existence.
   */
  private writeBack(reader: Access, writer: Access, rc: Ctx, found: boolean, i: number, j: number): B {
    const Z = this.Z;
    const probe = this.foundProbe(reader, rc);
    const emptyVar = probe === null ? null : this.bool(`${rc.txn.name}_${rc.slot}_${probe}_null`);
    const ww = (): B[] => reader.writeBacks
      .filter((wb) => [...wb.fields].some((f) => writer.writes.has(f)))
      .map((wb) => Z.Implies(this.guard(this.info.access[wb.stmt]!, rc), Z.Or(this.rel.WW[i]![j]!, this.rel.WW[j]![i]!)));
    if (found) return Z.And(...(emptyVar === null ? [] : [Z.Not(emptyVar)]), ...ww());
    if (emptyVar === null) return Z.Bool.val(true);
    return Z.Or(emptyVar, Z.And(Z.Not(emptyVar), ...ww()));
  }

  /**
   * A tracked row-set variable that is empty iff `a` does not find its record: `a` itself when it
   * is a key-only SELECT, or an earlier key-only SELECT with the same WHERE in the same loops,
   * with no INSERT or DELETE on the table in between.
   */
  private foundProbe(a: Access, ctx: Ctx): string | null {
    if (!keyOnly(a.stmt.k === 'insert' ? { k: 'true' } : a.stmt.where, a.table) || a.loops.length > 0 || a.stmt.k === 'insert') return null;
    const where = JSON.stringify(a.stmt.where);
    const sibs = this.accesses(ctx.txn).filter((b) => b.stmt.k === 'select' && b.stmt.agg === null && b.table === a.table && b.stmt.id <= a.stmt.id
      && b.loops.length === 0 && JSON.stringify(b.stmt.where) === where && this.tracked(ctx.txn, b.stmt.target));
    for (const b of sibs.reverse()) {
      const between = this.accesses(ctx.txn).some((c) => c.table === a.table && c.stmt.id > b.stmt.id && c.stmt.id < a.stmt.id && (c.stmt.k === 'insert' || c.stmt.k === 'delete'));
      if (!between && b.stmt.k === 'select') return b.stmt.target;
    }
    return null;
  }

  /**
   * Two writes of the same field of the same pinned record, outside loops, each certain when its
   * guard holds (an INSERT; an UPDATE of a static table; an UPDATE or DELETE that finds its record,
   * known from a tracked SELECT with the same WHERE): WW in arbitration order.
   */
  private forcedWW(i: number, j: number): void {
    const Z = this.Z;
    for (const t1 of this.txns) {
      for (const t2 of this.txns) {
        for (const a1 of this.accesses(t1)) {
          for (const a2 of this.accesses(t2)) {
            if (a1.table !== a2.table || this.conflicts('WW', a1, a2).length === 0) continue;
            const c1: Ctx = { slot: i, txn: t1, iter: new Map(), side: [] };
            const c2: Ctx = { slot: j, txn: t2, iter: new Map(), side: [] };
            const sure1 = this.certainWrite(a1, c1);
            const sure2 = this.certainWrite(a2, c2);
            if (sure1 === null || sure2 === null) continue;
            const same = a1.table.key.map((k) => this.expr(a1.exactKey!.get(k)!, c1, null).eq(this.expr(a2.exactKey!.get(k)!, c2, null)));
            const premise = Z.And(this.isType(i, t1.name), this.isType(j, t2.name), this.guard(a1, c1), this.guard(a2, c2), sure1, sure2, ...same, this.ar(i, j));
            this.constraints.push(Z.Implies(premise, this.rel.WW[i]![j]!));
          }
        }
      }
    }
  }

  /**
   * "Same version, same value", where the models make it certain even with instances outside
   * the slots (a cycle among the slots may sit in a larger execution, so a read that no slot's
   * write reaches is not simply "the initial value": another instance may have written it).
   *
   * Claim: slots i and j read record R (pinned key-only SELECTs into tracked row sets, outside
   * loops, before any write of their own to R) and both find it; j obeys PSI and PC, i
   * obeys PC (and so CC); j is not visible to i; j certainly writes field X of R (later in j);
   * some third slot y is visible to i and not to j. Then i and j read the same version of X, and
   * of every field that only statements writing X also write (INSERTs write every field), so
   * the same values.
   * Proof, over the whole execution (outsiders included), writing V(r) for the writers of an item
   * visible to r: PC for j and ¬vis(y, j) put every instance visible to j before y in ar (one
   * after y would drag y into j's view); PC for i and vis(y, i) make every instance before y
   * visible to i; so vis⁻¹(j) ⊆ vis⁻¹(i), for every item. Conversely, let o write X and be
   * visible to i. If o precedes j in ar, WW(o, j), and j obeys PSI (WW ⊆ vis when either writer
   * obeys it), so o is visible to j. o is not j (¬vis(j, i)). If o follows j, WW(j, o) makes j
   * visible to o, and CC for i would make j visible to i: excluded. So V(i) = V(j) for X, and for
   * a field f whose writers all write X (an f-writer visible to i is an X-writer, visible to j).
   * Equal sets of visible writers give the same last writer in ar, or none: the same value.
   * Without PC (PSI alone, or EC), an instance between the two reads in arbitration can be
   * visible to one and not the other, and nothing is assumed. Typical use: two SI Enrolls of
   * Courseware reading one course's count, one enrolling and one not (common11.md).
   */
  private sameVersion(i: number, j: number): void {
    const Z = this.Z;
    const hasAll = (t: Transaction, axs: Axiom[]): boolean => axs.every((x) => this.spec.axioms.get(t.name)!.has(x));
    if (!this.txns.some((t) => hasAll(t, ['psi', 'pc']))) return;
    const others = Array.from({ length: this.n }, (_, y) => y).filter((y) => y !== i && y !== j);
    if (others.length === 0) return;
    const split = Z.Or(...others.map((y) => Z.And(this.vis[y]![i]!, Z.Not(this.vis[y]![j]!))));
    const reads = (t: Transaction): Access[] => this.viewReads(t);
    for (const ti of this.txns) {
      if (!hasAll(ti, ['pc', 'cc'])) continue;
      for (const tj of this.txns) {
        if (!hasAll(tj, ['psi', 'pc'])) continue;
        for (const ri of reads(ti)) {
          for (const rj of reads(tj)) {
            if (ri.table !== rj.table) continue;
            for (const wj of this.accesses(tj)) {
              if (wj.table !== rj.table || wj.stmt.k === 'select' || wj.stmt.id < rj.stmt.id) continue;
              const ci: Ctx = { slot: i, txn: ti, iter: new Map(), side: [] };
              const cj: Ctx = { slot: j, txn: tj, iter: new Map(), side: [] };
              const sure = this.certainWrite(wj, cj);
              if (sure === null) continue;
              const fi = (ri.stmt as { fields: string[] }).fields;
              const fj = (rj.stmt as { fields: string[] }).fields;
              for (const x of wj.writes) {
                if (x === ALIVE) continue;
                const covered = fi.filter((f) => fj.includes(f) && !ri.table.key.includes(f) && this.onlyWrittenWith(ri.table.name, f, x));
                if (covered.length === 0) continue;
                const key = (a: Access, c: Ctx): A[] => a.table.key.map((k) => this.expr(a.exactKey!.get(k)!, c, null));
                const [ki, kj, kw] = [key(ri, ci), key(rj, cj), key(wj, cj)];
                const vi = (ri.stmt as { target: string }).target;
                const vj = (rj.stmt as { target: string }).target;
                const premise = Z.And(this.isType(i, ti.name), this.isType(j, tj.name), this.guard(ri, ci), this.guard(rj, cj), this.guard(wj, cj), sure,
                  this.unwritten(ri, ci), this.unwritten(rj, cj),
                  ...ki.map((k, n) => Z.And(k.eq(kj[n]!), k.eq(kw[n]!))),
                  Z.Not(this.bool(`${ti.name}_${i}_${vi}_null`)), Z.Not(this.bool(`${tj.name}_${j}_${vj}_null`)),
                  Z.Not(this.vis[j]![i]!), split, ...ci.side, ...cj.side);
                const same = covered.map((f) => this.int(`${ti.name}_${i}_${vi}.${f}`).eq(this.int(`${tj.name}_${j}_${vj}.${f}`)));
                this.constraints.push(Z.Implies(premise, Z.And(...same)));
              }
            }
          }
        }
      }
    }
  }

  /**
   * Pinned key-only SELECTs into tracked row sets, outside loops, after no write of their
   * transaction to the table other than pinned ones outside loops: they read the instance's view
   * of the record when `unwritten` holds.
   */
  private viewReads(t: Transaction): Access[] {
    return this.accesses(t).filter((a) => a.stmt.k === 'select' && a.stmt.agg === null && a.loops.length === 0
      && keyOnly(a.stmt.where, a.table) && this.tracked(t, a.stmt.target)
      && !this.accesses(t).some((b) => b.table === a.table && b.stmt.k !== 'select' && b.stmt.id < a.stmt.id && (b.exactKey === null || b.loops.length > 0)));
  }

  /** No earlier write of `a`'s instance (pinned, outside loops: viewReads) ran on `a`'s record. */
  private unwritten(a: Access, ctx: Ctx): B {
    const Z = this.Z;
    const key = a.table.key.map((k) => this.expr(a.exactKey!.get(k)!, ctx, null));
    return Z.And(...this.accesses(ctx.txn).filter((b) => b.table === a.table && b.stmt.k !== 'select' && b.stmt.id < a.stmt.id).map((b) => {
      const bc: Ctx = { slot: ctx.slot, txn: ctx.txn, iter: new Map(), side: [] };
      return Z.Not(Z.And(this.guard(b, bc), ...b.table.key.map((k, n) => this.expr(b.exactKey!.get(k)!, bc, null).eq(key[n]!))));
    }));
  }

  /**
   * Record existence in a slot's view (a2-findings.md F1): a per-slot, per-table Boolean function
   * of the key, the record's existence in the instance's view (the initial database and the
   * visible instances' writes; always true for a static table). A pinned key-only SELECT that
   * reads the view (no earlier write of its instance to the record) found the record iff it is
   * alive there; a pinned key-only UPDATE or DELETE outside loops reading the view writes iff it
   * is alive. So statements of one instance that address one record through different
   * expressions (K = p, K = q with p = q) agree, and two UPDATEs of a record alive in both
   * writers' views both write it: forcedWW makes them WW-related, as for static tables.
   */
  private aliveInView(i: number, t: Transaction): void {
    const Z = this.Z;
    const facts: B[] = [];
    for (const a of this.accesses(t)) {
      if (this.info.staticTables.has(a.table.name) || a.loops.length > 0 || a.stmt.k === 'insert' || !keyOnly(a.stmt.where, a.table)) continue;
      if (this.accesses(t).some((b) => b.table === a.table && b.stmt.k !== 'select' && b.stmt.id < a.stmt.id && (b.exactKey === null || b.loops.length > 0))) continue;
      const ctx: Ctx = { slot: i, txn: t, iter: new Map(), side: [] };
      const key = a.table.key.map((k) => this.expr(a.exactKey!.get(k)!, ctx, null));
      let fn = this.alive.get(`${i}|${a.table.name}`);
      if (fn === undefined) {
        fn = this.Z.Function.declare(`alive_${i}_${a.table.name}`, ...key.map(() => Z.Int.sort()), Z.Bool.sort()) as unknown as EffectFn;
        this.alive.set(`${i}|${a.table.name}`, fn);
      }
      let found: B | null = null;
      if (a.stmt.k === 'select' && a.stmt.agg === null && this.tracked(t, a.stmt.target)) found = Z.Not(this.bool(`${t.name}_${i}_${a.stmt.target}_null`));
      if (a.stmt.k === 'update' || a.stmt.k === 'delete') found = this.effect(a, ctx, key);
      if (found === null) continue;
      facts.push(Z.Implies(Z.And(this.guard(a, ctx), this.unwritten(a, ctx), ...ctx.side), found.eq(fn.call(...key))));
    }
    if (facts.length > 0) this.constraints.push(Z.Implies(this.isType(i, t.name), Z.And(...facts)));
  }

  /**
   * A preference (not a constraint): the closed world of an execution made of the slots alone.
   * The encoding must also admit cycles among the slots of larger executions, where an instance
   * outside the slots wrote what one slot reads and not the other (sameVersion above), but the
   * interpreter confirms a witness with its instances only; such a witness costs a try and is
   * refuted ("edge ... does not arise"). With no instance outside, two slots' reads of a record
   * that no slot visible to either may write read the initial database: the same existence and
   * the same values. queries.ts asks for a witness with the preferences first.
   */
  private closedWorld(i: number, j: number): void {
    const Z = this.Z;
    for (const ti of this.txns) {
      for (const tj of this.txns) {
        for (const ri of this.viewReads(ti)) {
          for (const rj of this.viewReads(tj)) {
            if (ri.table !== rj.table) continue;
            const ci: Ctx = { slot: i, txn: ti, iter: new Map(), side: [] };
            const cj: Ctx = { slot: j, txn: tj, iter: new Map(), side: [] };
            const key = ri.table.key.map((k) => this.expr(ri.exactKey!.get(k)!, ci, null));
            const keyJ = rj.table.key.map((k) => this.expr(rj.exactKey!.get(k)!, cj, null));
            const vi = (ri.stmt as { target: string }).target;
            const vj = (rj.stmt as { target: string }).target;
            const nullI = this.bool(`${ti.name}_${i}_${vi}_null`);
            const nullJ = this.bool(`${tj.name}_${j}_${vj}_null`);
            const base = [this.isType(i, ti.name), this.isType(j, tj.name), this.guard(ri, ci), this.guard(rj, cj), ...key.map((k, n) => k.eq(keyJ[n]!)),
              this.unwritten(ri, ci), this.unwritten(rj, cj)];
            const unseen = (f: string): B => Z.And(...[i, j].map((r) => this.noVisibleWriter(r, ri.table.name, f, key)));
            if (!this.info.staticTables.has(ri.table.name)) this.prefer.push(Z.Implies(Z.And(...base, unseen(ALIVE), ...ci.side, ...cj.side), nullI.eq(nullJ)));
            const fi = (ri.stmt as { fields: string[] }).fields;
            for (const f of (rj.stmt as { fields: string[] }).fields) {
              if (!fi.includes(f) || ri.table.key.includes(f)) continue;
              this.prefer.push(Z.Implies(Z.And(...base, Z.Not(nullI), Z.Not(nullJ), unseen(f), ...ci.side, ...cj.side),
                this.int(`${ti.name}_${i}_${vi}.${f}`).eq(this.int(`${tj.name}_${j}_${vj}.${f}`))));
            }
          }
        }
      }
    }
  }

  /** No slot visible to `reader` may write `field` of the record `key` (over-approximating the writes). */
  private noVisibleWriter(reader: number, table: string, field: string, key: A[]): B {
    const Z = this.Z;
    const out: B[] = [];
    for (let k = 0; k < this.n; k++) {
      if (k === reader) continue;
      for (const t of this.txns) {
        for (const b of this.accesses(t)) {
          if (b.table.name !== table || !b.writes.has(field)) continue;
          const bc: Ctx = { slot: k, txn: t, iter: new Map(), side: [] };
          const may = b.exactKey === null || b.loops.length > 0 ? Z.Bool.val(true)
            : Z.And(...b.table.key.map((x, n) => this.expr(b.exactKey!.get(x)!, bc, null).eq(key[n]!)));
          out.push(Z.Not(Z.And(this.vis[k]![reader]!, this.isType(k, t.name), b.loops.length > 0 ? Z.Bool.val(true) : this.guard(b, bc), may, ...bc.side)));
        }
      }
    }
    return Z.And(...out);
  }

  /** Every statement of the program that writes field `f` of `table` also writes field `x`. */
  private onlyWrittenWith(table: string, f: string, x: string): boolean {
    return this.info.access.every((a) => a.table.name !== table || !a.writes.has(f) || a.writes.has(x));
  }

  /**
   * A read of its own instance's write reads nothing from another. A predicate read (a
   * statement not pinned to one record) does not read a record its own instance writes at all
   * (interp.ts resolves it after the run, skipping the instance's own items); a pinned read
   * after its instance wrote the item reads that write (interp.ts: own writes first, no read
   * recorded), e.g. a SELECT of the key the instance has just inserted. So for each statement
   * of the instance (earlier, for a pinned read) that writes every one of `fields` on one
   * pinned record, outside loops, that record is not the one read.
   */
  private notOwnWrite(reader: Access, ctx: Ctx, fields: string[], key: A[]): B[] {
    if (reader.stmt.k === 'insert') return [];
    const Z = this.Z;
    const out: B[] = [];
    for (const b of this.accesses(ctx.txn)) {
      if (reader.exactKey !== null && b.stmt.id >= reader.stmt.id) continue;
      if (b.table !== reader.table || b.loops.length > 0 || b.exactKey === null || b.stmt.k === 'select') continue;
      if (!fields.every((f) => b.writes.has(f))) continue;
      const bc: Ctx = { slot: ctx.slot, txn: ctx.txn, iter: new Map(), side: [] };
      const bKey = b.table.key.map((k) => this.expr(b.exactKey!.get(k)!, bc, null));
      out.push(Z.Not(Z.And(this.guard(b, bc), this.effect(b, bc, bKey), ...bKey.map((x, n) => x.eq(key[n]!)))));
    }
    return out;
  }

  /**
   * Reads see the last visible writer (interp.ts): when slot `reader` reads the record from a
   * version older than slot `after`'s write (RW: `after` is the overwriting writer; WR: `after`
   * is the writer read from), no slot k visible to the reader, arbitrated after `after`, writes
   * all of `fields` on that record (outside loops, pinned to it, really writing it).
   */
  private noLaterVisibleWriter(reader: number, after: number, table: string, fields: string[], key: A[], exclude: number): B[] {
    const Z = this.Z;
    const out: B[] = [];
    for (let k = 0; k < this.n; k++) {
      if (k === reader || k === exclude) continue;
      for (const t of this.txns) {
        for (const b of this.accesses(t)) {
          if (b.table.name !== table || b.loops.length > 0 || b.exactKey === null || b.stmt.k === 'select') continue;
          if (!fields.every((f) => b.writes.has(f))) continue;
          const bc: Ctx = { slot: k, txn: t, iter: new Map(), side: [] };
          const bKey = b.table.key.map((x) => this.expr(b.exactKey!.get(x)!, bc, null));
          out.push(Z.Not(Z.And(this.isType(k, t.name), this.guard(b, bc), this.effect(b, bc, bKey), ...bKey.map((x, n) => x.eq(key[n]!)),
            this.vis[k]![reader]!, this.ar(after, k))));
        }
      }
    }
    return out;
  }

  /** When `a` certainly writes its pinned record (given its guard), or null if it never certainly does. */
  private certainWrite(a: Access, ctx: Ctx): B | null {
    if (a.loops.length > 0 || a.exactKey === null || a.stmt.k === 'select') return null;
    return this.effect(a, ctx, a.table.key.map((k) => this.expr(a.exactKey!.get(k)!, ctx, null)));
  }

  /**
   * Record existence: whether write statement `a` of slot `ctx.slot`, outside loops and pinned to
   * one record, really writes it when its guard holds — an UPDATE or DELETE only when it finds a
   * live record. Always for an INSERT (of a live key, it aborts its instance, which then has no
   * dependencies at all) and for an UPDATE of a static table; known from a found-record probe;
   * otherwise a per-slot Boolean the solver chooses, required by every dependency through that
   * write (and, negated, by a DELETE's read of the existence of the record it did not remove) and
   * by the forced WW between two such writes. Not pinned to one record: a per-slot predicate on
   * the record's key (`key`, the cause's record). In loops: true (no claim).
   */
  private effect(a: Access, ctx: Ctx, key: A[]): B {
    const Z = this.Z;
    if (a.stmt.k === 'select' || a.stmt.k === 'insert' || a.loops.length > 0) return Z.Bool.val(true);
    if (a.exactKey === null) {
      // A DELETE or UPDATE of a set of records: a per-slot predicate on the record's key.
      const name = `${ctx.txn.name}_${ctx.slot}_effect${a.stmt.id}`;
      let f = this.effects.get(name);
      if (f === undefined) {
        f = Z.Function.declare(name, ...key.map(() => Z.Int.sort()), Z.Bool.sort()) as unknown as EffectFn;
        this.effects.set(name, f);
      }
      return f.call(...key);
    }
    if (keyOnly(a.stmt.where, a.table)) {
      if (a.stmt.k === 'update' && this.info.staticTables.has(a.table.name)) return Z.Bool.val(true);
      const probe = this.foundProbe(a, ctx);
      if (probe !== null) return Z.Not(this.bool(`${ctx.txn.name}_${ctx.slot}_${probe}_null`));
    }
    return this.bool(`${ctx.txn.name}_${ctx.slot}_effect${a.stmt.id}`);
  }

  private accesses(t: Transaction): Access[] {
    return this.info.access.filter((a) => a.txn === t.name);
  }

  /** φ_basic (§4.2): vis ⊆ ar, WR ⊆ vis, WW ⊆ ar, RW ⊆ ¬vis⁻¹. */
  private basic(i: number, j: number): void {
    const Z = this.Z;
    this.constraints.push(
      Z.Implies(this.vis[i]![j]!, this.ar(i, j)),
      Z.Implies(this.rel.WR[i]![j]!, this.vis[i]![j]!),
      Z.Implies(this.rel.WW[i]![j]!, this.ar(i, j)),
      Z.Implies(this.rel.RW[i]![j]!, Z.Not(this.vis[j]![i]!)),
    );
  }

  private has(i: number, axiom: Axiom): B {
    const ts = this.txns.filter((t) => this.spec.axioms.get(t.name)!.has(axiom));
    return ts.length === 0 ? this.Z.Bool.val(false) : this.Z.Or(...ts.map((t) => this.isType(i, t.name)));
  }

  /** φ_Ψ: the axioms of each slot's model (models.ts), and selective serializability. */
  private axioms(): void {
    const Z = this.Z;
    const ids = Array.from({ length: this.n }, (_, i) => i);
    for (const i of ids) {
      for (const j of ids) {
        if (i === j) continue;
        this.constraints.push(Z.Implies(Z.And(this.has(j, 'ser'), this.ar(i, j)), this.vis[i]![j]!));
        this.constraints.push(Z.Implies(Z.And(Z.Or(this.has(i, 'psi'), this.has(j, 'psi')), this.rel.WW[i]![j]!), this.vis[i]![j]!));
        for (const [x, y] of this.spec.serializablePairs) {
          if (!this.txnIndex.has(x) || !this.txnIndex.has(y)) continue;
          const pair = Z.Or(Z.And(this.isType(i, x), this.isType(j, y)), Z.And(this.isType(i, y), this.isType(j, x)));
          this.constraints.push(Z.Implies(Z.And(pair, this.ar(i, j)), this.vis[i]![j]!));
        }
        for (const l of ids) {
          if (l === i || l === j) continue;
          this.constraints.push(Z.Implies(Z.And(this.has(l, 'cc'), this.vis[i]![j]!, this.vis[j]![l]!), this.vis[i]![l]!));
          this.constraints.push(Z.Implies(Z.And(this.has(l, 'pc'), this.ar(i, j), this.vis[j]![l]!), this.vis[i]![l]!));
        }
      }
    }
  }
}

/** WHERE is a conjunction of key equalities only (no other condition can make it miss). */
export function onlyKeyEqualities(a: Access): boolean {
  return a.stmt.k === 'insert' || keyOnly(a.stmt.where, a.table);
}
