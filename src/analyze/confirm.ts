/**
 * Confirms a predicted anomaly on the program's own semantics (interp.ts): runs the witness's
 * instances with its arbitration and visibility on small initial databases and checks that the
 * predicted cycle really arises and that the execution obeys the model. Also confirms a
 * chordless path of the shortest-path proof (serially, or in the model's order): the evidence
 * that the proof cannot apply.
 *
 * Takes: the analysed program, the model specification, a witness (a cycle or a path). Gives:
 * whether it reproduced, on which initial database, and the real run. Invariant: shares no code with the encoding; a
 * witness whose parameters break a REQUIRES clause is never confirmed.
 */

import { ALIVE, type ProgramInfo } from './lang/access.ts';
import type { Transaction } from './lang/ast.ts';
import type { ModelSpec } from './models.ts';
import { evalPred, runExecution, type AbstractExecution, type InitialDb, type Run } from './interp.ts';
import type { PathWitness, Witness, WitnessEdge } from './queries.ts';

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
  const refused = outsideDomain(info, w.execution);
  if (refused !== null) return refused;
  return searchDatabases(info, w, w.cycle, w.execution, (run) => {
    const missing = w.cycle.find((e) => !run.edges.some((x) => x.from === e.from && x.to === e.to));
    if (missing !== undefined) return `edge ${e2s(missing)} does not arise`;
    return violatedAxiom(spec, w.execution, run);
  });
}

/** How a chordless path was confirmed: the order its instances ran in. */
export type PathOrder = 'serial' | 'model';

export interface PathConfirmation extends Confirmation {
  /** 'serial': instance 0, then 1, ..., each seeing all before it (valid under every model); 'model': the model's arbitration and visibility. */
  order: PathOrder | null;
  /** The execution that reproduced the path (the serial one, or the model's). */
  execution: AbstractExecution | null;
  /**
   * When not reproduced: the path's edges (indices) to blame, those missing from the runs that
   * came closest (fewest missing edges; [] if some run had every edge but a chord too).
   */
  blame: number[];
}

/**
 * Confirms a chordless dependency path (queries.ts shortestPath): runs its instances with the
 * model's parameters, first serially in path order (a serial execution is one of every
 * model's), then in the model's arbitration and visibility (checking the model's axioms), and
 * accepts a run in which every edge i → i+1 of the path is a real dependency and no chord
 * (a dependency i → j, j ≥ i + 2) is. Such a run is a real execution with a shortest path of
 * length k, so no sound encoding can prove serializability by Theorem 10 at this k.
 */
export function confirmPath(info: ProgramInfo, spec: ModelSpec, w: PathWitness): PathConfirmation {
  const refused = outsideDomain(info, w.execution);
  if (refused !== null) return { ...refused, order: null, execution: null, blame: [] };
  const n = w.execution.instances.length;
  const serial: AbstractExecution = {
    instances: w.execution.instances,
    ar: Array.from({ length: n }, (_, i) => i),
    vis: Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => i < j)),
  };
  let fewest = Infinity;
  let blame = new Set<number>();
  let reason = '';
  for (const [order, exec] of [['serial', serial], ['model', w.execution]] as const) {
    // The reason reported is that of the run that came closest (fewest missing edges).
    let closest = { missing: Infinity, reason: '' };
    const c = searchDatabases(info, w, w.path, exec, (run) => {
      const absent = w.path.map((e, i) => (run.edges.some((x) => x.from === e.from && x.to === e.to) ? -1 : i)).filter((i) => i >= 0);
      if (absent.length < fewest) { fewest = absent.length; blame = new Set(); }
      if (absent.length === fewest) for (const i of absent) blame.add(i);
      const chord = run.edges.find((x) => x.to >= x.from + 2);
      const why = absent.length > 0 ? `edge ${e2s(w.path[absent[0]!]!)} does not arise`
        : chord !== undefined ? `chord ${e2s(chord)} (${chord.item}) arises`
          : violatedAxiom(spec, exec, run);
      if (why !== null && absent.length < closest.missing) closest = { missing: absent.length, reason: why };
      return why;
    });
    if (c.reproduced) return { ...c, order, execution: exec, blame: [] };
    reason += `${reason === '' ? '' : '; '}${order === 'serial' ? 'serially' : "in the model's order"}: ${closest.reason === '' ? c.reason : closest.reason}`;
  }
  return { reproduced: false, initialValue: null, initialRows: [], run: null, db: null, reason, order: null, execution: null, blame: [...blame].sort() };
}

/** Instances outside their transaction's REQUIRES are not executions of the program. */
function outsideDomain(info: ProgramInfo, exec: AbstractExecution): Confirmation | null {
  const outside = exec.instances.findIndex((inst) => !inDomain(info.program.txns.find((t) => t.name === inst.txn)!, inst.args));
  if (outside < 0) return null;
  const inst = exec.instances[outside]!;
  return { reproduced: false, initialValue: null, initialRows: [], run: null, db: null, reason: `T${outside + 1} = ${inst.txn}(${inst.args.join(', ')}) breaks the transaction's REQUIRES` };
}

/**
 * Runs `exec` on small initial databases until `accept` (null = accepted, else why not) holds.
 * `w` gives the hints (locals, field values, arguments) and `edges` the records to start with.
 */
function searchDatabases(
  info: ProgramInfo, w: Pick<Witness, 'execution' | 'locals' | 'fieldValues'>, edges: readonly WitnessEdge[], exec: AbstractExecution, accept: (run: Run) => string | null,
): Confirmation {
  const values = [...new Set([100, 0, 1, 10, ...w.locals.flatMap((l) => Object.values(l)), ...w.execution.instances.flatMap((x) => x.args)])].slice(0, 16);
  let reason = 'no initial database reproduced the cycle';
  // Initial databases tried: no rows, the cycle's records, and every record some instance looked
  // up (so that guards like "the course exists" can hold); unwritten fields hold v, or v plus or
  // minus the field's position (so that two fields can differ, e.g. a count below a capacity).
  // Also without the records an instance of the cycle inserts (they usually start absent).
  const all = initialRowsOf(info, edges, false);
  const fresh = initialRowsOf(info, edges, true);
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
        const run = runExecution(info, exec, db);
        const why = accept(run);
        if (why === null) return { reproduced: true, initialValue: v, initialRows: db.rows, run, db, reason: '' };
        reason = why;
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

/** Rows of inserted-into tables that the edges name, present at the start. */
function initialRowsOf(info: ProgramInfo, edges: readonly WitnessEdge[], skipInserted: boolean): { table: string; values: Record<string, number | null> }[] {
  const out: { table: string; values: Record<string, number | null> }[] = [];
  for (const e of edges) {
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
function violatedAxiom(spec: ModelSpec, exec: AbstractExecution, run: Run): string | null {
  const { instances, ar, vis } = exec;
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
  return null;
}
