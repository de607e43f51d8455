/**
 * `polysi probe` as a library: every scenario of the catalogue, at every isolation level the
 * database offers, N times each, each run recorded and judged by the checker.
 *
 * Takes: a `--db` spec (a PostgreSQL or MySQL/MariaDB URL, or `memory[:MODE]`), the levels to
 * probe (default: all the database offers), the repeat count and timing options, an output
 * directory, progress hooks and an AbortSignal. Gives: a ProbeResult (types.ts); the histories
 * stay in the output directory, one file per run (LEVEL/SCENARIO-RUN.jsonl).
 * Invariants: a cell is filled only from judged runs (judge.ts); the histories are written as the
 * runs go, so Ctrl-C leaves every finished run on disk and the result marks unfinished cells
 * incomplete; the library never prints. A database that cannot be reached is a DbError
 * `unreachable` (thrown); a level the database refuses is reported, not thrown.
 */

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../run/databases.ts';
import { redactUrl } from '../run/targets.ts';
import { MemoryTarget } from '../run/store/memory.ts';
import { MEMORY_MODES, modeInfo, type MemoryMode } from '../run/store/modes.ts';
import { DbError, type Connection, type IsolationLevel, type Target } from '../run/types.ts';
import { strongestOf } from '../result/lattice.ts';
import { LEVEL_NAMES, type LevelName } from '../result/types.ts';
import { Random } from '../util/random.ts';
import { anomalyAt, judgeRun, type JudgedAnomaly } from './judge.ts';
import { laneOf, PROBE_RELATION, runScenario, type Lane } from './schedule.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';
import { cellOutcome, type Cell, type CellAnomaly, type LevelReport, type ProbeResult } from './types.ts';

export type DbKind = ProbeResult['kind'];

/** The isolation levels each kind of database offers, weakest first. */
export const DB_LEVELS: Record<Exclude<DbKind, 'memory'>, readonly IsolationLevel[]> = {
  postgres: ['read-committed', 'repeatable-read', 'serializable'],
  mysql: ['read-uncommitted', 'read-committed', 'repeatable-read', 'snapshot', 'serializable'],
};

/** The level of ours a database's level name claims (ANSI names read as Adya's; snapshot as SI). */
export const CLAIMED: Record<IsolationLevel, LevelName> = {
  'read-uncommitted': 'ru',
  'read-committed': 'rc',
  'repeatable-read': 'rr',
  'snapshot': 'si',
  'serializable': 'ser',
};

/** What an embedded store mode claims: its isolation level, or the level its fault breaks. */
export function memoryClaim(mode: MemoryMode): LevelName {
  if (mode === 'read-committed') return 'rc';
  return modeInfo(mode)!.level;
}

/**
 * Default repeat count. The scenarios are deterministic step lists, so most cells come out the
 * same in every run; repeats are there for what timing can change (a blocked step released
 * before or after the next one; the embedded store's seeded faults, the rarest of which shows
 * in about one run in eight). 10 runs miss a one-in-eight event with probability 0.26 per cell
 * but a fault mode shows in several cells; and at 10, one database at all its levels fits in
 * the 5-minute budget on a loaded 2-core machine (docs/probe.md has the figures).
 */
export const REPEAT_DEFAULT = 10;
export const BLOCK_MS_DEFAULT = 200;
export const JITTER_MS_DEFAULT = 2;
/** Per-transaction deadline on databases; the server's lock wait is bounded at half of it. */
export const TXN_TIMEOUT_MS_DEFAULT = 4000;

export interface ProbeOptions {
  db: string;
  /** Levels (database names, or memory modes) to probe; default all the database offers. */
  levels?: readonly string[];
  repeat?: number;
  blockMs?: number;
  jitterMs?: number;
  txnTimeoutMs?: number;
  outDir: string;
  seed?: number;
  /** Prefix of the probe's table on a database (default polysi_probe; it is dropped at the end). */
  tablePrefix?: string;
  /** Scenarios to run (default the catalogue); tests bring their own. */
  scenarios?: readonly Scenario[];
  signal?: AbortSignal;
  onProgress?: (e: ProbeProgress) => void;
}

export interface ProbeProgress {
  level: string;
  scenario: string;
  run: number;
  /** Runs judged so far, of `total` planned over the whole probe. */
  done: number;
  total: number;
}

export class ProbeUsageError extends Error {}

export function dbKind(spec: string): DbKind {
  if (spec === 'memory' || spec.startsWith('memory:')) return 'memory';
  if (/^postgres(ql)?:\/\//i.test(spec)) return 'postgres';
  if (/^(mysql|mariadb):\/\//i.test(spec)) return 'mysql';
  throw new ProbeUsageError(`--db: expected memory[:MODE], postgres://... or mysql://...`);
}

/** The levels to probe for `spec`, checked against what it offers. */
export function probeLevels(spec: string, asked?: readonly string[]): string[] {
  const kind = dbKind(spec);
  let offered: readonly string[];
  if (kind === 'memory') {
    const mode = spec === 'memory' ? '' : spec.slice('memory:'.length);
    if (mode !== '' && modeInfo(mode) === undefined) {
      throw new ProbeUsageError(`unknown memory mode "${mode}"; modes: ${MEMORY_MODES.map((m) => m.name).join(', ')}`);
    }
    offered = mode === '' ? MEMORY_MODES.map((m) => m.name) : [mode];
  } else {
    offered = DB_LEVELS[kind];
  }
  if (asked === undefined || asked.length === 0) return [...offered];
  for (const l of asked) {
    if (!offered.includes(l)) throw new ProbeUsageError(`--levels: "${l}" is not a level of this database; it offers ${offered.join(', ')}`);
  }
  return offered.filter((l) => asked.includes(l));
}

function emptyCell(sc: Scenario, planned: number): Cell {
  return {
    scenario: sc.id, outcome: sc.notExpressible !== '' ? 'not-expressible' : 'not-exercised', runs: 0,
    planned: sc.notExpressible !== '' ? 0 : planned, incomplete: false,
    probes: sc.probes, allowedRuns: 0, blockedRuns: 0, abortedRuns: 0, unknownRuns: 0, undecidedRuns: 0, abortCodes: {}, violated: [], undecided: [], anomaly: null, other: null,
  };
}

export async function probe(opts: ProbeOptions): Promise<ProbeResult> {
  const t0 = performance.now();
  const kind = dbKind(opts.db);
  const levels = probeLevels(opts.db, opts.levels);
  const scenarios = opts.scenarios ?? SCENARIOS;
  const runnable = scenarios.filter((s) => s.notExpressible === '');
  const repeat = opts.repeat ?? REPEAT_DEFAULT;
  const blockMs = opts.blockMs ?? BLOCK_MS_DEFAULT;
  const jitterMs = opts.jitterMs ?? (kind === 'memory' ? 0 : JITTER_MS_DEFAULT);
  const txnTimeoutMs = opts.txnTimeoutMs ?? TXN_TIMEOUT_MS_DEFAULT;
  if (!Number.isInteger(repeat) || repeat < 1) throw new ProbeUsageError(`--repeat takes a positive integer, got ${repeat}`);
  const rng = new Random(opts.seed ?? 1);
  const result: ProbeResult = {
    schemaVersion: 1, database: kind === 'memory' ? opts.db : redactUrl(opts.db), kind, repeat, blockMs, outDir: opts.outDir,
    interrupted: false, elapsedMs: 0,
    scenarios: scenarios.map((s) => ({ id: s.id, title: s.title, source: s.source, steps: stepsText(s), notExpressible: s.notExpressible })),
    levels: [],
  };
  const total = levels.length * runnable.length * repeat;
  let done = 0;
  const lanesMax = Math.max(1, ...runnable.map((s) => s.txns));
  const keysPerLevel = runnable.reduce((n, s) => n + s.keys.length * repeat, 0);

  let target: Target | null = null;
  if (kind !== 'memory') {
    target = openDatabase(opts.db, { txnTimeoutMs, lockTimeoutMs: Math.floor(txnTimeoutMs / 2), tablePrefix: opts.tablePrefix ?? 'polysi_probe' });
    // Every run gets keys of its own, so no run sees another's values and nothing is reset.
    // Predicate scenarios share one relation table; each run reads only its own rows (schedule.ts).
    const relations = runnable.some((s) => s.relation.length > 0) ? [{ name: PROBE_RELATION, keys: [] }] : [];
    await target.setup(levels.length * keysPerLevel + 1, { registers: true, lists: false, relations });
  }
  try {
    let keyNext = 1;
    for (const level of levels) {
      const report: LevelReport = {
        level, claimed: kind === 'memory' ? memoryClaim(level as MemoryMode) : CLAIMED[level as IsolationLevel],
        refused: '', actual: [], runs: 0, cells: scenarios.map((s) => emptyCell(s, repeat)),
      };
      result.levels.push(report);
      const iso: IsolationLevel = kind === 'memory' ? 'snapshot' : level as IsolationLevel;
      let conns: Connection[] = [];
      if (target !== null) {
        conns = await connectLanes(target, lanesMax);
        report.refused = await refusal(laneOf(conns[0]!), iso);
      }
      const satisfiedByAll = new Set<LevelName>(LEVEL_NAMES);
      try {
        mkdirSync(join(opts.outDir, level), { recursive: true });
        for (const sc of runnable) {
          const cell = report.cells.find((c) => c.scenario === sc.id)!;
          for (let run = 1; run <= repeat; run++) {
            const keys = sc.keys.map(() => keyNext++);
            if (report.refused !== '' || opts.signal?.aborted === true) continue;
            const file = join(opts.outDir, level, `${sc.id}-${run}.jsonl`);
            let lanes: Lane[];
            let memory: MemoryTarget | null = null;
            if (target === null) {
              memory = new MemoryTarget(level as MemoryMode, rng.uint32());
              const rows = sc.relation.map((k) => keys[sc.keys.indexOf(k)]!);
              await memory.setup(0, { registers: true, lists: false, relations: [{ name: PROBE_RELATION, keys: rows }] });
              lanes = [];
              for (let s = 0; s < sc.txns; s++) lanes.push(laneOf(await memory.connect(s)));
            } else {
              lanes = conns.map(laneOf);
            }
            const rec = await runScenario(sc, lanes, keys, file, {
              isolation: iso, blockMs, jitterMs, random: () => rng.next(), settleMs: txnTimeoutMs * 2,
            });
            if (rec.unsettled) continue;
            const verdict = await judgeRun(file);
            const c = cell;
            c.runs++;
            report.runs++;
            if (rec.blocked.length > 0) c.blockedRuns++;
            if (rec.aborts.length > 0) c.abortedRuns++;
            if (rec.unknown > 0) c.unknownRuns++;
            for (const a of rec.aborts) c.abortCodes[a.code] = (c.abortCodes[a.code] ?? 0) + 1;
            for (const l of LEVEL_NAMES) if (!verdict.satisfied.includes(l)) satisfiedByAll.delete(l);
            c.violated = LEVEL_NAMES.filter((l) => c.violated.includes(l) || verdict.violated.includes(l));
            c.undecided = LEVEL_NAMES.filter((l) => c.undecided.includes(l) || verdict.undecided.includes(l));
            const shown = anomalyAt(verdict, sc.probes);
            if (shown === null && verdict.undecided.includes(sc.probes)) c.undecidedRuns++;
            if (shown !== null) {
              c.allowedRuns++;
              c.anomaly ??= cellAnomaly(shown, file);
            } else if (verdict.anomalies.length > 0) {
              c.other ??= cellAnomaly(verdict.anomalies[0]!, file);
            }
            done++;
            opts.onProgress?.({ level, scenario: sc.id, run, done, total });
          }
          const c = cell;
          c.incomplete = c.runs < c.planned;
          c.outcome = cellOutcome(c);
          if (c.anomaly !== null) c.other = null;
        }
      } finally {
        await Promise.allSettled(conns.map((c) => c.close()));
      }
      report.actual = report.runs > 0 ? strongestOf(satisfiedByAll) : [];
      if (opts.signal?.aborted === true) result.interrupted = true;
    }
  } finally {
    if (target !== null) {
      await target.drop?.().catch(() => undefined);
      await target.close();
    }
  }
  result.interrupted ||= opts.signal?.aborted === true;
  result.elapsedMs = performance.now() - t0;
  return result;
}

function cellAnomaly(a: JudgedAnomaly, file: string): CellAnomaly {
  return { name: a.name, class: a.cls, description: a.description, level: a.level, file, counterexample: a.counterexample };
}

async function connectLanes(target: Target, n: number): Promise<Connection[]> {
  const out: Connection[] = [];
  try {
    for (let s = 0; s < n; s++) out.push(await target.connect(s));
  } catch (err) {
    await Promise.allSettled(out.map((c) => c.close()));
    throw err;
  }
  return out;
}

/** '' when the database runs a transaction at `iso`; else why not (its error). */
export async function refusal(lane: Pick<Lane, 'begin' | 'read' | 'commit' | 'rollback'>, iso: IsolationLevel): Promise<string> {
  try {
    await lane.begin(iso);
    await lane.read(0);
    await lane.commit();
    return '';
  } catch (err) {
    if (!(err instanceof DbError) || err.kind === 'unreachable') throw err;
    await lane.rollback();
    return err.message;
  }
}


/** The scenario's steps in the step language. */
export function stepsText(s: Scenario): string {
  return s.steps.map((st) => `T${st.txn + 1} ${st.op}${st.key === '' ? '' : ` ${st.key}`}${st.op === 'w' || st.op === 'ins' ? ` ${st.value}` : ''}` +
    `${st.pred === '' ? '' : ` ${st.pred}`}`).join('; ');
}
