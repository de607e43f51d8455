/**
 * The paper suite: records a history per distinct point, checks each in a fresh process, and
 * writes results.csv, the SVG charts, results.md and machine.json to an output folder.
 *
 * Takes: SuiteOptions. Gives: the rows and the paths written.
 * Invariant: histories and the checker bundle live in temporary places removed at the end;
 * only the output folder is left, and it is written only once every point has been measured.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paperSuite, type Mode, type Point } from './configs.ts';
import type { KeyDistribution } from '../../src/workload/index.ts';
import { baselineRssKb, bundleChecker, checkInChild, describeMachine, type Measured } from './harness.ts';
import { recordHistory } from './record.ts';
import { renderCharts, renderMarkdown } from './report.ts';
import { makeRow, toCsv, type PointResult, type Row } from './rows.ts';

export interface SuiteOptions {
  mode: Mode;
  outDir: string;
  /** Checks per history; the rows hold medians. */
  reps: number;
  /** `memory:snapshot` (default) or a database URL. */
  target: string;
  seed: number;
  /** The base points' key distribution, instead of the paper's zipfian. */
  distribution?: KeyDistribution;
  /** One line per point as it finishes. */
  log: (line: string) => void;
}

export interface SuiteResult {
  rows: Row[];
  files: string[];
}

export async function runPaperSuite(o: SuiteOptions): Promise<SuiteResult> {
  if (!Number.isInteger(o.reps) || o.reps < 1) throw new RangeError(`reps must be a positive integer, got ${o.reps}`);
  const suite = paperSuite(o.mode, o.seed, o.distribution);
  const machine = describeMachine();
  const work = mkdtempSync(join(tmpdir(), 'polysi-bench-paper-'));
  const bundle = await bundleChecker();
  const results = new Map<string, PointResult>();
  let targetName = o.target;
  let baseline = 0;
  try {
    baseline = await baselineRssKb(bundle);
    let i = 0;
    for (const p of suite.points) {
      i++;
      const r = await measurePoint(p, o, bundle, join(work, `${p.id}.jsonl`));
      targetName = r.recorded.target;
      results.set(p.id, r);
      const m = r.reps[0]!;
      o.log(`[${i}/${suite.points.length}] ${p.id}: ${m.counts.transactions} txns (${r.recorded.aborted} aborted), ${m.verdict}, ` +
        `constraints ${m.constraints.before} -> ${m.constraints.after}, check ${Math.round(m.wallMs)} ms, peak ${Math.round(m.maxRssKb / 1024)} MB`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(bundle, { force: true });
  }
  const got = (p: Point) => results.get(p.id)!;
  const rows: Row[] = [];
  for (const s of suite.sweeps) s.points.forEach((p, k) => rows.push(makeRow(s.param, String(s.values[k]), got(p), baseline)));
  for (const g of suite.general) rows.push(makeRow('general', g.name, got(g.point), baseline));

  mkdirSync(o.outDir, { recursive: true });
  const files: Record<string, string> = {
    'results.csv': toCsv(rows),
    'results.md': renderMarkdown(suite, rows, machine, targetName),
    'machine.json': JSON.stringify({ ...machine, mode: o.mode, reps: o.reps, target: targetName, seed: o.seed, baseDistribution: suite.points[0]!.options.distribution }, null, 2) + '\n',
    ...renderCharts(suite, rows, machine),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(o.outDir, name), text);
  return { rows, files: Object.keys(files).map((f) => join(o.outDir, f)) };
}

async function measurePoint(p: Point, o: SuiteOptions, bundle: string, path: string): Promise<PointResult> {
  const recorded = await recordHistory(p.options, o.target, path);
  const reps: Measured[] = [];
  for (let k = 0; k < o.reps; k++) reps.push(await checkInChild(bundle, path, 'si'));
  rmSync(path, { force: true });
  return { point: p, recorded, reps };
}
