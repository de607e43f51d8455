/**
 * Format `elle-json`: Jepsen / Elle histories in JSON, as elle-cli reads them: a JSON array of
 * operation objects, or one object per line; keys `type`, `f`, `process`, `value`, `index`,
 * `time`; micro-ops as arrays `["append", k, v]`, `["r", k, [..]]`, `["w", k, v]`, `["r", k, v]`.
 * `type` / `f` / micro-op names may be spelled with or without a leading colon (":ok" = "ok").
 *
 * Takes: a file path. Gives: a History (elle-common.ts has the semantics) with parse notes;
 * `write` renders a JSON array with one operation per line (elle-writer.ts says what it refuses).
 * Invariant: streamed like EDN (bounded memory; integers beyond 2^53 kept exact). A top-level
 * array cut anywhere is 'truncated'; one-object-per-line input cut between two lines is not
 * detectable.
 */

import type { History } from '../history/model.ts';
import type { FormatModule } from './types.ts';
import { JepsenAssembler } from './elle-common.ts';
import { JsonScanner } from './elle-json-reader.ts';
import type { ScanOptions } from './elle-stream.ts';
import { writeJepsen } from './elle-writer.ts';
import { withInput, type HistoryInput } from './io-read.ts';

/** Parses Elle JSON bytes already in memory (tests, fuzzing). */
export function parseElleJsonBytes(bytes: Uint8Array, source = '<memory>', opts: ScanOptions = {}): History {
  const asm = new JepsenAssembler(source);
  new JsonScanner(source, opts).parseBytes(bytes, (form, line) => asm.op(form, line));
  return asm.finish();
}

/** Reads Elle JSON from a path or an opened input, streamed. */
export function readElleJsonFile(input: string | HistoryInput, opts: ScanOptions = {}): Promise<History> {
  return withInput(input, async (inp) => {
    const asm = new JepsenAssembler(inp.source);
    await new JsonScanner(inp.source, opts).parseInput(inp, (form, line) => asm.op(form, line));
    return asm.finish();
  });
}

/** `"type": "invoke"` (or ok / fail / info, with or without a colon) near the start. */
const TYPE_FIELD = /"type"\s*:\s*":?(?:invoke|ok|fail|info)"/;

export const elleJsonFormat: FormatModule = {
  name: 'elle-json',
  description: 'Jepsen / Elle history in JSON (elle-cli): an array of operation objects, or one per line',
  sniff(head, _path, isDir) {
    if (isDir) return false;
    const text = Buffer.from(head.subarray(0, 4096)).toString('latin1');
    return /^\s*[[{]/.test(text) && TYPE_FIELD.test(text) && /"value"\s*:/.test(text);
  },
  read: (input) => readElleJsonFile(input),
  write: (h) => writeJepsen(h, 'json'),
};
