/**
 * Standard output and error for the CLI, written with `fs.writeSync` on the descriptors.
 *
 * Takes: text for stdout (fd 1) or stderr (fd 2). Gives: `writeStd(fd, s)`, which writes all of
 * `s` before it returns, and `stderrIsTTY()` (asked only when progress is not forced on or off).
 * Why not `process.stdout.write`: the first touch of `process.stdout` builds a stream (a
 * `net.Socket` for a pipe, a `SyncWriteStream` for a file), which loads Node's stream, net and
 * tty modules: 2-4 ms of a 360-transaction check's ~40 ms of our own work (issue 10). On Linux
 * Node writes stdout and stderr synchronously anyway, so the output, its order and the exit code
 * are the same.
 * Invariant: every byte is written, in order, or the process ends: a closed stdout (`polysi ... |
 * head`) exits 2 quietly, as bin/polysi.cjs does for the stream. A descriptor that is
 * non-blocking (shared with a parent that made it so) can refuse a write with EAGAIN: from then
 * on that descriptor's output goes through Node's stream, which waits for the reader and is
 * flushed before the process exits.
 */

import { fstatSync, writeSync } from 'node:fs';

/** Descriptors handed over to Node's stream after an EAGAIN (their later output must follow it). */
const viaStream = new Set<number>();

export function writeStd(fd: 1 | 2, s: string): void {
  if (viaStream.has(fd)) {
    stream(fd).write(s);
    return;
  }
  const buf = Buffer.from(s, 'utf8');
  let at = 0;
  while (at < buf.length) {
    try {
      at += writeSync(fd, buf, at, buf.length - at);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        viaStream.add(fd);
        stream(fd).write(buf.subarray(at));
        return;
      }
      // Nobody reads stdout any more: nothing else can be said there, and stderr is for errors.
      if (code === 'EPIPE' && fd === 1) process.exit(2);
      throw err;
    }
  }
}

function stream(fd: 1 | 2): NodeJS.WriteStream {
  return fd === 1 ? process.stdout : process.stderr;
}

/**
 * Whether stderr is a terminal, without building `process.stderr`: only a character device can
 * be one (a pipe or a file is answered by one fstat), and only then is node:tty asked.
 */
export async function stderrIsTTY(): Promise<boolean> {
  try {
    if (!fstatSync(2).isCharacterDevice()) return false;
  } catch {
    return false; // closed
  }
  return (await import('node:tty')).isatty(2);
}
