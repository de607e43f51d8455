/**
 * The contract every history format implements.
 *
 * Takes: an input (a path, or an opened HistoryInput: file, directory, pipe, device) and its first bytes. Gives: a `History`, or an
 * `InputError` (thrown) naming the file, the line / byte offset / record, and what was expected.
 * Invariant: a format never returns a History built from a half-read or partly-understood input:
 * anything it cannot account for is an error, never skipped.
 */

import type { History } from '../history/model.ts';
import type { HistoryInput } from './io-read.ts';

export interface FormatModule {
  /** The name used by `--format` and `--to`. */
  readonly name: string;
  /** One line for `--help` and docs. */
  readonly description: string;
  /** The format is binary, not text: detection's "closest format" hint skips it for text input. */
  readonly binary?: boolean;
  /**
   * Cheap guess for `--format auto`: true if the input looks like this format. `head` holds the
   * first bytes (up to 64 KiB) of the file; for a directory, `head` is empty and `isDir` is true.
   */
  sniff(head: Uint8Array, path: string, isDir: boolean): boolean;
  /**
   * Reads and parses the whole input: a path (opened and read once) or an opened HistoryInput
   * (which may be a pipe whose head was already read ahead for detection). Throws InputError on
   * bad input, TimeLimitError('parse') past the input's deadline.
   */
  read(input: string | HistoryInput): Promise<History>;
  /** Renders a History in this format, if the format can hold it without loss. */
  write?(h: History): string | Uint8Array;
}
