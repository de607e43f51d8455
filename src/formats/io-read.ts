/**
 * File access for format modules: whole-file reads and 64 KiB heads, with every failure turned
 * into an `InputError('io', ...)`.
 *
 * Takes: a path. Gives: the bytes (or UTF-8 text) of the file, or its first bytes for sniffing.
 * Invariant: never throws anything but InputError for a missing, unreadable or special file,
 * so the CLI can report it as bad input (exit 2) instead of a crash.
 */

import { open, readFile, stat } from 'node:fs/promises';
import { InputError } from '../history/errors.ts';
import { decodeUtf8 } from './utf8.ts';

/** How many bytes `--format auto` looks at. */
export const HEAD_BYTES = 64 * 1024;

function ioError(path: string, err: unknown, doing: string): InputError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const why =
    code === 'ENOENT' ? 'no such file or directory'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'EISDIR' ? 'is a directory, expected a file'
    : code === 'ENOTDIR' ? 'a component of the path is not a directory'
    : err instanceof Error ? err.message
    : String(err);
  return new InputError('io', path, null, -1, `cannot ${doing}: ${why}`);
}

/** The whole file as bytes. */
export async function readFileBytes(path: string): Promise<Uint8Array> {
  try {
    const buf = await readFile(path);
    // A Buffer may be a view on a shared pool; hand out an exact view so DataView offsets start at 0.
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (err) {
    throw ioError(path, err, 'read the file');
  }
}

/**
 * The whole file as text (UTF-8; a leading byte-order mark is kept for the parser to skip).
 * Invalid UTF-8 is an InputError naming the line, never silently replaced (see utf8.ts).
 */
export async function readFileText(path: string): Promise<string> {
  return decodeUtf8(await readFileBytes(path), path);
}

/** Whether `path` is a directory, and the first HEAD_BYTES bytes if it is a file. */
export async function readHead(path: string): Promise<{ head: Uint8Array; isDir: boolean }> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (err) {
    throw ioError(path, err, 'open the input');
  }
  if (isDir) return { head: new Uint8Array(0), isDir };
  try {
    const fh = await open(path, 'r');
    try {
      const buf = new Uint8Array(HEAD_BYTES);
      let filled = 0;
      // read() may return fewer bytes than asked (pipes, network file systems): loop until EOF.
      while (filled < buf.length) {
        const { bytesRead } = await fh.read(buf, filled, buf.length - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return { head: buf.subarray(0, filled), isDir };
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw ioError(path, err, 'read the file');
  }
}
