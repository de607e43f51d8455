/**
 * Progress lines on stderr for long runs (`check`, `stat`, `convert`).
 *
 * Takes: an output sink and whether progress is on (`progressWanted`: stderr is a terminal, or
 * forced by POLYSI_PROGRESS=1 / off by POLYSI_PROGRESS=0, the knob tests use). Gives: a
 * `Progress` whose lines read "polysi: [12.3 s] reading h.edn: 120.0 MB of 500.0 MB (24%)",
 * the time counted from the start of the command.
 * Invariant: the library never prints; it reports through hooks (readHistory's `onProgress`,
 * checkHistory's `onProgress`) and only this module turns them into text. Repeated counters
 * (bytes read, keys done) print at most one line per PROGRESS_INTERVAL_MS, plus the first
 * and the last, so a fast run stays short and a slow one is never silent for long.
 */

import { stderrIsTTY } from './stdio.ts';
import { now as clock } from '../util/clock.ts';

/** Where progress goes (stderr). */
export interface ProgressSink {
  stderr(s: string): void;
}

export const PROGRESS_INTERVAL_MS = 1000;

/** Whether to print progress: on a terminal, unless POLYSI_PROGRESS says otherwise. */
export function progressWanted(isTTY: boolean | undefined): boolean {
  const forced = process.env['POLYSI_PROGRESS'];
  if (forced === '1') return true;
  if (forced === '0') return false;
  return isTTY === true;
}

/**
 * `progressWanted` for stderr: whether it is a terminal is asked only when POLYSI_PROGRESS does
 * not decide and `ttyCounts` (false for `check --json`, whose progress is off unless forced).
 */
export async function progressOnStderr(ttyCounts = true): Promise<boolean> {
  const forced = process.env['POLYSI_PROGRESS'];
  if (forced === '1' || forced === '0' || !ttyCounts) return progressWanted(false);
  return progressWanted(await stderrIsTTY());
}

/** A byte count for people: 532 B, 12.4 KB, 500.0 MB, 1.2 GB (powers of 1024). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

export class Progress {
  private readonly t0: number;
  private lastCounterMs = Number.NEGATIVE_INFINITY;

  /** `now`: the clock in milliseconds (tests pass their own). */
  constructor(private readonly io: ProgressSink | null, private readonly now: () => number = clock) {
    this.t0 = now();
  }

  get on(): boolean {
    return this.io !== null;
  }

  /** Seconds since the command started, as shown in each line. */
  elapsed(): string {
    return `${((this.now() - this.t0) / 1000).toFixed(1)} s`;
  }

  /** One line, always printed (when progress is on). */
  line(msg: string): void {
    this.io?.stderr(`polysi: [${this.elapsed()}] ${msg}`);
    this.lastCounterMs = Number.NEGATIVE_INFINITY;
  }

  /** A repeated counter: printed if first, last, or PROGRESS_INTERVAL_MS after the previous one. */
  counter(msg: string, first: boolean, last: boolean): void {
    if (this.io === null) return;
    const now = this.now();
    if (!first && !last && now - this.lastCounterMs < PROGRESS_INTERVAL_MS) return;
    this.io.stderr(`polysi: [${this.elapsed()}] ${msg}`);
    this.lastCounterMs = now;
  }

  /** readHistory's onProgress for `path`, as "reading PATH: X of Y (P%)" lines. */
  reading(path: string): (bytesRead: number, totalBytes: number | null) => void {
    let first = true;
    return (bytesRead, totalBytes) => {
      const last = totalBytes !== null && bytesRead >= totalBytes;
      const of = totalBytes === null ? '' : ` of ${formatBytes(totalBytes)}${totalBytes > 0 ? ` (${Math.floor((100 * bytesRead) / totalBytes)}%)` : ''}`;
      this.counter(`reading ${path}: ${formatBytes(bytesRead)}${of}`, first, last);
      first = false;
    };
  }
}

/** Progress printing to `io` when wanted, or a silent one. */
export function progressTo(io: ProgressSink, wanted: boolean): Progress {
  return new Progress(wanted ? io : null);
}
