/**
 * The probe's catalogue: deterministic scenarios, each a list of steps over two to four
 * connections, after Hermitage (github ept/hermitage, postgres.md and mysql.md) and beyond it.
 *
 * Takes: nothing (a table). Gives: `SCENARIOS` in table order, each with its steps parsed from a
 * small step language, and `parseSteps` (for tests that bring their own scenario).
 * Invariant: a scenario says only what to do, never what should happen: the probe's table is
 * filled from what the checker finds in the recorded history (judge.ts), not from here. Written
 * values are unique per key (the checker needs it); every key starts at its initial value (NULL,
 * Hermitage's 10 and 20 become "initial"); each transaction runs on its own connection and ends
 * with `c` (commit) or `a` (rollback).
 *
 * Step language: `T1 r x` reads x, `T1 w x 11` writes 11 to x, `T1 c` commits, `T1 a` rolls
 * back; steps separated by `;`. Predicates (issue 22): `T1 ins x 30` inserts row x with 30,
 * `T1 del x` deletes it, `T1 sel PREDICATE` and `T1 cnt PREDICATE` read the scenario's relation
 * by a predicate (history/predicate.ts, e.g. `value % 3 = 0`; about values only: the rows'
 * keys are the scenario's names). The keys a scenario inserts or deletes form its relation
 * (`test`, as in Hermitage; rows start absent, so Hermitage's rows 1 => 10, 2 => 20 are
 * inserted by a first transaction); `r` / `w` of such a key read / update the row.
 */

import type { LevelName } from '../result/types.ts';
import { parsePredicate, PredicateSyntaxError } from '../history/predicate.ts';

export type StepOp = 'r' | 'w' | 'c' | 'a' | 'ins' | 'del' | 'sel' | 'cnt';

/** The name of a scenario's relation in its recorded history (Hermitage's table). */
export const RELATION = 'test';

export interface Step {
  /** The transaction (and connection), 0-based: T1 is 0. */
  txn: number;
  op: StepOp;
  /** The key's name (r, w), '' otherwise. */
  key: string;
  /** The value written (w, ins), 0 otherwise. */
  value: number;
  /** The predicate of sel / cnt, '' otherwise. */
  pred: string;
}

export interface Scenario {
  /** Short id (the table's row, file names): 'G0', 'P4', 'long-fork'. */
  id: string;
  title: string;
  /** Where it comes from (Hermitage's test, a paper). */
  source: string;
  /** The steps in the order they are sent; empty when not expressible. */
  steps: Step[];
  /** Transactions (connections) taking part. */
  txns: number;
  /** Keys used, in order of first use. */
  keys: string[];
  /** The keys that are rows of the relation (inserted or deleted somewhere), in order of first use; [] for none. */
  relation: string[];
  /**
   * The level whose definition rules out the anomaly the scenario is about (docs/levels.md): a
   * run shows the anomaly when its history violates this level. This is the question the
   * scenario asks, not its answer: the checker decides, and whatever else a run violates is
   * reported beside it.
   */
  probes: LevelName;
  /** Why the probe cannot run it, when it cannot ('' otherwise). */
  notExpressible: string;
}

/** Parses the step language; throws an Error naming the step for anything else. */
export function parseSteps(text: string): Step[] {
  const out: Step[] = [];
  for (const raw of text.split(';')) {
    const s = raw.trim();
    if (s === '') continue;
    const pm = /^T([1-9])\s+(sel|cnt)\s+(.+)$/.exec(s);
    if (pm !== null) {
      try {
        parsePredicate(pm[3]!);
      } catch (err) {
        if (err instanceof PredicateSyntaxError) throw new Error(`step "${s}": predicate ${err.message}`);
        throw err;
      }
      out.push({ txn: Number(pm[1]) - 1, op: pm[2] as StepOp, key: '', value: 0, pred: pm[3]!.trim() });
      continue;
    }
    const m = /^T([1-9])\s+(r|w|c|a|ins|del)(?:\s+([a-z]\w*))?(?:\s+(-?\d+))?$/.exec(s);
    if (m === null) {
      throw new Error(`step "${s}": expected "T<n> r KEY", "T<n> w KEY VALUE", "T<n> ins KEY VALUE", "T<n> del KEY", "T<n> sel PREDICATE", "T<n> cnt PREDICATE", "T<n> c" or "T<n> a"`);
    }
    const op = m[2] as StepOp;
    const key = m[3] ?? '';
    const needsKey = op === 'r' || op === 'w' || op === 'ins' || op === 'del';
    const needsValue = op === 'w' || op === 'ins';
    if (needsKey !== (key !== '') || needsValue !== (m[4] !== undefined)) throw new Error(`step "${s}": wrong operands for ${op}`);
    out.push({ txn: Number(m[1]) - 1, op, key, value: m[4] === undefined ? 0 : Number(m[4]), pred: '' });
  }
  checkSteps(out);
  return out;
}

/** Each txn ends exactly once, with nothing after its end; written values are unique per key. */
function checkSteps(steps: readonly Step[]): void {
  const ended = new Set<number>();
  const written = new Set<string>();
  const used = new Set<number>();
  for (const s of steps) {
    if (ended.has(s.txn)) throw new Error(`T${s.txn + 1} has a step after its commit or rollback`);
    used.add(s.txn);
    if (s.op === 'c' || s.op === 'a') ended.add(s.txn);
    if (s.op === 'w' || s.op === 'ins') {
      const id = `${s.key}=${s.value}`;
      if (written.has(id)) throw new Error(`${s.key} is written ${s.value} twice: values must be unique per key`);
      written.add(id);
    }
  }
  for (const t of used) if (!ended.has(t)) throw new Error(`T${t + 1} never commits or rolls back`);
  for (let t = 0; t < used.size; t++) if (!used.has(t)) throw new Error(`T${t + 1} is missing (transactions are numbered from T1 up)`);
}

/** A scenario from its step text. */
export function scenario(id: string, title: string, probes: LevelName, source: string, steps: string): Scenario {
  const parsed = parseSteps(steps);
  const keys: string[] = [];
  for (const s of parsed) if (s.key !== '' && !keys.includes(s.key)) keys.push(s.key);
  const rows = new Set(parsed.filter((s) => s.op === 'ins' || s.op === 'del').map((s) => s.key));
  if (rows.size === 0 && parsed.some((s) => s.op === 'sel' || s.op === 'cnt')) throw new Error(`scenario ${id}: a predicate read, but no row is ever inserted`);
  const relation = keys.filter((k) => rows.has(k));
  return { id, title, source, steps: parsed, txns: new Set(parsed.map((s) => s.txn)).size, keys, relation, probes, notExpressible: '' };
}

// The probed level of each: G0 is what PL-1 (read uncommitted) rules out; G1a-c and OTV what read
// committed rules out (OTV by Biswas and Enea's read committed, whose reads never go back to a
// version older than one already seen); a lost update what NOCONFLICT (PSI, and so SI) rules
// out; read skew what SI rules out; write skew (G2-item) what PL-2.99 rules out; the read-only
// anomaly, a cycle SI allows, what serializability rules out; a long fork what prefix
// consistency rules out; a fractured read what read atomic rules out; a causality violation
// what causal consistency rules out.
const H = 'Hermitage (ept/hermitage, postgres.md / mysql.md)';

export const SCENARIOS: readonly Scenario[] = [
  scenario('G0', 'write cycle (dirty write)', 'ru', H,
    'T1 w x 11; T2 w x 12; T1 w y 21; T1 c; T2 w y 22; T2 c'),
  scenario('G1a', 'aborted read', 'rc', H,
    'T1 w x 101; T2 r x; T1 a; T2 r x; T2 c'),
  scenario('G1b', 'intermediate read', 'rc', H,
    'T1 w x 101; T2 r x; T1 w x 11; T1 c; T2 r x; T2 c'),
  scenario('G1c', 'circular information flow', 'rc', H,
    'T1 w x 11; T2 w y 22; T1 r y; T2 r x; T1 c; T2 c'),
  // mysql.md's order: T3 reads both keys once T1 committed and T2's write of x was released.
  scenario('OTV', 'observed transaction vanishes', 'rc', H,
    'T1 w x 11; T1 w y 19; T2 w x 12; T1 c; T3 r x; T3 r y; T2 w y 18; T3 r x; T3 r y; T2 c; T3 r x; T3 r y; T3 c'),
  // postgres.md's rows 1 => 10, 2 => 20 are inserted by T1; then T2 reads by one predicate, T3
  // inserts a row matching the next one and commits, and T2 reads by that predicate.
  scenario('PMP', 'predicate-many-preceders', 'si', H,
    'T1 ins a 10; T1 ins b 20; T1 c; T2 sel value = 30; T3 ins c 30; T3 c; T2 sel value % 3 = 0; T2 c'),
  scenario('P4', 'lost update', 'psi', H,
    'T1 r x; T2 r x; T1 w x 11; T2 w x 12; T1 c; T2 c'),
  scenario('G-single', 'read skew (read-only reader)', 'si', H,
    'T1 r x; T2 r x; T2 r y; T2 w x 12; T2 w y 18; T2 c; T1 r y; T1 c'),
  // Hermitage's write variant deletes by a predicate (value = 20); this is its item-level form:
  // T1 read x before T2's commit and then overwrites T2's y.
  scenario('G-single-write', 'read skew with a write (item form of the write-predicate test)', 'si', H,
    'T1 r x; T2 r x; T2 r y; T2 w x 12; T2 w y 18; T2 c; T1 w y 19; T1 c'),
  scenario('G2-item', 'write skew', 'rr', H,
    'T1 r x; T1 r y; T2 r x; T2 r y; T1 w x 11; T2 w y 21; T1 c; T2 c'),
  // Both read `value % 3 = 0` and insert a row matching it: each misses the other's insert.
  scenario('G2', 'anti-dependency cycle over a predicate', 'ser', H,
    'T1 ins a 10; T1 ins b 20; T1 c; T2 sel value % 3 = 0; T3 sel value % 3 = 0; T2 ins c 30; T3 ins d 42; T2 c; T3 c'),
  scenario('read-only-anomaly', 'read-only transaction anomaly', 'ser',
    'Fekete, O\'Neil, O\'Neil, "A read-only transaction anomaly under snapshot isolation" (SIGMOD Record 2004); Hermitage postgres.md',
    'T1 r x; T1 r y; T2 r y; T2 w y 25; T2 c; T3 r x; T3 r y; T3 c; T1 w x 1; T1 c'),
  scenario('long-fork', 'long fork (two writers, two readers after both committed)', 'pc',
    'Cerone, Bernardi, Gotsman (CONCUR 2015); Jepsen',
    'T1 w x 1; T2 w y 1; T1 c; T2 c; T3 r x; T3 r y; T3 c; T4 r y; T4 r x; T4 c'),
  scenario('fractured-read', 'fractured read across two keys (sees one of a transaction\'s writes, not the other)', 'ra',
    'Bailis et al., read atomic isolation (SIGMOD 2014)',
    'T2 r y; T1 w x 1; T1 w y 1; T1 c; T2 r x; T2 c'),
  scenario('lost-update-rmw', 'lost update by read-modify-write (the second writer writes after the first committed)', 'psi',
    'Berenson et al. (SIGMOD 1995), P4 without a concurrent write',
    'T1 r x; T2 r x; T1 w x 11; T1 c; T2 w x 12; T2 c'),
  // T2 saw row a present, T3 deleted it and committed, then T2 inserted a: the two wrote row a
  // concurrently (NOCONFLICT; SI's first-committer-wins). Found by `--workload predicate` on
  // PostgreSQL repeatable read, whose unique check looks at the latest committed state, not T2's
  // snapshot (docs/probe.md).
  scenario('insert-after-delete', 'insert of a row a concurrent transaction deleted, after seeing it present', 'psi',
    'found by polysi\'s predicate workload (PostgreSQL repeatable read); a form of P4 over a row\'s existence',
    'T1 ins a 10; T1 c; T2 sel value = 10; T3 del a; T3 c; T2 ins a 20; T2 c'),
  scenario('causality', 'causality across three sessions (a reader sees an effect but not its cause)', 'tcc',
    'Cerone, Bernardi, Gotsman (CONCUR 2015), causal consistency',
    'T1 w x 1; T1 c; T2 r x; T2 w y 1; T2 c; T3 r y; T3 r x; T3 c'),
];

export function findScenario(id: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.id === id);
}
