/**
 * The format registry: every history format the tools can read or write, and `readHistory`.
 *
 * Takes: a path (file, directory, `-` for standard input, pipe, FIFO, device) and a format name (or 'auto'). Gives: the parsed History, the name of the
 * format used, and the parser's notes (e.g. events it dropped, with why).
 * Invariant: FORMATS is the single list of formats; --format names, --to names, detection
 * order and docs all come from it. To add a format: import its FormatModule and add it to
 * FORMATS (before any format whose sniff is more lenient than it).
 */

import type { History } from '../history/model.ts';
import { dbcopBincodeFormat } from './dbcop-bincode.ts';
import { detectFormatIn, detectInputFormat, findFormatIn } from './detect.ts';
import { HistoryInput, type ReadOptions } from './io-read.ts';
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

/**
 * Reads `path` as `format` ('auto' detects it). The path is opened once and read once as a
 * stream (detection looks at a buffered head of the same stream), so `-` (standard input),
 * /dev/stdin, pipes, FIFOs and devices work like files. Throws InputError on missing,
 * unreadable or bad input, and TimeLimitError('parse') once `opts.deadlineMs` has passed.
 * `opts.onProgress(bytesRead, totalBytes | null)` is called after every chunk read.
 */
export async function readHistory(path: string, format = 'auto', opts: ReadOptions = {}): Promise<ReadResult> {
  const mod = format === 'auto' ? null : findFormat(format);
  const input = await HistoryInput.open(path, opts);
  try {
    const m = mod ?? await detectInputFormat(FORMATS, input);
    const history = await m.read(input);
    return { history, format: m.name, notes: [...notesOf(history)] };
  } finally {
    await input.close();
  }
}

export { notesOf, attachNotes } from './io-notes.ts';
export type { FormatModule } from './types.ts';
export { HistoryInput, HEAD_BYTES, INPUT_BYTES_MAX, type ReadOptions } from './io-read.ts';
export { TimeLimitError } from '../util/deadline.ts';
