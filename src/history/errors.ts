/**
 * Typed input errors shared by every parser and by the CLI.
 *
 * Takes: where the input went wrong and what was expected. Gives: `InputError`, whose message
 * always names the file and the line, byte offset or record, so a user can find the spot.
 * The CLI maps InputError to exit code 2; any other exception is a bug.
 */

import type { LocUnit } from './model.ts';

export type InputErrorCode =
  | 'syntax'          // the bytes do not follow the format's grammar
  | 'truncated'       // the input ends in the middle of a record
  | 'unknown-format'  // --format auto could not tell what the file is
  | 'io'              // the file could not be read
  | 'inconsistent'    // well-formed, but contradicts itself (e.g. a txn in two sessions)
  | 'unsupported';    // well-formed, but outside what the checker supports (e.g. duplicate written values)

export class InputError extends Error {
  constructor(
    readonly code: InputErrorCode,
    readonly source: string,
    readonly unit: LocUnit | null,
    readonly loc: number,
    readonly detail: string,
  ) {
    super(`${source}${unit === null || loc < 0 ? '' : ` ${unit} ${loc}`}: ${detail}`);
    this.name = 'InputError';
  }
}
