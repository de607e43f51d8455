/**
 * Format `edn`: Jepsen / Elle histories in EDN (one operation map per line, as Jepsen's
 * history.edn, or one vector / list of maps).
 *
 * Takes: a file path. Gives: a History (elle-common.ts has the semantics) with parse notes;
 * `write` renders a History back as one map per line (elle-writer.ts says what it refuses).
 * Invariant: the file is streamed (elle-stream.ts): memory stays bounded by one operation map
 * plus the History being built, whatever the file size; a file cut inside a map, vector or
 * string is an InputError('truncated'). A file cut exactly between two lines is not
 * detectable (the last operations are simply absent: an invocation left without its completion
 * becomes an unknown-outcome transaction).
 */

import type { History } from '../history/model.ts';
import type { FormatModule } from './types.ts';
import { JepsenAssembler } from './elle-common.ts';
import { EdnScanner } from './elle-edn-reader.ts';
import type { ScanOptions } from './elle-stream.ts';
import { writeJepsen } from './elle-writer.ts';
import { withInput, type HistoryInput } from './io-read.ts';

/** Parses EDN bytes already in memory (tests, fuzzing). */
export function parseEdnBytes(bytes: Uint8Array, source = '<memory>', opts: ScanOptions = {}): History {
  const asm = new JepsenAssembler(source);
  new EdnScanner(source, opts).parseBytes(bytes, (form, line) => asm.op(form, line));
  return asm.finish();
}

/** Reads EDN from a path or an opened input, streamed. */
export function readEdnFile(input: string | HistoryInput, opts: ScanOptions = {}): Promise<History> {
  return withInput(input, async (inp) => {
    const asm = new JepsenAssembler(inp.source);
    await new EdnScanner(inp.source, opts).parseInput(inp, (form, line) => asm.op(form, line));
    return asm.finish();
  });
}

/** First bytes of the text after whitespace and `;` comments. */
function firstCode(head: Uint8Array): string {
  let i = 0;
  while (i < head.length) {
    const c = head[i]!;
    if (c === 0x3b) {
      while (i < head.length && head[i] !== 0x0a) i++;
    } else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2c) {
      i++;
    } else {
      break;
    }
  }
  return Buffer.from(head.subarray(i, i + 64)).toString('latin1');
}

export const ednFormat: FormatModule = {
  name: 'edn',
  description: 'Jepsen / Elle history in EDN: one operation map per line, or a vector of maps',
  sniff(head, path, isDir) {
    if (isDir) return false;
    const start = firstCode(head);
    // `{:` (a map with keyword keys), `#jepsen.history.Op{`, or a vector / list of those.
    if (/^[[(]?\s*(\{\s*:|#[A-Za-z][\w.-]*\{)/.test(start)) return true;
    return path.endsWith('.edn') && /^[[({]/.test(start);
  },
  read: (input) => readEdnFile(input),
  write: (h) => writeJepsen(h, 'edn'),
};
