/**
 * Where `polysi run` records: the `--out` file, opened so that a run never silently replaces a
 * recording (a database cannot replay one: the old file may be the only evidence of a bug).
 *
 * Takes: the --out path (or none: a new name per run) and --force. Gives: an open file
 * descriptor for JsonlRecorder, and the path it names.
 * Invariant: without --force the file is created, never opened if it exists (O_EXCL: no race
 * between a check and the open); with --force an existing regular file is replaced, but a
 * symbolic link or anything other than a regular file is still refused (O_NOFOLLOW), as every
 * output of the CLI is (output.ts). The default name carries the start time, and a number when
 * two runs start in the same second, so each run gets its own file.
 */

import { constants, lstatSync, openSync } from 'node:fs';

/** A file `--out` may not be written to; the message says why and what to do. */
export class OutFileError extends Error {}

/** `polysi-run-20261127-110402.jsonl`: local time, sortable. */
export function defaultOutName(at: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `polysi-run-${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}-${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}.jsonl`;
}

/**
 * Refuses early (before connecting to a database) what openOut would refuse: an existing path
 * without --force, a link or non-regular file even with it. A missing path is fine.
 */
export function checkOut(path: string, force: boolean): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // missing (or unreadable): the open says what is wrong
  }
  if (st.isSymbolicLink()) throw new OutFileError(`--out ${path}: is a symbolic link; polysi run does not write through links (give the real path)`);
  if (!st.isFile()) throw new OutFileError(`--out ${path}: exists and is not a regular file`);
  if (!force) {
    throw new OutFileError(`--out ${path}: the file exists (a previous recording? a database cannot reproduce it); give another name, or --force to replace it`);
  }
}

/**
 * Opens the recording. `path` undefined: the default name of `at`, numbered (-2, -3, ...) if a
 * file of that name exists. Throws OutFileError for what checkOut refuses, and the system's
 * error (ENOENT, EACCES...) for a path that cannot be created.
 */
export function openOut(path: string | undefined, force: boolean, at: Date): { fd: number; path: string } {
  if (path === undefined) {
    const base = defaultOutName(at);
    for (let n = 1; ; n++) {
      const p = n === 1 ? base : base.replace(/\.jsonl$/, `-${n}.jsonl`);
      try {
        return { fd: openSync(p, 'wx'), path: p };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw err;
      }
    }
  }
  checkOut(path, force);
  const flags = force ? constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW : 'wx';
  try {
    return { fd: openSync(path, flags), path };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // The path appeared (or became a link) between the check and the open.
    if (code === 'EEXIST' || code === 'ELOOP') checkOut(path, force);
    throw err;
  }
}
