/**
 * EDN reader: the subset of EDN that Jepsen writes, read from bytes by the streaming driver.
 *
 * Takes: bytes of an EDN file. Gives: forms as `elle-values.ts` trees: maps, vectors, lists
 * (as arrays), sets, keywords, symbols, strings, characters (as strings), integers (exact; `N`
 * suffix allowed), floats (`M` suffix, ratios and `##Inf` / `##NaN` as `Flt`), nil, booleans.
 * Tagged literals `#tag form` (e.g. `#jepsen.history.Op{...}`, `#inst "..."`) read as `form`;
 * `#_ form` is discarded; `;` comments and commas are whitespace.
 * Invariant: anything else (metadata `^`, quote, reader conditionals, octal / hex / radix
 * integers, unbalanced delimiters) is an InputError naming the line and what was expected.
 */

import { intValue } from './io-int.ts';
import { EdnSet, Flt, Kw, Obj, Sym } from './elle-values.ts';
import { MAX_DEPTH, NEED_MORE, Scanner, type ScanOptions } from './elle-stream.ts';

/** Byte classes: 1 = whitespace (incl. comma), 2 = delimiter (ends a token), 4 = token byte. */
const CLASS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d, 0x0c, 0x0b, 0x2c]) CLASS[c] = 1;
for (const c of '()[]{}";') CLASS[c.charCodeAt(0)] = 2;
for (let c = 0x21; c < 256; c++) if (CLASS[c] === 0 && c !== 0x7f) CLASS[c] = 4;

const NAMED_CHARS: Record<string, string> = {
  newline: '\n', space: ' ', tab: '\t', return: '\r', backspace: '\b', formfeed: '\f',
};

/** Keyword cache size (a power of two). */
const KW_SLOTS = 256;

const INT_RE = /^[+-]?(?:0|[1-9][0-9]*)N?$/;
const FLOAT_RE = /^[+-]?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?M?$/;
const RATIO_RE = /^[+-]?[0-9]+\/[0-9]+$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export class EdnScanner extends Scanner {
  protected readonly commaSeparated = false;

  constructor(source: string, opts: ScanOptions = {}) {
    super(source, opts);
  }

  protected topSequenceCloser(c: number): number {
    return c === 0x5b ? 0x5d : c === 0x28 ? 0x29 : -1;
  }

  protected skipSpace(): void {
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    while (p < end) {
      const c = buf[p]!;
      if (c === 0x0a) {
        this.line++;
        p++;
      } else if (CLASS[c] === 1) {
        p++;
      } else if (c === 0x3b) {
        // A comment runs to the end of the line; if the buffer ends first, we cannot know
        // whether the rest of the comment hides a newline, so ask for more.
        const nl = buf.indexOf(0x0a, p);
        if (nl < 0 || nl >= end) {
          if (!this.eof) throw NEED_MORE;
          p = end;
        } else {
          p = nl;
        }
      } else {
        break;
      }
    }
    this.pos = p;
  }

  /** End of the token starting at `start`; NEED_MORE if the buffer ends inside it. */
  private tokenEnd(start: number, what: string): number {
    const buf = this.buf;
    const end = this.end;
    let p = start;
    while (p < end && CLASS[buf[p]!] === 4) p++;
    if (p >= end && !this.eof) throw NEED_MORE;
    if (p === start) this.syntax(`expected ${what}, found ${this.here()}`);
    return p;
  }

  private text(a: number, b: number): string {
    const buf = this.buf;
    for (let i = a; i < b; i++) {
      if (buf[i]! >= 0x80) {
        try {
          return utf8.decode(buf.subarray(a, b));
        } catch {
          this.syntax('invalid UTF-8');
        }
      }
    }
    return buf.toString('latin1', a, b);
  }

  protected readForm(depth: number): unknown {
    if (depth > MAX_DEPTH) this.syntax(`forms nested deeper than ${MAX_DEPTH} levels`);
    if (this.pos >= this.end) this.more('expected a value');
    const c = this.buf[this.pos]!;
    switch (c) {
      case 0x7b: // {
        return this.readMap(depth);
      case 0x5b: // [
        return this.readSeq(depth, 0x5d, 'vector');
      case 0x28: // (
        return this.readSeq(depth, 0x29, 'list');
      case 0x22: // "
        return this.readString();
      case 0x3a: // :
        return this.readKeyword();
      case 0x23: // #
        return this.readDispatch(depth);
      case 0x5c: // \
        return this.readChar();
      case 0x29: case 0x5d: case 0x7d:
        return this.syntax(`unexpected ${this.here()}: no form is open here; expected a value`);
      default:
        break;
    }
    if ((c >= 0x30 && c <= 0x39) || ((c === 0x2d || c === 0x2b) && this.pos + 1 < this.end && this.buf[this.pos + 1]! >= 0x30 && this.buf[this.pos + 1]! <= 0x39)) {
      return this.readNumber();
    }
    if ((c === 0x2d || c === 0x2b) && this.pos + 1 >= this.end && !this.eof) throw NEED_MORE;
    if (CLASS[c] === 4 && c !== 0x5e && c !== 0x27 && c !== 0x60 && c !== 0x7e && c !== 0x40) return this.readSymbol();
    return this.syntax(`unexpected ${this.here()}; expected a value`);
  }

  private readNumber(): unknown {
    const start = this.pos;
    const buf = this.buf;
    // Fast path: a plain decimal integer of at most 15 digits is exact in a double.
    let p = start;
    let neg = false;
    if (buf[p] === 0x2d) {
      neg = true;
      p++;
    } else if (buf[p] === 0x2b) {
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
    const end = this.tokenEnd(start, 'a number');
    if (end === p && p - digitsStart <= 15 && (buf[digitsStart] !== 0x30 || p - digitsStart === 1)) {
      this.pos = end;
      return neg ? (n === 0 ? 0 : -n) : n;
    }
    const tok = buf.toString('latin1', start, end);
    this.pos = end;
    if (INT_RE.test(tok)) return intValue(tok.replace(/N$/, '').replace(/^\+/, ''));
    if (/^[+-]?0[0-9]+N?$/.test(tok)) return this.syntax(`unsupported integer literal ${tok} (leading zero: Clojure reads it as octal)`);
    if (FLOAT_RE.test(tok)) return new Flt(Number(tok.replace(/M$/, '')), tok);
    if (RATIO_RE.test(tok)) {
      const [a, b] = tok.split('/');
      return new Flt(Number(a) / Number(b), tok);
    }
    return this.syntax(`malformed number ${JSON.stringify(tok)}`);
  }

  private readSymbol(): unknown {
    const start = this.pos;
    const end = this.tokenEnd(start, 'a symbol');
    const name = this.text(start, end);
    this.pos = end;
    if (name === 'nil') return null;
    if (name === 'true') return true;
    if (name === 'false') return false;
    return new Sym(name);
  }

  private readKeyword(): Kw {
    const start = this.pos + 1;
    if (start >= this.end) this.more('expected a keyword name after \':\'');
    const end = this.tokenEnd(start, "a keyword name after ':'");
    const kw = this.keyword(start, end);
    this.pos = end;
    return kw;
  }

  // Keyword cache: Jepsen files repeat a dozen keywords millions of times; hashing the bytes
  // and comparing them with the cached spelling avoids decoding a string per keyword.
  private readonly kwHash = new Int32Array(KW_SLOTS);
  private readonly kwBytes: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(KW_SLOTS);
  private readonly kwValue: (Kw | undefined)[] = new Array<Kw | undefined>(KW_SLOTS);

  private keyword(a: number, b: number): Kw {
    const buf = this.buf;
    let h = 0x811c9dc5;
    for (let i = a; i < b; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & (KW_SLOTS - 1);
    const cached = this.kwBytes[slot];
    if (cached !== undefined && this.kwHash[slot] === h && cached.length === b - a) {
      let same = true;
      for (let i = 0; i < cached.length; i++) {
        if (cached[i] !== buf[a + i]) {
          same = false;
          break;
        }
      }
      if (same) return this.kwValue[slot]!;
    }
    const kw = Kw.of(this.text(a, b));
    if (b - a <= 64) {
      this.kwHash[slot] = h;
      this.kwBytes[slot] = new Uint8Array(buf.subarray(a, b));
      this.kwValue[slot] = kw;
    }
    return kw;
  }

  private readString(): string {
    const buf = this.buf;
    const openLine = this.line;
    let p = this.pos + 1;
    const start = p;
    let simple = true;
    let lines = 0;
    for (;;) {
      if (p >= this.end) this.more(`the string opened at line ${openLine} is not closed; expected '"'`, openLine);
      const c = buf[p]!;
      if (c === 0x22) break;
      if (c === 0x5c) {
        simple = false;
        if (p + 1 < this.end && buf[p + 1] === 0x0a) lines++;
        p += 2;
        continue;
      }
      if (c === 0x0a) lines++;
      else if (c >= 0x80) simple = false;
      p++;
    }
    const s = simple ? buf.toString('latin1', start, p) : this.unescape(start, p, openLine);
    this.line += lines;
    this.pos = p + 1;
    return s;
  }

  private unescape(a: number, b: number, line: number): string {
    const raw = this.text(a, b);
    if (raw.indexOf('\\') < 0) return raw;
    return raw.replace(/\\(u[0-9a-fA-F]{4}|.)/gs, (m, e: string) => {
      switch (e[0]) {
        case 'n': return '\n';
        case 't': return '\t';
        case 'r': return '\r';
        case 'b': return '\b';
        case 'f': return '\f';
        case '"': return '"';
        case '\\': return '\\';
        default:
          if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
          return this.syntax(`unsupported escape ${m} in a string; expected one of \\n \\t \\r \\b \\f \\" \\\\ \\uXXXX`, line);
      }
    });
  }

  private readChar(): string {
    const start = this.pos + 1;
    if (start >= this.end) this.more('expected a character after \'\\\'');
    // The first byte after the backslash belongs to the character even if it is a delimiter.
    let end = start + 1;
    while (end < this.end && CLASS[this.buf[end]!] === 4) end++;
    if (end >= this.end && !this.eof) throw NEED_MORE;
    const name = this.text(start, end);
    this.pos = end;
    if (name.length === 1 || (name.length === 2 && name.codePointAt(0)! > 0xffff)) return name;
    const named = NAMED_CHARS[name];
    if (named !== undefined) return named;
    if (/^u[0-9a-fA-F]{4}$/.test(name)) return String.fromCharCode(parseInt(name.slice(1), 16));
    return this.syntax(`unknown character literal \\${name}`);
  }

  private readDispatch(depth: number): unknown {
    const p = this.pos + 1;
    if (p >= this.end) this.more("expected a form after '#'");
    const c = this.buf[p]!;
    if (c === 0x7b) { // #{ set
      this.pos = p;
      return new EdnSet(this.readSeq(depth, 0x7d, 'set'));
    }
    if (c === 0x5f) { // #_ discard the next form
      this.pos = p + 1;
      this.skipSpace();
      this.readForm(depth + 1);
      return Scanner.SKIP;
    }
    if (c === 0x23) { // ##Inf ##-Inf ##NaN
      const end = this.tokenEnd(p + 1, 'Inf, -Inf or NaN after ##');
      const name = this.buf.toString('latin1', p + 1, end);
      const v = name === 'Inf' ? Infinity : name === '-Inf' ? -Infinity : name === 'NaN' ? NaN : undefined;
      if (v === undefined) this.syntax(`unknown symbolic value ##${name}; expected ##Inf, ##-Inf or ##NaN`);
      this.pos = end;
      return new Flt(v, `##${name}`);
    }
    if (c === 0x22) { // #"regex": keep its source text
      this.pos = p;
      return this.readString();
    }
    if (CLASS[c] === 4 && ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a))) {
      // Tagged literal: #tag form. The tag ends at the first delimiter, e.g. `#jepsen.history.Op{`.
      const end = this.tokenEnd(p, 'a tag');
      this.pos = end;
      this.skipSpace();
      if (this.pos >= this.end) this.more(`expected a form after the tag #${this.buf.toString('latin1', p, end)}`);
      const form = this.readForm(depth + 1);
      if (form === Scanner.SKIP) this.syntax('expected a form after a tag, found #_');
      return form;
    }
    return this.syntax(`unsupported dispatch '#${String.fromCharCode(c)}'; expected #{, #_, ##, #"..." or a tagged literal`);
  }

  private readSeq(depth: number, close: number, what: string): unknown[] {
    const openLine = this.line;
    this.pos++;
    const items: unknown[] = [];
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.end) this.more(`the ${what} opened at line ${openLine} is not closed; expected '${String.fromCharCode(close)}'`, openLine);
      const c = this.buf[this.pos]!;
      if (c === close) {
        this.pos++;
        return items;
      }
      if (c === 0x29 || c === 0x5d || c === 0x7d) {
        this.syntax(`unexpected ${this.here()} inside the ${what} opened at line ${openLine}; expected '${String.fromCharCode(close)}'`);
      }
      const v = this.readForm(depth + 1);
      if (v !== Scanner.SKIP) items.push(v);
    }
  }

  private readMap(depth: number): Obj {
    const openLine = this.line;
    this.pos++;
    const kv: unknown[] = [];
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.end) this.more(`the map opened at line ${openLine} is not closed; expected '}'`, openLine);
      const c = this.buf[this.pos]!;
      if (c === 0x7d) {
        this.pos++;
        if ((kv.length & 1) === 1) this.syntax(`the map opened at line ${openLine} has a key without a value`);
        return new Obj(kv, openLine);
      }
      if (c === 0x29 || c === 0x5d) this.syntax(`unexpected ${this.here()} inside the map opened at line ${openLine}; expected '}'`);
      const v = this.readForm(depth + 1);
      if (v !== Scanner.SKIP) kv.push(v);
    }
  }
}
