/**
 * The recorder: writes finished transactions to a history file in our JSON Lines format
 * (docs/formats.md) as the run goes, so an interrupted run leaves a valid file.
 *
 * Takes: a path and the session count, then TxnRecords. Gives: the file, one txn per line,
 * with "start" / "end" (ms since the run began, monotonic) and "error" for failures.
 * Invariant: only whole lines reach the file (lines are buffered and written with one
 * synchronous write per batch: every 64 KiB and at least every 200 ms), so after Ctrl-C or an
 * exception the file ends at a line boundary; `close()` writes what is left.
 * Session labels are the session numbers, txn labels `session.index`.
 */

import { closeSync, openSync, writeSync } from 'node:fs';
import { W_APPEND, W_READ, W_READ_LIST, W_WRITE } from '../workload/types.ts';
import { JSONL_FORMAT_TAG, JSONL_VERSION } from '../formats/jsonl.ts';
import type { TxnRecord } from './runner.ts';

export const FLUSH_BYTES = 1 << 16;
export const FLUSH_INTERVAL_MS = 200;

/** One txn as a JSON Lines line (without the newline). */
export function txnLine(r: TxnRecord, t0 = 0): string {
  const p = r.plan;
  let ops = '';
  for (let i = 0; i < r.done; i++) {
    if (i > 0) ops += ',';
    const key = p.keys[i]!;
    switch (p.kinds[i]) {
      case W_READ: ops += `["r",${key},${r.seen[i] ?? 'null'}]`; break;
      case W_WRITE: ops += `["w",${key},${p.values[i]}]`; break;
      case W_APPEND: ops += `["append",${key},${p.values[i]}]`; break;
      case W_READ_LIST: ops += `["r",${key},[${(r.seen[i] as number[]).join(',')}]]`; break;
      default: throw new Error(`internal error: op kind ${p.kinds[i]}`);
    }
  }
  const ms = (x: number) => Math.round((x - t0) * 1000) / 1000;
  const err = r.error === undefined ? '' : `,"error":${JSON.stringify(r.error)}`;
  return `{"session":"${r.session}","txn":"${r.session}.${r.index}","status":"${r.outcome}","ops":[${ops}],` +
    `"start":${ms(r.start)},"end":${ms(r.end)}${err}}`;
}

export function headerLine(sessions: number): string {
  const names = Array.from({ length: sessions }, (_, s) => String(s));
  return `{"format":"${JSONL_FORMAT_TAG}","version":${JSONL_VERSION},"sessions":${JSON.stringify(names)}}`;
}

export class JsonlRecorder {
  private fd: number;
  private buf = '';
  private timer: NodeJS.Timeout | null;
  count = 0;
  /** Time spent building lines and writing them (ms), to compare with the store's time. */
  busyMs = 0;

  /** Creates (truncates) `path` and writes the header. `t0`: the clock value times are relative to. */
  constructor(readonly path: string, sessions: number, private readonly t0 = 0) {
    this.fd = openSync(path, 'w');
    this.buf = `${headerLine(sessions)}\n`;
    this.flush();
    this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  record(r: TxnRecord): void {
    const a = performance.now();
    this.buf += `${txnLine(r, this.t0)}\n`;
    this.count++;
    if (this.buf.length >= FLUSH_BYTES) this.flush();
    this.busyMs += performance.now() - a;
  }

  flush(): void {
    if (this.buf.length === 0 || this.fd < 0) return;
    const data = this.buf;
    this.buf = '';
    writeSync(this.fd, data);
  }

  close(): void {
    if (this.fd < 0) return;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
  }
}
