/**
 * The recorder: writes finished transactions to a history file in our JSON Lines format
 * (docs/formats.md) as the run goes, so an interrupted run leaves a valid file.
 *
 * Takes: a path and the session count, then TxnRecords. Gives: the file, one txn per line,
 * with "start" / "end" (ms since the run began, monotonic), "error" for failures and "node"
 * when the target has several nodes.
 * Invariant: only whole lines reach the file (lines are encoded into a byte buffer and written
 * with one synchronous write per batch: when 256 KiB fill up and at least every 200 ms), so
 * after Ctrl-C or an exception the file ends at a line boundary; `close()` writes what is left.
 * Why bytes: lines are encoded straight into the buffer (encode.ts), with no string per line;
 * keeping lines as strings until a flush tripled the recording cost (bench/run-workload.ts).
 * Session labels are the session numbers, txn labels `session.index`. Faults injected during
 * the run (issue 24, src/run/nemesis/) are fault lines, written when each fault ends.
 * Predicate workloads (issue 22; docs/formats.md, "Predicates"): the header declares the
 * relations, and their ops are written as `insert`, `delete`, `select`, `count`; an update or
 * delete that found no row is written as what it observed, a read of the absent row
 * (`["r", k, null]`), since it changed nothing in the database. These lines take the string path.
 */

import { closeSync, openSync, writeSync } from 'node:fs';
import { W_APPEND, W_COUNT, W_DELETE, W_INSERT, W_READ, W_READ_LIST, W_SELECT, W_WRITE, type WorkloadPlan } from '../workload/types.ts';
import { faultLine, JSONL_FORMAT_TAG, JSONL_VERSION } from '../formats/jsonl.ts';
import type { TxnRecord } from './runner.ts';
import { encodeTxn, txnBytesMax } from './encode.ts';

/** Size of the line buffer; a full buffer is written at once. */
export const FLUSH_BYTES = 1 << 18;
export const FLUSH_INTERVAL_MS = 200;

/** The names a predicate workload's ops refer to by index: relation names and predicate texts. */
export interface RecordedNames {
  readonly relations: readonly { readonly name: string; readonly keys: readonly (number | string)[] }[];
  readonly predicates: readonly string[];
}

/** The names of a plan's relations and predicates; undefined for a key-value workload. */
export function planNames(plan: WorkloadPlan): RecordedNames | undefined {
  if (plan.relations === undefined) return undefined;
  return { relations: plan.relations, predicates: (plan.predicates ?? []).map((p) => p.text) };
}

/** One txn as a JSON Lines line (without the newline); `names` for a predicate workload's ops. */
export function txnLine(r: TxnRecord, t0 = 0, names?: RecordedNames): string {
  const p = r.plan;
  let ops = '';
  for (let i = 0; i < r.done; i++) {
    if (i > 0) ops += ',';
    const key = p.keys[i]!;
    const seen = r.seen[i];
    switch (p.kinds[i]) {
      case W_READ: ops += `["r",${key},${seen ?? 'null'}]`; break;
      case W_WRITE: ops += seen === null ? `["r",${key},null]` : `["w",${key},${p.values[i]}]`; break;
      case W_APPEND: ops += `["append",${key},${p.values[i]}]`; break;
      case W_READ_LIST: ops += `["r",${key},[${(seen as number[]).join(',')}]]`; break;
      case W_INSERT: ops += `["insert",${key},${p.values[i]}]`; break;
      case W_DELETE: ops += seen === null ? `["r",${key},null]` : `["delete",${key}]`; break;
      case W_SELECT: case W_COUNT: {
        if (names === undefined) throw new Error('internal error: a predicate read recorded without the relation names');
        const head = `${JSON.stringify(names.relations[key]!.name)},${JSON.stringify(names.predicates[p.values[i]!]!)}`;
        if (p.kinds[i] === W_COUNT) { ops += `["count",${head},${seen as number}]`; break; }
        const rows = seen as number[];
        const pairs: string[] = [];
        for (let j = 0; j < rows.length; j += 2) pairs.push(`[${rows[j]},${rows[j + 1]}]`);
        ops += `["select",${head},[${pairs.join(',')}]]`;
        break;
      }
      default: throw new Error(`internal error: op kind ${p.kinds[i]}`);
    }
  }
  // Times to the microsecond, relative to the run's start (no closure here: this runs per txn).
  const start = Math.round((r.start - t0) * 1000) / 1000, end = Math.round((r.end - t0) * 1000) / 1000;
  const err = r.error === undefined ? '' : `,"error":${JSON.stringify(r.error)}`;
  const node = r.node === undefined ? '' : `,"node":${JSON.stringify(r.node)}`;
  return `{"session":"${r.session}","txn":"${r.session}.${r.index}","status":"${r.outcome}","ops":[${ops}],` +
    `"start":${start},"end":${end}${err}${node}}`;
}

/**
 * The header; with the session list when the sessions are known in advance (a run), without
 * otherwise; with `"relations"` (name → keys) when there are relations.
 */
export function headerLine(sessions: number | null, relations?: RecordedNames['relations']): string {
  const rels = relations === undefined || relations.length === 0 ? ''
    : `,"relations":{${relations.map((r) => `${JSON.stringify(r.name)}:${JSON.stringify(r.keys)}`).join(',')}}`;
  if (sessions === null) return `{"format":"${JSONL_FORMAT_TAG}","version":${JSONL_VERSION}${rels}}`;
  const names = Array.from({ length: sessions }, (_, s) => String(s));
  return `{"format":"${JSONL_FORMAT_TAG}","version":${JSONL_VERSION},"sessions":${JSON.stringify(names)}${rels}}`;
}

export class JsonlRecorder {
  private fd: number;
  private readonly buf = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;
  private timer: NodeJS.Timeout | null;
  count = 0;
  /** Time spent building lines and writing them (ms), to compare with the store's time. */
  busyMs = 0;

  /**
   * Creates (truncates) `path` and writes the header. `sessions`: their number (labels 0..n-1),
   * or null when not known in advance. `t0`: the clock value recorded times are relative to.
   * `fd`: `path` already opened for writing by the caller (who decided whether it may replace a
   * file: `polysi run` never does unless --force). `names`: a predicate workload's relations
   * (declared in the header) and predicate texts.
   */
  constructor(readonly path: string, sessions: number | null, private readonly t0 = 0, fd?: number, private readonly names?: RecordedNames) {
    this.fd = fd ?? openSync(path, 'w');
    this.append(headerLine(sessions, names?.relations));
    this.flush();
    this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  record(r: TxnRecord): void {
    const a = performance.now();
    const most = txnBytesMax(r) + 1;
    if (most <= 0 || most > this.buf.length) {
      this.append(txnLine(r, this.t0, this.names)); // a non-ASCII error code, a predicate op or a huge line: the string path
    } else {
      if (this.used + most > this.buf.length) this.flush();
      this.used = encodeTxn(this.buf, this.used, r, this.t0);
      this.buf[this.used++] = 10;
    }
    this.count++;
    this.busyMs += performance.now() - a;
  }

  /**
   * Appends a fault line (issue 24): `start` / `end` in the clock of the txns' times (absolute,
   * made relative to t0 as theirs are; end NaN: never healed). Written once the fault is over
   * (or the run ends), so a fault line is whole like a txn's; not counted in `count`.
   */
  recordFault(kind: string, node: string, start: number, end: number): void {
    if (this.fd < 0) throw new Error(`the history ${this.path} is already closed`);
    const ms = (t: number) => Math.round((t - this.t0) * 1000) / 1000;
    this.append(faultLine({ kind, node, start: ms(start), end: Number.isNaN(end) ? NaN : ms(end) }));
  }

  /** Appends one already-rendered transaction line (the recording API builds its own). */
  writeLine(line: string): void {
    if (this.fd < 0) throw new Error(`the history ${this.path} is already closed`);
    this.append(line);
    this.count++;
  }

  private append(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const most = line.length * 3 + 1;
    if (this.used + most > this.buf.length) this.flush();
    if (most > this.buf.length) {
      writeSync(this.fd, `${line}\n`); // a huge line (a long txn reading long lists): straight out
      return;
    }
    this.used += this.buf.write(line, this.used);
    this.buf[this.used++] = 10;
  }

  flush(): void {
    if (this.used === 0 || this.fd < 0) return;
    let off = 0;
    while (off < this.used) off += writeSync(this.fd, this.buf, off, this.used - off);
    this.used = 0;
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
