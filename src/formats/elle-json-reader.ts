/**
 * JSON reader for the streaming driver: strict RFC 8259 JSON, integers kept exact.
 *
 * Takes: bytes of a JSON document, of JSON Lines, or of a top-level JSON array (whose elements
 * the driver streams one by one). Gives: forms as `elle-values.ts` trees: objects as `Obj` with
 * string keys, arrays, strings, integers (number, or bigint beyond 2^53: `JSON.parse` would
 * silently round them), other numbers as `Flt`, true / false / null.
 * Invariant: anything that is not JSON (comments, trailing commas, single quotes, NaN, control
 * characters in strings, invalid UTF-8) is an InputError naming the line and what was expected.
 */

import { intValue } from './io-int.ts';
import { Flt, Obj } from './elle-values.ts';
import { MAX_DEPTH, NEED_MORE, Scanner, type ScanOptions } from './elle-stream.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes that may continue a number token (so we know where a number cut by the buffer ends). */
const NUM = new Uint8Array(256);
for (const c of '0123456789+-.eE') NUM[c.charCodeAt(0)] = 1;

const NUMBER_RE = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

export class JsonScanner extends Scanner {
  protected readonly commaSeparated = true;

  constructor(source: string, opts: ScanOptions = {}) {
    super(source, opts);
  }

  protected topSequenceCloser(c: number): number {
    return c === 0x5b ? 0x5d : -1;
  }

  protected skipSpace(): void {
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    while (p < end) {
      const c = buf[p]!;
      if (c === 0x0a) this.line++;
      else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
      p++;
    }
    this.pos = p;
  }

  protected readForm(depth: number): unknown {
    if (depth > MAX_DEPTH) this.syntax(`values nested deeper than ${MAX_DEPTH} levels`);
    if (this.pos >= this.end) this.more('expected a value');
    const c = this.buf[this.pos]!;
    switch (c) {
      case 0x7b: return this.readObject(depth);
      case 0x5b: return this.readArray(depth);
      case 0x22: return this.readString();
      case 0x74: return this.literal('true', true);
      case 0x66: return this.literal('false', false);
      case 0x6e: return this.literal('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.readNumber();
        return this.syntax(`unexpected ${this.here()}; expected a JSON value`);
    }
  }

  private literal(word: string, value: unknown): unknown {
    const p = this.pos;
    for (let i = 0; i < word.length; i++) {
      if (p + i >= this.end) this.more(`expected '${word}'`);
      if (this.buf[p + i] !== word.charCodeAt(i)) {
        this.pos = p + i;
        this.syntax(`unexpected ${this.here()}; expected '${word}'`);
      }
    }
    this.pos = p + word.length;
    return value;
  }

  private readNumber(): unknown {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    let neg = false;
    if (buf[p] === 0x2d) {
      neg = true;
      p++;
    }
    const digitsStart = p;
    let n = 0;
    while (p < this.end) {
      const d = buf[p]! - 0x30;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
      p++;
    }
    let q = p;
    while (q < this.end && NUM[buf[q]!] === 1) q++;
    if (q >= this.end && !this.eof) throw NEED_MORE;
    this.pos = q;
    const nd = p - digitsStart;
    if (q === p && nd > 0 && nd <= 15 && (buf[digitsStart] !== 0x30 || nd === 1)) return neg ? (n === 0 ? 0 : -n) : n;
    const tok = buf.toString('latin1', start, q);
    const m = NUMBER_RE.exec(tok);
    if (m === null) {
      this.pos = start;
      return this.syntax(`malformed number ${JSON.stringify(tok)}`);
    }
    if (m[1] === undefined && m[2] === undefined) return intValue(tok);
    return new Flt(Number(tok), tok);
  }

  private readString(): string {
    const buf = this.buf;
    let p = this.pos + 1;
    const start = p;
    let simple = true;
    for (;;) {
      if (p >= this.end) this.more("the string is not closed; expected '\"'");
      const c = buf[p]!;
      if (c === 0x22) break;
      if (c < 0x20) {
        this.pos = p;
        this.syntax(`control character ${this.here()} inside a string; expected it escaped`);
      }
      if (c === 0x5c) {
        simple = false;
        p += 2;
        continue;
      }
      if (c >= 0x80) simple = false;
      p++;
    }
    this.pos = p + 1;
    if (simple) return buf.toString('latin1', start, p);
    let raw: string;
    try {
      raw = utf8.decode(buf.subarray(start, p));
    } catch {
      return this.syntax('invalid UTF-8 inside a string');
    }
    if (raw.indexOf('\\') < 0) return raw;
    return raw.replace(/\\(u[0-9a-fA-F]{4}|[\s\S])/g, (m, e: string) => {
      switch (e[0]) {
        case '"': return '"';
        case '\\': return '\\';
        case '/': return '/';
        case 'b': return '\b';
        case 'f': return '\f';
        case 'n': return '\n';
        case 'r': return '\r';
        case 't': return '\t';
        default:
          if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
          return this.syntax(`invalid escape ${m} in a string`);
      }
    });
  }

  private readArray(depth: number): unknown[] {
    const openLine = this.line;
    this.pos++;
    const items: unknown[] = [];
    this.skipSpace();
    if (this.pos >= this.end) this.more(`the array opened at line ${openLine} is not closed; expected ']'`, openLine);
    if (this.buf[this.pos] === 0x5d) {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.readForm(depth + 1));
      this.skipSpace();
      if (this.pos >= this.end) this.more(`the array opened at line ${openLine} is not closed; expected ',' or ']'`, openLine);
      const c = this.buf[this.pos]!;
      this.pos++;
      if (c === 0x5d) return items;
      if (c !== 0x2c) {
        this.pos--;
        this.syntax(`unexpected ${this.here()} in the array opened at line ${openLine}; expected ',' or ']'`);
      }
      this.skipSpace();
      if (this.pos >= this.end) this.more(`the array opened at line ${openLine} is not closed; expected a value`, openLine);
    }
  }

  private readObject(depth: number): Obj {
    const openLine = this.line;
    this.pos++;
    const kv: unknown[] = [];
    this.skipSpace();
    if (this.pos >= this.end) this.more(`the object opened at line ${openLine} is not closed; expected '}'`, openLine);
    if (this.buf[this.pos] === 0x7d) {
      this.pos++;
      return new Obj(kv, openLine);
    }
    for (;;) {
      if (this.pos >= this.end) this.more(`the object opened at line ${openLine} is not closed; expected a key`, openLine);
      if (this.buf[this.pos] !== 0x22) this.syntax(`unexpected ${this.here()} in the object opened at line ${openLine}; expected a "key"`);
      kv.push(this.readString());
      this.skipSpace();
      if (this.pos >= this.end) this.more(`the object opened at line ${openLine} is not closed; expected ':'`, openLine);
      if (this.buf[this.pos] !== 0x3a) this.syntax(`unexpected ${this.here()} after a key; expected ':'`);
      this.pos++;
      this.skipSpace();
      kv.push(this.readForm(depth + 1));
      this.skipSpace();
      if (this.pos >= this.end) this.more(`the object opened at line ${openLine} is not closed; expected ',' or '}'`, openLine);
      const c = this.buf[this.pos]!;
      if (c === 0x7d) {
        this.pos++;
        return new Obj(kv, openLine);
      }
      if (c !== 0x2c) this.syntax(`unexpected ${this.here()} in the object opened at line ${openLine}; expected ',' or '}'`);
      this.pos++;
      this.skipSpace();
    }
  }
}
