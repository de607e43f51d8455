/**
 * Input for format modules: every path is opened once and read once, as a stream of chunks.
 *
 * Takes: a path (a regular file, a directory, `-` for standard input, /dev/stdin, a FIFO, a
 * character device) or bytes in memory. Gives: a `HistoryInput` that can read ahead a head for
 * `--format auto` (kept, and replayed first), then hand out the whole input as chunks, as
 * complete-line blocks, or as one buffer.
 * Invariant: the input is never reopened (a pipe or FIFO cannot be read twice); every failure
 * is an `InputError` (missing, unreadable, a directory where a file was expected, binary data
 * where text was expected, an input larger than `inputBytesMax` from a pipe or device, a line
 * longer than the format allows) or a `TimeLimitError('parse')` once the deadline has passed:
 * never unbounded growth, never a crash.
 */

// Regular files are read with synchronous calls, in the same chunks: a single check has nothing
// to do meanwhile, and node:fs/promises plus the thread pool cost a small check 3-5 ms (issue 10).
// Pipes, FIFOs and devices (which can block for long) still go through fs.promises, read when used.
import { closeSync, fstatSync, openSync, promises as fsp, readSync, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { InputError } from '../history/errors.ts';
import { checkDeadline } from '../util/deadline.ts';

/** How many bytes `--format auto` looks at. */
export const HEAD_BYTES = 64 * 1024;
/** Bytes asked of the operating system per read. */
export const CHUNK_BYTES = 1 << 20;
/**
 * Most bytes read from a pipe, FIFO or device (whose size is unknown), and most bytes of any
 * input a format must hold in memory at once (dbcop, dbcop-json, dbcop-hist, a Cobra log).
 * Streamed formats (text, jsonl, edn, elle-json) read regular files of any size.
 */
export const INPUT_BYTES_MAX = 2 * 1024 ** 3;
/** Paths that name standard input; reopening them fails for sockets (ENXIO), so fd 0 is read. */
const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

export interface ReadOptions {
  /** Epoch milliseconds; past it, reading throws TimeLimitError('parse'). */
  deadlineMs?: number;
  /** Called after every chunk read: bytes so far, and the total when known (regular files). */
  onProgress?: (bytesRead: number, totalBytes: number | null) => void;
  /** See INPUT_BYTES_MAX (tests use small values). */
  inputBytesMax?: number;
  /** Bytes per read (tests use tiny values to exercise every seam). */
  chunkBytes?: number;
}

/** An I/O failure as an InputError, in words (`PATH: cannot open the input: no such file or directory`), never a raw `ENOENT`. */
export function ioError(path: string, err: unknown, doing: string): InputError {
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

function sizeText(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let u = 0, v = bytes;
  while (v >= 1024 && u < units.length - 1 && v % 1024 === 0) { v /= 1024; u++; }
  return `${v} ${units[u]}`;
}

/**
 * The next bytes of the input, null at EOF. With `into`, a source that can (a regular file,
 * a FIFO, a device) reads at most into.length bytes into it and returns a view of them; other
 * sources ignore it and return their own chunks.
 */
type Pull = (into?: Uint8Array) => Promise<Uint8Array | null>;

/** One opened input. Read it with exactly one of chunks(), lineBlocks() or readAll(). */
export class HistoryInput {
  /** Bytes handed out by the operating system so far. */
  bytesRead = 0;
  /** Bytes read ahead by head(), replayed first by chunks(). */
  private ahead: Uint8Array[] = [];
  private aheadBytes = 0;
  private eof = false;
  private started = false;
  private readonly bytesMax: number;

  private constructor(
    /** The input's name in messages and in History.source (`<stdin>` for standard input). */
    readonly source: string,
    /** The path as given (a directory's formats list it themselves). */
    readonly path: string,
    readonly isDir: boolean,
    /** Size of a regular file (or of bytes in memory); null for pipes, FIFOs, devices. */
    readonly size: number | null,
    private readonly pull: Pull | null,
    private readonly release: () => Promise<void>,
    private readonly opts: ReadOptions,
  ) {
    this.bytesMax = opts.inputBytesMax ?? INPUT_BYTES_MAX;
    // Progress starts at 0 of the size (null when unknown: a pipe, a device, a directory).
    opts.onProgress?.(0, size);
  }

  /** Opens `path` once. InputError('io') if it is missing or unreadable. */
  static async open(path: string, opts: ReadOptions = {}): Promise<HistoryInput> {
    const chunk = Math.max(1, opts.chunkBytes ?? CHUNK_BYTES);
    if (path === '-') return HistoryInput.stdin(path, opts);
    let st;
    try {
      st = statSync(path);
    } catch (err) {
      throw ioError(path, err, 'open the input');
    }
    if (st.isDirectory()) return new HistoryInput(path, path, true, null, null, async () => {}, opts);
    if (st.isFile()) {
      const file = HistoryInput.regularFile(path, chunk, opts);
      if (file !== null) return file;
    }
    let fh: FileHandle;
    try {
      // A FIFO blocks here until a writer opens it, as with any reader.
      fh = await fsp.open(path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENXIO' && STDIN_PATHS.has(path)) return HistoryInput.stdin(path, opts);
      throw ioError(path, err, 'open the input');
    }
    const pull: Pull = async (into) => {
      const buf = into ?? Buffer.allocUnsafe(chunk);
      let n: number;
      try {
        // (cast: @types/node 20.9's Buffer and TS 5.9's Uint8Array generics disagree)
        n = (await fh.read(buf as unknown as Uint8Array, 0, buf.length, null)).bytesRead;
      } catch (err) {
        throw ioError(path, err, 'read the file');
      }
      return n === 0 ? null : buf.subarray(0, n);
    };
    return new HistoryInput(path, path, false, st.isFile() ? st.size : null, pull, () => fh.close(), opts);
  }

  /**
   * A regular file, opened and read synchronously; null when what was opened is no longer a
   * regular file (replaced since the stat): the caller then opens it as any other path.
   */
  private static regularFile(path: string, chunk: number, opts: ReadOptions): HistoryInput | null {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      throw ioError(path, err, 'open the input');
    }
    let st;
    try {
      st = fstatSync(fd);
    } catch (err) {
      closeSync(fd);
      throw ioError(path, err, 'open the input');
    }
    if (!st.isFile()) {
      closeSync(fd);
      return null;
    }
    let open = true;
    const pull: Pull = async () => {
      const buf = Buffer.allocUnsafe(chunk);
      let n: number;
      try {
        n = readSync(fd, buf, 0, chunk, null);
      } catch (err) {
        throw ioError(path, err, 'read the file');
      }
      return n === 0 ? null : buf.subarray(0, n);
    };
    const release = async (): Promise<void> => {
      if (open) closeSync(fd);
      open = false;
    };
    return new HistoryInput(path, path, false, st.size, pull, release, opts);
  }

  /** Standard input, read through Node's stream (works for pipes, sockets, files and terminals). */
  private static stdin(path: string, opts: ReadOptions): HistoryInput {
    const it = process.stdin[Symbol.asyncIterator]();
    const pull: Pull = async () => {
      const r = await it.next();
      return r.done === true ? null : (r.value as Buffer);
    };
    return new HistoryInput(path === '-' ? '<stdin>' : path, path, false, null, pull, async () => { await it.return?.(); }, opts);
  }

  /** Bytes already in memory, read like a file (`chunkBytes` still applies, for tests). */
  static fromBytes(bytes: Uint8Array, source = '<memory>', opts: ReadOptions = {}): HistoryInput {
    const chunk = Math.max(1, opts.chunkBytes ?? bytes.length);
    let at = 0;
    const pull: Pull = async () => {
      if (at >= bytes.length) return null;
      const piece = bytes.subarray(at, Math.min(bytes.length, at + chunk));
      at += piece.length;
      return piece;
    };
    return new HistoryInput(source, source, false, bytes.length, pull, async () => {}, opts);
  }

  async close(): Promise<void> {
    await this.release();
  }

  /** The next chunk from the operating system (null at EOF), with limits, deadline and progress. */
  private async next(into?: Uint8Array): Promise<Uint8Array | null> {
    if (this.isDir) throw ioError(this.path, Object.assign(new Error(), { code: 'EISDIR' }), 'read the file');
    if (this.eof) return null;
    checkDeadline(this.opts.deadlineMs ?? Number.POSITIVE_INFINITY, 'parse');
    const c = await this.pull!(into);
    if (c === null) {
      this.eof = true;
      return null;
    }
    this.bytesRead += c.length;
    if (this.size === null && this.bytesRead > this.bytesMax) {
      throw new InputError('io', this.source, null, -1,
        `input exceeds ${sizeText(this.bytesMax)}, the most read from a pipe or device; save it to a file`);
    }
    this.opts.onProgress?.(this.bytesRead, this.size);
    return c;
  }

  /** The first `n` bytes (fewer at EOF), read ahead and kept: chunks() still starts at byte 0. */
  async head(n = HEAD_BYTES): Promise<Uint8Array> {
    if (this.started) throw new Error('internal error: head() after the input was consumed');
    if (this.isDir) return new Uint8Array(0);
    while (this.aheadBytes < n) {
      const c = await this.next();
      if (c === null) break;
      this.ahead.push(c);
      this.aheadBytes += c.length;
    }
    return concat(this.ahead, this.aheadBytes).subarray(0, n);
  }

  /** The whole input as chunks, from byte 0 (the head first). Only one reader per input. */
  async *chunks(): AsyncGenerator<Uint8Array> {
    if (this.started) throw new Error('internal error: an input is read twice');
    this.started = true;
    const ahead = this.ahead;
    this.ahead = [];
    for (const c of ahead) yield c;
    for (;;) {
      const c = await this.next();
      if (c === null) return;
      yield c;
    }
  }

  /** The whole input in one buffer, for formats that need it at once; at most inputBytesMax. */
  async readAll(): Promise<Uint8Array> {
    if (this.size !== null && this.size > this.bytesMax) {
      throw new InputError('io', this.source, null, -1,
        `the file has ${this.size} bytes; this format is read whole, and at most ${sizeText(this.bytesMax)} can be held`);
    }
    const parts: Uint8Array[] = [];
    let total = 0;
    // Size known: each read goes straight into its place (no copy, no buffer per chunk), so the
    // peak is the file. Bytes beyond it (the file grew) are appended below.
    const out = this.size === null ? null : new Uint8Array(this.size);
    const chunk = Math.max(1, this.opts.chunkBytes ?? CHUNK_BYTES);
    if (this.started) throw new Error('internal error: an input is read twice');
    const ahead = this.ahead;
    const direct = out !== null && !this.isDir;
    if (direct) {
      this.started = true;
      this.ahead = [];
      for (const c of ahead) {
        if (parts.length === 0 && total + c.length <= out.length) { out.set(c, total); total += c.length; }
        else { if (parts.length === 0) parts.push(out.subarray(0, total)); parts.push(c); total += c.length; }
      }
    }
    const source: AsyncIterable<Uint8Array> = direct ? {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          const room = parts.length === 0 && total < out.length;
          const c = await this.next(room ? out.subarray(total, Math.min(out.length, total + chunk)) : undefined);
          return c === null ? { done: true, value: undefined } : { done: false, value: c };
        },
      }),
    } : this.chunks();
    for await (const c of source) {
      if (out !== null && parts.length === 0 && c.buffer === out.buffer && c.byteOffset === out.byteOffset + total) {
        total += c.length; // read in place
        continue;
      }
      if (out !== null && parts.length === 0 && total + c.length <= out.length) {
        out.set(c, total);
        total += c.length;
        continue;
      }
      if (out !== null && parts.length === 0) {
        const fit = out.length - total;
        out.set(c.subarray(0, fit), total);
        parts.push(out, c.subarray(fit));
        total += c.length;
        continue;
      }
      parts.push(c);
      total += c.length;
      if (total > this.bytesMax) {
        throw new InputError('io', this.source, null, -1, `input exceeds ${sizeText(this.bytesMax)}, the most this format can hold`);
      }
    }
    if (out !== null && parts.length === 0) return total === out.length ? out : out.subarray(0, total); // (the file shrank)
    return concat(parts, total);
  }

  /**
   * The input as blocks of complete lines (each ends with '\n', except the last at EOF), for
   * line-oriented text formats. Cutting at '\n' never splits a UTF-8 character. A NUL byte is
   * 'binary data where text was expected' (no text format has one), and a line longer than
   * `lineBytesMax` is an error, so an endless input without newlines ends instead of growing.
   * A block is valid only until the next one is asked for (its memory is read into again).
   *
   * Speed: the next chunk is read while the consumer parses this one (the read runs on libuv's
   * thread pool, so on the second core); a file is read into two buffers used in turn, not a
   * fresh buffer per chunk; and a chunk's lines are handed out as a view of it, with only the
   * line cut by the chunk's end copied (as a block of its own), not the whole chunk.
   */
  async *lineBlocks(lineBytesMax: number): AsyncGenerator<Uint8Array> {
    if (this.started) throw new Error('internal error: an input is read twice');
    this.started = true;
    const ahead = this.ahead;
    this.ahead = [];
    let aheadAt = 0;
    const chunk = Math.max(1, this.opts.chunkBytes ?? CHUNK_BYTES);
    const buffers: Uint8Array[] = [];
    let turn = 0;
    // The buffer read into is never one the consumer still holds: the block handed out last
    // lies in the other buffer, and the cut line is copied out before its buffer is read into.
    const read = (): Promise<Uint8Array | null> => {
      if (aheadAt < ahead.length) return Promise.resolve(ahead[aheadAt++]!);
      turn ^= 1;
      buffers[turn] ??= Buffer.allocUnsafe(chunk) as unknown as Uint8Array;
      return this.next(buffers[turn]);
    };
    let pending: Uint8Array = new Uint8Array(0); // the unfinished line (a copy, never a view)
    let offset = 0; // byte offset of the chunk being looked at
    let lineAt = 0; // byte offset where the unfinished line starts (for the too-long error)
    let prefetch: Promise<Uint8Array | null> | null = read();
    try {
      for (;;) {
        const c: Uint8Array | null = await prefetch;
        prefetch = null;
        if (c === null) break;
        const buf = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
        const nul = buf.indexOf(0);
        if (nul >= 0) {
          throw new InputError('syntax', this.source, 'byte', offset + nul, 'binary data (a NUL byte) where text was expected');
        }
        const nl = buf.lastIndexOf(10);
        if (nl < 0) {
          offset += c.length;
          pending = concat([pending, c], pending.length + c.length, true);
          if (pending.length > lineBytesMax) {
            throw new InputError('syntax', this.source, 'byte', lineAt,
              `the line starting here is longer than ${sizeText(lineBytesMax)}, the most this format accepts`);
          }
          prefetch = read();
          continue;
        }
        lineAt = offset + nl + 1;
        offset += c.length;
        // The line cut by the last chunk's end, completed: a block of its own.
        let cut: Uint8Array | null = null;
        let from = 0;
        if (pending.length > 0) {
          const first = buf.indexOf(10);
          cut = concat([pending, c.subarray(0, first + 1)], pending.length + first + 1, true);
          from = first + 1;
        }
        pending = c.slice(nl + 1);
        prefetch = read();
        prefetch.catch(() => {}); // awaited below, or dropped in `finally` when the consumer stops
        if (cut !== null) yield cut;
        if (from < nl + 1) yield c.subarray(from, nl + 1);
      }
      if (pending.length > 0) yield pending;
    } finally {
      // A consumer that stops early (a parse error) must not close the file under a read.
      if (prefetch !== null) await prefetch.catch(() => null);
    }
  }
}

/** The parts joined (the first `total` bytes); `copy` makes a new array even for one part. */
function concat(parts: readonly Uint8Array[], total: number, copy = false): Uint8Array {
  if (parts.length === 1 && !copy) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p.subarray(0, Math.min(p.length, total - at)), at);
    at += p.length;
    if (at >= total) break;
  }
  return out;
}

/** Opens `input` when given a path (and closes it after `f`); passes an open input through. */
export async function withInput<T>(input: string | HistoryInput, f: (inp: HistoryInput) => Promise<T>): Promise<T> {
  if (typeof input !== 'string') return f(input);
  const inp = await HistoryInput.open(input);
  try {
    return await f(inp);
  } finally {
    await inp.close();
  }
}

/** The whole file as bytes (opened and read once). */
export async function readFileBytes(path: string): Promise<Uint8Array> {
  return withInput(path, (inp) => inp.readAll());
}

/** Whether `path` is a directory, and its first HEAD_BYTES bytes if it is not. */
export async function readHead(path: string): Promise<{ head: Uint8Array; isDir: boolean }> {
  return withInput(path, async (inp) => ({ head: await inp.head(), isDir: inp.isDir }));
}
