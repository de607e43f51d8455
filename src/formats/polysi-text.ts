/**
 * PolySI text format: one operation per line, `r(key,value,session,txn)` or `w(key,value,session,txn)`.
 *
 * Takes: the file's text, in blocks of whole lines. Gives: a History with locUnit 'line' (1-based), every txn committed
 * except for the txn id -1, which marks the operations of aborted transactions as Plume (Liu et
 * al., OOPSLA 2024) writes and reads them: each write with txn id -1 becomes an aborted txn of
 * its own (labelled `-1@LINE`), so that a read of it is an aborted read (G1a), and a read with
 * txn id -1 is left out (an aborted txn's reads constrain nothing); value 0 mapped to
 * INITIAL_VALUE for reads AND writes (a write of 0
 * is kept as a write of the initial value, which validation rejects), sessions and txns in
 * order of first appearance, a txn's ops in line order.
 * Invariant: every non-blank line becomes exactly one operation or the parse fails with an
 * InputError naming the line; a txn id seen in two sessions is an 'inconsistent' error.
 *
 * Speed: the scanner walks each block of lines once as bytes (no decoding, no split, no regex
 * or string per line; UTF-8 is validated natively per block) and interns integer keys and
 * values through the builder's typed-array tables, so a 100 MB file costs no per-line garbage.
 * Files are streamed in blocks of whole lines (io-read.ts `lineBlocks`): a file of any size
 * (V8 strings stop at 512 MB) is parsed in bounded text memory.
 */

import { checkUtf8 } from './utf8.ts';
import { HistoryBuilder, IntIds, OP_READ, OP_WRITE } from '../history/builder.ts';
import { InputError } from '../history/errors.ts';
import { INITIAL_VALUE, TXN_ABORTED, TXN_COMMITTED, type History, txnLabel } from '../history/model.ts';
import { CANONICAL_INT, intKey, intValue } from './io-int.ts';
import { HEAD_BYTES, withInput, type HistoryInput } from './io-read.ts';
import { attachNotes } from './io-notes.ts';
import type { FormatModule } from './types.ts';
import { predicateRefusal } from './io-predicates.ts';

const EXPECTED = 'expected r(key,value,session,txn) or w(key,value,session,txn)';
/** The txn id of aborted transactions' operations (Plume's TextHistoryLoader). */
const ABORTED_TXN_ID = -1;
/** Longest integer literal (in digits) accumulated as a double without losing exactness. */
const FAST_DIGITS = 15;

type RawId = number | string;

// Results of scanInt, kept in module variables so the hot helper returns a plain number and
// allocates nothing (a result object per integer would be 4 allocations per line).
/** Position after the integer (or where the digits were expected). */
let intEnd = 0;
/** Whether digits were found. */
let intOk = false;
/** The literal when it has more than FAST_DIGITS digits (exactness needs the text), else null. */
let intLit: string | null = null;

/** Position of the first byte at or after `p` that is not ' ', '\t' or '\r' (CRLF files). */
function skipBlanks(t: Uint8Array, p: number, n: number): number {
  while (p < n) {
    const c = t[p]!;
    if (c !== 32 && c !== 9 && c !== 13) break;
    p++;
  }
  return p;
}

/** Scans blanks then `-?[0-9]+` at `p`; sets intEnd / intOk / intLit and returns the value. */
function scanInt(t: Uint8Array, p: number, n: number): number {
  p = skipBlanks(t, p, n);
  const start = p;
  const neg = p < n && t[p] === 45; // '-'
  if (neg) p++;
  const digits = p;
  let v = 0;
  while (p < n) {
    const d = t[p]! - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
    p++;
  }
  intEnd = p;
  intOk = p > digits;
  intLit = p - digits > FAST_DIGITS ? ascii(t, start, p) : null;
  return neg ? 0 - v : v; // `0 - v`, not `-v`: keeps "-0" from becoming the double -0
}

/** Position after the byte that ends uint9's integer. */
let fastEnd = 0;

/**
 * The fast path's integer: 1-9 digits at q (so below 2^31) followed by the byte `stop`; returns
 * its value and sets fastEnd past `stop`, or returns -1 (anything else: the general path decides).
 */
function uint9(t: Uint8Array, q: number, n: number, stop: number): number {
  const from = q;
  let v = 0;
  while (q < n) {
    const d = t[q]! - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
    q++;
  }
  if (q === from || q - from > 9 || q >= n || t[q] !== stop) return -1;
  fastEnd = q + 1;
  return v;
}

/** The ASCII bytes t[from, to) as a string (rare: long integer literals). */
function ascii(t: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(t[i]!);
  return s;
}

/** Raw identity (key, session or txn) of the integer scanInt just returned. */
function rawId(v: number): RawId {
  return intLit === null ? v : intKey(intLit);
}

const utf8 = new TextDecoder('utf-8');

/**
 * The syntax error for the line starting at byte `lineStart`, pointing at byte `at` (a
 * character boundary: the scanner only steps over ASCII). The line is decoded here, so the
 * message quotes it as text and counts the column in characters, as a string scanner would.
 */
function syntaxError(t: Uint8Array, source: string, line: number, lineStart: number, at: number, what: string): InputError {
  let end = t.indexOf(10, lineStart);
  if (end < 0) end = t.length;
  let found = utf8.decode(t.subarray(lineStart, end)).trim();
  if (found.length > 80) found = `${found.slice(0, 77)}...`;
  const column = utf8.decode(t.subarray(lineStart, at)).length + 1;
  return new InputError('syntax', source, 'line', line,
    `${EXPECTED}, found ${JSON.stringify(found)} (column ${column}: expected ${what})`);
}

/**
 * Bytes per operation assumed when sizing the builder from the file size: lines like
 * `w(3212,34,1,1)` average 20-23 bytes; guessing a little short costs unused address space only.
 */
const TEXT_BYTES_PER_OP = 18;

/** Longest line accepted (a line is one operation of four integers: ample). */
export const TEXT_LINE_BYTES_MAX = 1024 * 1024;

/**
 * A PolySI text parser fed with blocks of complete lines as UTF-8 bytes (the last block may end
 * without a newline), so a file of any size is parsed from a stream of chunks, never as one
 * string. It scans bytes: no string is made for a line unless the line is wrong.
 */
export class PolysiTextParser {
  private readonly b: HistoryBuilder;
  private readonly sessionIndex = new Map<RawId, number>();
  private readonly sessionLabel: string[] = []; // session id → label
  private readonly txnIndex = new Map<RawId, number>(); // txn ids outside [0, 2^31)
  private readonly txnIds = new IntIds(); // txn ids in [0, 2^31)
  private readonly txnSession: number[] = []; // builder txn id → session id
  private readonly txnLine: number[] = []; // builder txn id → line of its first op (for error messages)
  // Consecutive lines usually share a txn and a session: skip the map lookups for them.
  private lastTxnRaw: RawId | undefined;
  private lastTxn = -1;
  private lastSessRaw: RawId | undefined;
  private lastSess = -1;
  private firstTxnIsInit = true; // txn 0 so far consists only of writes of the initial value
  /** Operations with txn id -1 (Plume's aborted transactions): writes kept as aborted txns, reads left out. */
  private abortedWrites = 0;
  private abortedReads = 0;
  /** Line number of the next line fed. */
  private line = 1;
  private fed = false;

  constructor(private readonly source = '<memory>') {
    this.b = new HistoryBuilder(source, 'line');
  }

  /**
   * Sizes the builder for a file of `bytes` bytes: about one op per TEXT_BYTES_PER_OP bytes, a
   * txn per 4 ops, a value per 2 (a guess; see HistoryBuilder.reserve).
   */
  reserve(bytes: number): void {
    const ops = Math.ceil(bytes / TEXT_BYTES_PER_OP);
    this.b.reserve(ops, ops >> 2, ops >> 1);
  }

  /** The line number of the next line fed (blocks are whole lines, so a block starts there). */
  nextLine(): number {
    return this.line;
  }

  /**
   * Parses `text`, UTF-8 already checked (a block of whole lines; a line may only be cut at
   * the end of the last block).
   */
  feed(text: Uint8Array): void {
    const { b, source } = this;
    const n = text.length;
    let p = 0;
    // UTF-8 byte-order mark
    if (!this.fed && n >= 3 && text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf) p = 3;
    this.fed = true;
    let line = this.line;
    let lineStart = p;
    while (p < n) {
      // Fast path, the line as every generator writes it: `r(` or `w(`, four integers of 1-9
      // digits (no sign, so all in [0, 2^31)) split by ',' without blanks, `)`, then the line's
      // end ('\n', '\r\n' or the block's end). Anything else, or any doubt, is left to the
      // general scanner below, from the line's start; both intern the key, then the value.
      const c0 = text[p]!;
      if ((c0 === 114 || c0 === 119) && text[p + 1] === 40) {
        const key = uint9(text, p + 2, n, 44);
        const val = key < 0 ? -1 : uint9(text, fastEnd, n, 44);
        const sess = val < 0 ? -1 : uint9(text, fastEnd, n, 44);
        const txn = sess < 0 ? -1 : uint9(text, fastEnd, n, 41);
        let q = fastEnd;
        if (txn >= 0 && q < n && text[q] === 13 && text[q + 1] === 10) q++;
        if (txn >= 0 && (q >= n || text[q] === 10)) {
          const kind = c0 === 119 ? OP_WRITE : OP_READ;
          const keyId = b.intKey(key);
          const valueId = val === 0 ? INITIAL_VALUE : b.intValue(val);
          const t = sess === this.lastSessRaw && txn === this.lastTxnRaw ? this.lastTxn : this.txnOf(sess, txn, line);
          b.pushOp(t, kind, keyId, valueId, line);
          if (t === 0 && (kind !== OP_WRITE || valueId !== INITIAL_VALUE)) this.firstTxnIsInit = false;
          p = q;
          if (p < n) { // at the '\n'
            line++;
            lineStart = ++p;
          }
          continue;
        }
      }
      p = skipBlanks(text, p, n);
      if (p >= n) break;
      const c = text[p]!;
      if (c === 10) { // blank line
        line++;
        lineStart = ++p;
        continue;
      }
      if (c !== 114 && c !== 119) throw syntaxError(text, source, line, lineStart, p, "'r' or 'w'");
      const kind = c === 119 ? OP_WRITE : OP_READ;
      p = skipBlanks(text, p + 1, n);
      if (text[p] !== 40) throw syntaxError(text, source, line, lineStart, p, "'('");

      let x = scanInt(text, p + 1, n);
      if (!intOk) throw syntaxError(text, source, line, lineStart, intEnd, 'an integer key');
      const keyId = intLit === null && x >= 0 && x <= 0x7fffffff ? b.intKey(x) : b.key(rawId(x));
      p = skipBlanks(text, intEnd, n);
      if (text[p] !== 44) throw syntaxError(text, source, line, lineStart, p, "',' after the key");

      x = scanInt(text, p + 1, n);
      if (!intOk) throw syntaxError(text, source, line, lineStart, intEnd, 'an integer value');
      let valueId: number;
      if (intLit === null) {
        valueId = x === 0 ? INITIAL_VALUE : x > 0 && x <= 0x7fffffff ? b.intValue(x) : b.value(x);
      } else {
        const v = intValue(intLit);
        valueId = v === 0 ? INITIAL_VALUE : b.value(v);
      }
      p = skipBlanks(text, intEnd, n);
      if (text[p] !== 44) throw syntaxError(text, source, line, lineStart, p, "',' after the value");

      x = scanInt(text, p + 1, n);
      if (!intOk) throw syntaxError(text, source, line, lineStart, intEnd, 'an integer session id');
      const sessRaw = rawId(x);
      p = skipBlanks(text, intEnd, n);
      if (text[p] !== 44) throw syntaxError(text, source, line, lineStart, p, "',' after the session id");

      x = scanInt(text, p + 1, n);
      if (!intOk) throw syntaxError(text, source, line, lineStart, intEnd, 'an integer txn id');
      const txnRaw = rawId(x);
      p = skipBlanks(text, intEnd, n);
      if (text[p] !== 41) throw syntaxError(text, source, line, lineStart, p, "')'");
      p = skipBlanks(text, p + 1, n);
      if (p < n && text[p] !== 10) throw syntaxError(text, source, line, lineStart, p, 'the end of the line');

      if (txnRaw === ABORTED_TXN_ID) {
        this.aborted(sessRaw, kind, keyId, valueId, line);
        if (p < n) { line++; lineStart = ++p; }
        continue;
      }
      const t = sessRaw === this.lastSessRaw && txnRaw === this.lastTxnRaw ? this.lastTxn : this.txnOf(sessRaw, txnRaw, line);
      b.pushOp(t, kind, keyId, valueId, line);
      if (t === 0 && (kind !== OP_WRITE || valueId !== INITIAL_VALUE)) this.firstTxnIsInit = false;
      if (p < n) { // at the '\n'
        line++;
        lineStart = ++p;
      }
    }
    this.line = line;
  }

  /**
   * An operation with txn id -1: a write becomes an aborted txn of its own in its session (Plume
   * records these as "aborted writes", not grouped into transactions); a read is left out.
   */
  private aborted(sessRaw: RawId, kind: number, keyId: number, valueId: number, line: number): void {
    if (kind !== OP_WRITE) { this.abortedReads++; return; }
    const b = this.b;
    let s = this.sessionIndex.get(sessRaw);
    if (s === undefined) {
      s = b.session(String(sessRaw));
      this.sessionIndex.set(sessRaw, s);
      this.sessionLabel[s] = String(sessRaw);
    }
    const t = b.beginTxn(s, `${ABORTED_TXN_ID}@${line}`, TXN_ABORTED, line);
    this.txnSession.push(s);
    this.txnLine.push(line);
    b.pushOp(t, OP_WRITE, keyId, valueId, line);
    if (t === 0) this.firstTxnIsInit = false;
    this.abortedWrites++;
  }

  /** The builder txn for (session, txn) ids on `line`, created on first sight; checks the session. */
  private txnOf(sessRaw: RawId, txnRaw: RawId, line: number): number {
    const { b, source, sessionIndex, sessionLabel, txnIndex, txnSession, txnLine } = this;
    let s: number | undefined;
    if (sessRaw === this.lastSessRaw) s = this.lastSess;
    else {
      s = sessionIndex.get(sessRaw);
      if (s !== undefined) { this.lastSessRaw = sessRaw; this.lastSess = s; }
    }
    let t: number;
    if (txnRaw === this.lastTxnRaw) t = this.lastTxn;
    else {
      // Txn ids in [0, 2^31) (all real files) go through a typed-array table, not the Map: a
      // million Map entries cost more in garbage collection than in lookups.
      let known: number | undefined;
      if (typeof txnRaw === 'number' && txnRaw >= 0 && txnRaw <= 0x7fffffff) {
        known = this.txnIds.intern(txnRaw, b.txnCount);
        if (known === b.txnCount) known = undefined;
      } else {
        known = txnIndex.get(txnRaw);
      }
      if (known === undefined) {
        if (s === undefined) {
          s = b.session(String(sessRaw));
          sessionIndex.set(sessRaw, s);
          sessionLabel[s] = String(sessRaw);
          this.lastSessRaw = sessRaw;
          this.lastSess = s;
        }
        t = b.beginTxn(s, txnRaw, TXN_COMMITTED, line); // label String(txnRaw), kept as a number
        if (typeof txnRaw !== 'number' || txnRaw < 0 || txnRaw > 0x7fffffff) txnIndex.set(txnRaw, t);
        txnSession.push(s);
        txnLine.push(line);
      } else {
        t = known;
      }
      this.lastTxnRaw = txnRaw;
      this.lastTxn = t;
    }
    // A txn keeps the session of its first line.
    if (s !== txnSession[t]) {
      throw new InputError('inconsistent', source, 'line', line,
        `txn ${String(txnRaw)} is in session ${String(sessRaw)} here but in session ${sessionLabel[txnSession[t]!]} ` +
        `at line ${txnLine[t]}; a transaction belongs to exactly one session`);
    }
    return t;
  }

  /** The History of everything fed. */
  finish(): History {
    const b = this.b;
    // IsoVista (and some PolySI runs) spell the initial state as a first transaction that writes
    // 0 to keys. It is the implicit initial transaction made explicit: leave it out (with a note)
    // rather than reject its writes of the initial value.
    const notes: string[] = [];
    if (b.txnCount > 0 && this.firstTxnIsInit) {
      b.omitTxn(0);
      notes.push(`txn ${b.txnLabel(0)} (line ${this.txnLine[0]}) only writes the initial value 0: read as the explicit initial transaction and left out`);
    }
    if (this.abortedWrites + this.abortedReads > 0) {
      notes.push(`txn id -1 marks aborted transactions (as in Plume): ${this.abortedWrites} write(s) read as aborted ` +
        `writes (a read of one is an aborted read, G1a), ${this.abortedReads} read(s) left out`);
    }
    return attachNotes(b.build(), notes);
  }
}

/** Parses PolySI text in memory; `source` names the input in messages and in `History.source`. */
export function parsePolysiText(text: string, source = '<memory>'): History {
  const parser = new PolysiTextParser(source);
  parser.feed(Buffer.from(text, 'utf8'));
  return parser.finish();
}

/** Reads PolySI text from a path or an opened input, a block of lines at a time. */
export function readPolysiText(input: string | HistoryInput): Promise<History> {
  return withInput(input, async (inp) => {
    const parser = new PolysiTextParser(inp.source);
    if (inp.size !== null) parser.reserve(inp.size);
    // Strict UTF-8 (invalid bytes are an error naming the line, never replaced), checked per
    // block before it is scanned, so the first bad byte is reported as before.
    let offset = 0;
    for await (const block of inp.lineBlocks(TEXT_LINE_BYTES_MAX)) {
      checkUtf8(block, inp.source, parser.nextLine(), offset);
      parser.feed(block);
      offset += block.length;
    }
    return parser.finish();
  });
}

/** The line pattern the sniffer accepts (cold path: only the first lines of a file). */
const LINE_RE = /^[ \t]*[rw][ \t]*\([ \t]*-?[0-9]+[ \t]*(?:,[ \t]*-?[0-9]+[ \t]*){3}\)[ \t\r]*$/;

/** True if the first non-blank lines of `head` are PolySI text operations. */
export function sniffPolysiText(head: Uint8Array, _path: string, isDir: boolean): boolean {
  if (isDir || head.length === 0) return false;
  const text = new TextDecoder('utf-8').decode(head);
  const lines = text.split('\n');
  // The last piece may be a line cut off by the end of the head: only trust complete lines,
  // unless the head is the whole (short) file.
  if (head.length >= HEAD_BYTES && lines.length > 1) lines.pop();
  let checked = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (!LINE_RE.test(line)) return false;
    if (++checked === 5) break;
  }
  return checked > 0;
}

/**
 * Renders a History as PolySI text. Throws an Error saying why if the text format cannot hold
 * it: an aborted or unknown txn, a list operation, a non-integer key or value, a non-initial
 * value labelled 0, two keys (or values) with the same label, an empty txn or session.
 * Session and txn labels are kept when they are integers (and txn labels unique); otherwise
 * sessions are numbered 1.. and txns 1.. in output order.
 */
export function writePolysiText(h: History): string {
  const why = (msg: string): never => {
    throw new Error(`cannot write ${h.source} as PolySI text: ${msg}`);
  };
  const predicates = predicateRefusal(h);
  if (predicates !== null) why(predicates);
  const keyText = integerLabels(h.keyLabels, 'key', why);
  const valueText = integerLabels(h.valueLabelTable.toArray(), 'value', why);
  valueText[INITIAL_VALUE] = '0';
  for (let v = 1; v < valueText.length; v++) {
    if (valueText[v] === '0') why('a written value 0 would read back as the initial value');
  }

  const sessText = h.sessionLabels.every((l) => CANONICAL_INT.test(l))
    ? h.sessionLabels.slice()
    : h.sessionLabels.map((_, s) => String(s + 1));
  const txnLabels = h.txnLabelTable.toArray();
  const txnLabelsOk = txnLabels.every((l) => CANONICAL_INT.test(l)) && new Set(txnLabels).size === h.txnCount;

  const out: string[] = [];
  for (let s = 0; s < h.sessionCount; s++) {
    const t0 = h.sessionTxnStart[s]!, t1 = h.sessionTxnStart[s + 1]!;
    if (t0 === t1) why(`session ${h.sessionLabels[s]} has no transactions`);
    for (let t = t0; t < t1; t++) {
      if (h.txnStatus[t] !== TXN_COMMITTED) {
        why(`txn ${txnLabel(h, t)} is not committed; the format has no aborted or unknown transactions`);
      }
      const o0 = h.txnOpStart[t]!, o1 = h.txnOpStart[t + 1]!;
      if (o0 === o1) why(`txn ${txnLabel(h, t)} has no operations`);
      const tail = `,${sessText[s]},${txnLabelsOk ? txnLabels[t]! : String(t + 1)})`;
      for (let op = o0; op < o1; op++) {
        const kind = h.opKind[op];
        if (kind !== OP_READ && kind !== OP_WRITE) why(`txn ${txnLabel(h, t)} has a list operation`);
        out.push(`${kind === OP_WRITE ? 'w' : 'r'}(${keyText[h.opKey[op]!]},${valueText[h.opValue[op]!]}${tail}`);
      }
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** Checks that labels are distinct canonical integers (index 0 of values is exempt: the initial value). */
function integerLabels(labels: readonly string[], what: string, why: (m: string) => never): string[] {
  const seen = new Set<string>();
  const from = what === 'value' ? 1 : 0;
  for (let i = from; i < labels.length; i++) {
    const l = labels[i]!;
    if (!CANONICAL_INT.test(l)) why(`${what} ${l} is not an integer`);
    if (seen.has(l)) why(`two different ${what}s are both labelled ${l}`);
    seen.add(l);
  }
  return labels.slice();
}

export const polysiTextFormat: FormatModule = {
  name: 'text',
  description: 'PolySI text: one r(key,value,session,txn) / w(key,value,session,txn) per line',
  sniff: sniffPolysiText,
  read: readPolysiText,
  write: writePolysiText,
};
