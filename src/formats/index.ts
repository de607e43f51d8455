/**
 * The format registry: every history format the tools can read or write, and `readHistory`.
 *
 * Takes: a path and a format name (or 'auto'). Gives: the parsed History, the name of the
 * format used, and the parser's notes (e.g. events it dropped, with why).
 * Invariant: FORMATS is the single list of formats; --format names, --to names, detection
 * order and docs all come from it. To add a format: import its FormatModule and add it to
 * FORMATS (before any format whose sniff is more lenient than it).
 */

import { stat } from 'node:fs/promises';
import type { History } from '../history/model.ts';
import { dbcopBincodeFormat } from './dbcop-bincode.ts';
import { detectFormatIn, findFormatIn } from './detect.ts';
import { notesOf } from './io-notes.ts';
import { jsonlFormat } from './jsonl.ts';
import { polysiTextFormat } from './polysi-text.ts';
import { cobraFormat } from './cobra.ts';
import { ednFormat } from './elle-edn.ts';
import { elleJsonFormat } from './elle-json.ts';
import { dbcopJsonFormat } from './dbcop-json.ts';
import { dbcopHistFormat } from './dbcop-hist.ts';
import type { FormatModule } from './types.ts';

/** All formats, in detection order. Sniffs are mutually exclusive today, so order only breaks ties. */
export const FORMATS: readonly FormatModule[] = [
  polysiTextFormat,
  dbcopBincodeFormat,
  jsonlFormat,
  cobraFormat,
  ednFormat,
  elleJsonFormat,
  dbcopJsonFormat,
  dbcopHistFormat,
];

/** The format called `name` (as in --format / --to); InputError 'unknown-format' otherwise. */
export function findFormat(name: string): FormatModule {
  return findFormatIn(FORMATS, name);
}

/** The format of the file or directory at `path`, by sniffing its first 64 KiB. */
export function detectFormat(path: string): Promise<FormatModule> {
  return detectFormatIn(FORMATS, path);
}

export interface ReadResult {
  readonly history: History;
  /** The name of the format that read it. */
  readonly format: string;
  /** Human-readable parse notes, e.g. "dropped 3 event(s) with success=0 (dbcop: they did not happen)". */
  readonly notes: string[];
}

export interface ReadOptions {
  /**
   * Progress of reading: bytes consumed so far and the input's size (null when unknown: not a
   * regular file). Called with 0 before reading and with the size once read, when known.
   * (Readers that stream may call it in between.) The library never prints it itself.
   */
  onProgress?: (bytesRead: number, totalBytes: number | null) => void;
}

/** Reads `path` as `format` ('auto' detects it). Throws InputError on missing, unreadable or bad input. */
export async function readHistory(path: string, format = 'auto', opts: ReadOptions = {}): Promise<ReadResult> {
  const total = opts.onProgress === undefined ? null : await regularFileSize(path);
  opts.onProgress?.(0, total);
  const mod = format === 'auto' ? await detectFormat(path) : findFormat(format);
  const history = await mod.read(path);
  if (total !== null) opts.onProgress?.(total, total);
  return { history, format: mod.name, notes: [...notesOf(history)] };
}

/** The size of `path` if it is a regular file, else null (errors are the reader's to report). */
async function regularFileSize(path: string): Promise<number | null> {
  try {
    const st = await stat(path);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

export { notesOf, attachNotes } from './io-notes.ts';
export type { FormatModule } from './types.ts';
