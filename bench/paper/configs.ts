/**
 * The PolySI paper's experiments (§5, Figures 5-6 and Table 3) as configurations of our
 * workload generator.
 *
 * Takes: a mode (`smoke`, `quick`, `full`). Gives: the sweeps (one parameter varied around the
 * paper's defaults, all else fixed) and the three General workloads, each point a
 * WorkloadOptions with a stable `id`, so a point shared by several sweeps (the defaults) runs once.
 * Invariant: every configuration passes checkWorkloadOptions; ids are unique per options.
 *
 * The paper gives its defaults and the General workloads in the text (§5.1.1: 20 sessions x
 * 100 txns x 15 ops, 50 % reads, 10k keys, zipfian; GeneralRH/RW/WH: 25 x 400 x 8 with 95 / 50 /
 * 30 % reads). The x values of Figure 5's panels are only in the figure, which our copy of the
 * paper lacks, so the ranges below are ours: five points around each default.
 */

import { DEFAULT_WORKLOAD, type KeyDistribution, type WorkloadOptions } from '../../src/workload/index.ts';

export type Mode = 'smoke' | 'quick' | 'full';
export const MODES: readonly Mode[] = ['smoke', 'quick', 'full'];

/** The parameters a sweep varies (the panels of Figures 5 and 6, in the paper's order). */
export type SweepParam = 'sessions' | 'txnsPerSession' | 'opsPerTxn' | 'readFraction' | 'keys' | 'distribution';

export interface Point {
  /** Stable name of the options, e.g. `s20-t100-o15-r0.5-k10000-zipfian`. */
  id: string;
  options: WorkloadOptions;
}

export interface Sweep {
  param: SweepParam;
  /** Axis title, as the paper labels the panel. */
  label: string;
  /** The x values, in order (numbers, or distribution names). */
  values: (number | string)[];
  points: Point[];
}

export interface General {
  name: 'GeneralRH' | 'GeneralRW' | 'GeneralWH';
  point: Point;
}

export interface Suite {
  mode: Mode;
  sweeps: Sweep[];
  general: General[];
  /** Every distinct point, sweeps first, each once. */
  points: Point[];
}

const LABELS: Record<SweepParam, string> = {
  sessions: '#sessions',
  txnsPerSession: '#txns/session',
  opsPerTxn: '#ops/txn',
  readFraction: '% reads',
  keys: '#keys',
  distribution: 'key distribution',
};

export function pointId(o: WorkloadOptions): string {
  return `s${o.sessions}-t${o.txnsPerSession}-o${o.opsPerTxn}-r${o.readFraction}-k${o.keys}-${o.distribution}`;
}

interface Shape {
  base: WorkloadOptions;
  values: Record<SweepParam, (number | string)[]>;
  general: { sessions: number; txnsPerSession: number; opsPerTxn: number };
}

/**
 * Full: the paper's sizes. Quick: a quarter of the transactions per session and three points
 * per sweep, to finish in about a minute on a loaded 2-core machine. Smoke: the smallest that
 * still exercises every sweep and General workload (the test runs it).
 */
const SHAPES: Record<Mode, Shape> = {
  full: {
    base: { ...DEFAULT_WORKLOAD, sessions: 20, txnsPerSession: 100, opsPerTxn: 15, readFraction: 0.5, keys: 10_000, distribution: 'zipfian' },
    values: {
      sessions: [10, 20, 30, 40, 50],
      txnsPerSession: [100, 200, 300, 400, 500],
      opsPerTxn: [5, 10, 15, 20, 25, 30],
      readFraction: [0.1, 0.3, 0.5, 0.7, 0.9],
      keys: [2_000, 4_000, 6_000, 8_000, 10_000],
      distribution: ['uniform', 'zipfian', 'hotspot'],
    },
    general: { sessions: 25, txnsPerSession: 400, opsPerTxn: 8 },
  },
  quick: {
    base: { ...DEFAULT_WORKLOAD, sessions: 20, txnsPerSession: 25, opsPerTxn: 15, readFraction: 0.5, keys: 10_000, distribution: 'zipfian' },
    values: {
      sessions: [10, 20, 40],
      txnsPerSession: [25, 50, 100],
      opsPerTxn: [5, 15, 30],
      readFraction: [0.1, 0.5, 0.9],
      keys: [2_000, 10_000],
      distribution: ['uniform', 'zipfian', 'hotspot'],
    },
    general: { sessions: 25, txnsPerSession: 40, opsPerTxn: 8 },
  },
  smoke: {
    base: { ...DEFAULT_WORKLOAD, sessions: 3, txnsPerSession: 4, opsPerTxn: 3, readFraction: 0.5, keys: 20, distribution: 'zipfian' },
    values: {
      sessions: [2, 3],
      txnsPerSession: [4],
      opsPerTxn: [3],
      readFraction: [0.5],
      keys: [20],
      distribution: ['uniform', 'zipfian'],
    },
    general: { sessions: 2, txnsPerSession: 3, opsPerTxn: 2 },
  },
};

const GENERAL_READS: Record<General['name'], number> = { GeneralRH: 0.95, GeneralRW: 0.5, GeneralWH: 0.3 };

/**
 * `distribution` replaces the base's (zipfian, as the paper's text says) in every point but the
 * distribution sweep's own: on the embedded store, whose scheduler interleaves every step of 20
 * sessions, zipfian's hottest key makes most writers abort (docs/performance.md).
 */
export function paperSuite(mode: Mode, seed = 1, distribution?: KeyDistribution): Suite {
  const shape = SHAPES[mode];
  const byId = new Map<string, Point>();
  const point = (o: WorkloadOptions): Point => {
    const id = pointId(o);
    let p = byId.get(id);
    if (p === undefined) { p = { id, options: o }; byId.set(id, p); }
    return p;
  };
  const base = { ...shape.base, seed, ...(distribution === undefined ? {} : { distribution }) };
  const sweeps: Sweep[] = (Object.keys(LABELS) as SweepParam[]).map((param) => {
    const values = shape.values[param];
    const points = values.map((v) => point(param === 'distribution'
      ? { ...base, distribution: v as KeyDistribution }
      : { ...base, [param]: v as number }));
    return { param, label: LABELS[param], values, points };
  });
  const general: General[] = (Object.keys(GENERAL_READS) as General['name'][]).map((name) => ({
    name, point: point({ ...base, ...shape.general, readFraction: GENERAL_READS[name] }),
  }));
  return { mode, sweeps, general, points: [...byId.values()] };
}
