/**
 * Confirms a predicted anomaly on the program's own semantics (interp.ts): runs the witness's
 * instances with its arbitration and visibility on small initial databases and checks that the
 * predicted cycle really arises and that the execution obeys the model.
 *
 * Takes: the analysed program, the model specification, a witness. Gives: whether it reproduced,
 * on which initial database, and the real run. Invariant: shares no code with the encoding; a
 * witness whose parameters break a REQUIRES clause is never confirmed.
 */

import { ALIVE, type ProgramInfo } from './lang/access.ts';
import type { Transaction } from './lang/ast.ts';
import type { ModelSpec } from './models.ts';
import { evalPred, runExecution, type InitialDb, type Run } from './interp.ts';
import type { Witness } from './queries.ts';

export interface Confirmation {
  reproduced: boolean;
  /** The initial value of unwritten fields and the initial rows that reproduced it. */
  initialValue: number | null;
  initialRows: InitialDb['rows'];
  run: Run | null;
  /** The initial database of the reproducing run (for --confirm --db). */
  db: InitialDb | null;
  /** Why not, when it did not reproduce. */
  reason: string;
}

/** Whether `args` lie in the transaction's parameter domain (its REQUIRES clause; integer arithmetic, x / 0 = 0). */
export function inDomain(txn: Transaction, args: readonly number[]): boolean {
  return evalPred(txn.requires, new Map(txn.params.map((p, i) => [p, args[i]!])), null);
}

export function confirmWitness(info: ProgramInfo, spec: ModelSpec, w: Witness): Confirmation {
  // Instances outside their transaction's REQUIRES are not executions of the program.
  const outside = w.execution.instances.findIndex((inst) => !inDomain(info.program.txns.find((t) => t.name === inst.txn)!, inst.args));
  if (outside >= 0) {
    const inst = w.execution.instances[outside]!;
    return { reproduced: false, initialValue: null, initialRows: [], run: null, db: null, reason: `T${outside + 1} = ${inst.txn}(${inst.args.join(', ')}) breaks the transaction's REQUIRES` };
  }
  const values = [...new Set([100, 0, 1, 10, ...w.locals.flatMap((l) => Object.values(l)), ...w.execution.instances.flatMap((x) => x.args)])].slice(0, 16);
  let reason = 'no initial database reproduced the cycle';
  // Initial databases tried: no rows, the cycle's records, and every record some instance looked
  // up (so that guards like "the course exists" can hold); unwritten fields hold v, or v plus or
  // minus the field's position (so that two fields can differ, e.g. a count below a capacity).
  // Also without the records an instance of the cycle inserts (they usually start absent).
  const all = initialRowsOf(info, w, false);
  const fresh = initialRowsOf(info, w, true);
  const bases = fresh.length === all.length ? [all] : [all, fresh];
  let base = all;
  const lookedUp = (run: Run): { table: string; values: Record<string, number | null> }[] => {
    const out = [...base];
    run.reads.forEach((rs) => {
      for (const item of rs.keys()) {
        const [table, key, field] = item.split('|');
        if (field !== ALIVE || info.staticTables.has(table!)) continue;
        if (base === fresh && run.writeValues.some((wv) => wv.get(item) === 1)) continue;
        const t = info.tables.get(table!)!;
        const ks = key!.split(',').map(Number);
        if (out.some((r) => r.table === table && t.key.every((k, i) => r.values[k] === ks[i]))) continue;
        out.push({ table: table!, values: Object.fromEntries(t.fields.map((f) => [f, t.key.includes(f) ? ks[t.key.indexOf(f)]! : null])) });
      }
    });
    return out;
  };
  const hint = (table: string, field: string): number | undefined => w.fieldValues.find((x) => x.table === table && x.field === field)?.value;
  for (const b0 of bases) {
  base = b0;
  for (const useHints of [true, false]) {
  for (const slope of [0, 1, -1]) {
    for (const v of values) {
      const fill = (table: string, field: string): number => (useHints ? hint(table, field) : undefined) ?? v + slope * info.tables.get(table)!.fields.indexOf(field);
      let rows: { table: string; values: Record<string, number | null> }[] = [];
      for (let round = 0; round < 4; round++) {
        const db: InitialDb = {
          value: fill,
          rows: rows.map((r) => ({ table: r.table, values: Object.fromEntries(Object.entries(r.values).map(([f, x]) => [f, x ?? fill(r.table, f)])) })),
        };
        const run = runExecution(info, w.execution, db);
        const missing = w.cycle.find((e) => !run.edges.some((x) => x.from === e.from && x.to === e.to));
        const broken = missing === undefined ? violatedAxiom(info, spec, w, run) : null;
        if (missing === undefined && broken === null) return { reproduced: true, initialValue: v, initialRows: db.rows, run, db, reason: '' };
        reason = missing !== undefined ? `edge ${e2s(missing)} does not arise` : broken!;
        const next = round === 0 ? base : lookedUp(run);
        if (next.length === rows.length && round > 0) break;
        rows = next;
      }
    }
  }
  }
  }
  return { reproduced: false, initialValue: null, initialRows: [], run: null, db: null, reason };
}

function e2s(e: { from: number; to: number; kind: string }): string {
  return `T${e.from + 1} -${e.kind}-> T${e.to + 1}`;
}

/** Rows of inserted-into tables that the cycle's edges name, present at the start. */
function initialRowsOf(info: ProgramInfo, w: Witness, skipInserted: boolean): { table: string; values: Record<string, number | null> }[] {
  const out: { table: string; values: Record<string, number | null> }[] = [];
  for (const e of w.cycle) {
    if (info.staticTables.has(e.table)) continue;
    if (skipInserted && [e.stmtFrom, e.stmtTo].some((s) => info.program.stmts[s]!.stmt.k === 'insert')) continue;
    const t = info.tables.get(e.table)!;
    const values: Record<string, number | null> = {};
    t.fields.forEach((f) => { values[f] = t.key.includes(f) ? e.key[t.key.indexOf(f)]! : null; });
    if (!out.some((r) => r.table === e.table && t.key.every((k) => r.values[k] === values[k]))) out.push({ table: e.table, values });
  }
  return out;
}

/** The model's axioms checked on the real execution (its WW edges, visibility and arbitration). */
function violatedAxiom(info: ProgramInfo, spec: ModelSpec, w: Witness, run: Run): string | null {
  const { instances, ar, vis } = w.execution;
  const n = instances.length;
  const pos = new Array<number>(n);
  ar.forEach((i, p) => { pos[i] = p; });
  const ax = (i: number) => spec.axioms.get(instances[i]!.txn)!;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      if (vis[i]![j] && pos[i]! > pos[j]!) return 'visibility is not contained in arbitration';
      if (ax(j).has('ser') && pos[i]! < pos[j]! && !vis[i]![j]) return `T${j + 1} is serializable but does not see T${i + 1}`;
      const ww = run.edges.some((e) => e.from === i && e.to === j && e.kind === 'WW');
      if (ww && (ax(i).has('psi') || ax(j).has('psi')) && !vis[i]![j]) return `write conflict T${i + 1}, T${j + 1} without visibility (PSI)`;
      for (const [x, y] of spec.serializablePairs) {
        const a = instances[i]!.txn;
        const b = instances[j]!.txn;
        if (((a === x && b === y) || (a === y && b === x)) && pos[i]! < pos[j]! && !vis[i]![j]) return `selective serializability of ${x} with ${y}`;
      }
      for (let l = 0; l < n; l++) {
        if (l === i || l === j) continue;
        if (ax(l).has('cc') && vis[i]![j] && vis[j]![l] && !vis[i]![l]) return 'causality (cc)';
        if (ax(l).has('pc') && pos[i]! < pos[j]! && vis[j]![l] && !vis[i]![l]) return 'prefix consistency (pc)';
      }
    }
  }
  void info;
  return null;
}
