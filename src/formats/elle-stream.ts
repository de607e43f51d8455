/**
 * Streaming, restartable parsing of text files made of many small top-level forms (EDN, JSON).
 *
 * Takes: an opened input (file, pipe, device; see io-read.ts) or bytes, and a sink. Gives: each top-level form, with the line it starts
 * on, to the sink, in file order. A top-level sequence (`[...]`, and `(...)` in EDN) is not
 * built: its elements are streamed one by one, so "one vector of all operations" costs no more
 * memory than "one map per line".
 * Invariant: memory is bounded by the chunk size plus the largest single form (one Jepsen
 * operation), whatever the file size; an input cut anywhere inside a form (or inside an
 * unclosed top-level sequence) is an InputError('truncated'), never a shorter result.
 *
 * How: the file is read into a buffer in chunks. The syntax-specific scanner (subclass) reads a
 * form synchronously from `buf[pos..end)`; when it runs off the end before EOF it throws
 * NEED_MORE, the driver rewinds to the start of that form, moves the unread tail to the front,
 * reads more (doubling the buffer if one form fills it) and parses the form again. Forms are
 * small, so re-parsing the cut one costs nothing measurable.
 */

import { InputError } from '../history/errors.ts';
import type { HistoryInput } from './io-read.ts';

/** Thrown (never as an Error: no stack capture) when the buffered bytes end inside a form. */
export const NEED_MORE = Symbol('need-more');

/** Deepest nesting accepted: deeper input is rejected instead of overflowing the JS stack. */
export const MAX_DEPTH = 256;
/** Largest single top-level form (one Jepsen operation): past it, an error instead of growing. */
export const FORM_BYTES_MAX = 256 * 1024 * 1024;

export type FormSink = (form: unknown, line: number) => void;

const START = 0;
const FORMS = 1;
const SEQ_FIRST = 2;
const SEQ_AFTER_ELEM = 3;
const SEQ_AFTER_SEP = 4;
const AFTER_SEQ = 5;

export interface ScanOptions {
  /** Stream the elements of a top-level sequence instead of returning it as one form. */
  streamTopSequence?: boolean;
  /** Initial buffer size and read size in bytes (tests use tiny ones to exercise refills). */
  chunkBytes?: number;
  /** What the 'truncated' error says when the input holds no form at all. */
  emptyDetail?: string;
}

export abstract class Scanner {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;
  /** 1-based line of `buf[pos]`. */
  line = 1;
  eof = false;

  private state = START;
  /** Top-level forms handed to the sink so far. */
  forms = 0;
  private seqClose = -1;
  private seqLine = 0;
  private readonly streamTop: boolean;
  private readonly chunk: number;
  private readonly emptyDetail: string;

  constructor(readonly source: string, opts: ScanOptions = {}) {
    this.streamTop = opts.streamTopSequence ?? true;
    this.chunk = Math.max(1, opts.chunkBytes ?? 1 << 20);
    this.emptyDetail = opts.emptyDetail ?? 'no operations in the input (an empty history is written as [])';
  }

  /** Skips whitespace and comments; throws NEED_MORE if it cannot tell where they end. */
  protected abstract skipSpace(): void;
  /** Reads one form starting at `pos` (after skipSpace); throws NEED_MORE or InputError. */
  protected abstract readForm(depth: number): unknown;
  /** If byte `c` opens a sequence that may be streamed at top level, its closing byte; else -1. */
  protected abstract topSequenceCloser(c: number): number;
  /** True if elements of a top-level sequence are separated by commas (JSON). */
  protected abstract readonly commaSeparated: boolean;
  /** Returned by readForm for input that is not a value (EDN `#_ form`); ignored by the driver. */
  static readonly SKIP = Symbol('skip');

  /** Parses a whole input (file, pipe, device), streaming its chunks through the buffer. */
  async parseInput(input: HistoryInput, sink: FormSink): Promise<void> {
    const chunks = input.chunks()[Symbol.asyncIterator]();
    let cur: Uint8Array | null = null;
    let curPos = 0;
    this.buf = Buffer.allocUnsafe(this.chunk);
    this.pos = 0;
    this.end = 0;
    for (;;) {
      if (this.pump(sink)) return;
      await this.refill(async (b, off, len) => {
        if (cur === null || curPos >= cur.length) {
          const r = await chunks.next();
          if (r.done === true) return 0;
          cur = r.value;
          curPos = 0;
        }
        const n = Math.min(len, cur.length - curPos);
        b.set(cur.subarray(curPos, curPos + n), off);
        curPos += n;
        return n;
      });
    }
  }

  /** Parses bytes already in memory; `chunkBytes` still applies, to test the refill path. */
  parseBytes(bytes: Uint8Array, sink: FormSink): void {
    if (this.chunk >= bytes.length) {
      this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.end = bytes.length;
      this.eof = true;
      if (!this.pump(sink)) throw new Error('internal error: scanner asked for more input at EOF');
      return;
    }
    // Feed the bytes in chunks, exactly like a file.
    let fed = 0;
    this.buf = Buffer.allocUnsafe(this.chunk);
    for (;;) {
      if (this.pump(sink)) return;
      this.refillSync((b, off, len) => {
        const n = Math.min(len, bytes.length - fed);
        b.set(bytes.subarray(fed, fed + n), off);
        fed += n;
        return n;
      });
    }
  }

  /** Makes room (keeping the unread tail) and reads until the buffer is full or EOF. */
  private async refill(read: (b: Buffer, off: number, len: number) => Promise<number>): Promise<void> {
    this.compact();
    while (this.end < this.buf.length) {
      const n = await read(this.buf, this.end, Math.min(this.chunk, this.buf.length - this.end));
      if (n === 0) {
        this.eof = true;
        return;
      }
      this.end += n;
    }
  }

  private refillSync(read: (b: Buffer, off: number, len: number) => number): void {
    this.compact();
    while (this.end < this.buf.length) {
      const n = read(this.buf, this.end, Math.min(this.chunk, this.buf.length - this.end));
      if (n === 0) {
        this.eof = true;
        return;
      }
      this.end += n;
    }
  }

  private compact(): void {
    const keep = this.end - this.pos;
    if (this.pos === 0 && this.end === this.buf.length) {
      // One form fills the whole buffer: grow it (doubling keeps total re-parsing linear).
      if (this.buf.length >= FORM_BYTES_MAX) {
        throw new InputError('syntax', this.source, 'line', this.line,
          `a single form starting here is longer than ${FORM_BYTES_MAX / 1024 / 1024} MiB, the most accepted`);
      }
      const next = Buffer.allocUnsafe(Math.max(16, this.buf.length * 2));
      next.set(this.buf.subarray(0, this.end));
      this.buf = next;
    } else if (this.pos > 0) {
      this.buf.copyWithin(0, this.pos, this.end);
    }
    this.pos = 0;
    this.end = keep;
  }

  /** Throws NEED_MORE before EOF; at EOF, a 'truncated' error saying what was still expected. */
  protected more(what: string, openLine = this.line): never {
    if (!this.eof) throw NEED_MORE;
    throw new InputError('truncated', this.source, 'line', openLine, `unexpected end of input: ${what}`);
  }

  protected syntax(detail: string, line = this.line): never {
    throw new InputError('syntax', this.source, 'line', line, detail);
  }

  /** A printable description of the byte at `pos`, for "unexpected ..." messages. */
  protected here(): string {
    if (this.pos >= this.end) return 'end of input';
    const c = this.buf[this.pos]!;
    return c >= 0x21 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`;
  }

  /**
   * Parses as many top-level forms as the buffer holds. Returns true when the input is finished,
   * false when it needs more bytes (with `pos` rewound to the first unparsed form).
   */
  private pump(sink: FormSink): boolean {
    for (;;) {
      const mark = this.pos;
      const markLine = this.line;
      try {
        this.skipSpace();
        if (this.pos >= this.end) {
          if (!this.eof) throw NEED_MORE;
          if (this.state >= SEQ_FIRST && this.state <= SEQ_AFTER_SEP) {
            this.more(`the top-level '${String.fromCharCode(this.seqClose === 0x5d ? 0x5b : 0x28)}' opened at line ${this.seqLine} is not closed; expected '${String.fromCharCode(this.seqClose)}'`, this.seqLine);
          }
          if (this.state <= FORMS && this.forms === 0) {
            // Nothing but blanks and comments: a file cut before its first form, not an empty history.
            throw new InputError('truncated', this.source, 'line', this.line, this.emptyDetail);
          }
          return true;
        }
        const c = this.buf[this.pos]!;
        switch (this.state) {
          case START: {
            // A UTF-8 byte-order mark is not part of the text.
            if (c === 0xef && this.pos === 0) {
              if (this.end < 3 && !this.eof) throw NEED_MORE;
              if (this.end >= 3 && this.buf[1] === 0xbb && this.buf[2] === 0xbf) {
                this.pos = 3;
                continue;
              }
            }
            const close = this.streamTop ? this.topSequenceCloser(c) : -1;
            if (close >= 0) {
              this.pos++;
              this.seqClose = close;
              this.seqLine = this.line;
              this.state = SEQ_FIRST;
            } else {
              this.state = FORMS;
            }
            continue;
          }
          case FORMS: {
            const line = this.line;
            const form = this.readForm(0);
            if (form !== Scanner.SKIP) {
              this.forms++;
              sink(form, line);
            }
            continue;
          }
          case SEQ_FIRST:
          case SEQ_AFTER_ELEM:
          case SEQ_AFTER_SEP: {
            if (c === this.seqClose && this.state !== SEQ_AFTER_SEP) {
              this.pos++;
              this.state = AFTER_SEQ;
              continue;
            }
            if (this.commaSeparated) {
              if (this.state === SEQ_AFTER_ELEM) {
                if (c !== 0x2c) this.syntax(`expected ',' or '${String.fromCharCode(this.seqClose)}' after an element of the top-level array, found ${this.here()}`);
                this.pos++;
                this.state = SEQ_AFTER_SEP;
                continue;
              }
              if (c === 0x2c || c === this.seqClose) this.syntax(`expected a value, found ${this.here()}`);
            }
            const line = this.line;
            const form = this.readForm(1);
            this.state = SEQ_AFTER_ELEM;
            if (form !== Scanner.SKIP) {
              this.forms++;
              sink(form, line);
            }
            continue;
          }
          default:
            this.syntax(`expected end of input after the top-level sequence opened at line ${this.seqLine}, found ${this.here()}`);
        }
      } catch (e) {
        if (e === NEED_MORE) {
          this.pos = mark;
          this.line = markLine;
          return false;
        }
        throw e;
      }
    }
  }
}
