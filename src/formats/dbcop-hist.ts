/**
 * Format `dbcop-hist`: dbcop's compact history text (the DSL of dbcop's `parser` crate and of
 * its `format_history`), e.g.
 *
 *     // session 1
 *     [x:=1 y:=1] [z==2 z:=3]
 *     [y==?]!
 *     ---
 *     [x==1 b:=3]
 *
 * Grammar accepted (a superset of dbcop's: it also allows CR before LF, blanks inside the
 * brackets and before a comment):
 *   history     = session (separator session)*
 *   separator   = WS* "-"+ WS* EOL                       -- a line of dashes
 *   session     = (blank | comment | txn-line)*
 *   blank       = WS* EOL
 *   comment     = WS* "//" any* EOL
 *   txn-line    = WS* txn (WS* txn)* WS* EOL
 *   txn         = "[" WS* event (WS+ event)* WS* "]" "!"?  -- "!" = not committed (aborted)
 *   event       = var ":=" u64                            -- write
 *               | var "==" u64                            -- read
 *               | var "==?"                               -- read of the initial value
 *   var         = (letter | digit | "_")+                 -- Unicode letters and digits
 *   WS = " " | "\t";  EOL = "\r"? "\n"  (every line, the last one included, ends with EOL)
 * Takes: the file's text. Gives: a History with locUnit 'line', sessions labelled 1..n (dbcop
 * numbers sessions by position; an empty file is one empty session, as in dbcop), txns
 * `s{session}:{index}`; value 0 and `==?` are the initial value (for reads and writes, as in
 * dbcop's other formats).
 * Invariant: anything else is an InputError naming the line and column. Requiring the final
 * EOL makes a file cut inside its last line an error (a cut just before a trailing "!" would
 * otherwise turn an aborted txn into a committed one); a cut exactly at a line boundary is not
 * detectable.
 */

import { decodeUtf8 } from './utf8.ts';
import { constants } from 'node:buffer';
import { HistoryBuilder, OP_READ, OP_WRITE } from '../history/builder.ts';
import { InputError } from '../history/errors.ts';
import { INITIAL_VALUE, OP_APPEND, OP_READ_LIST, TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History, valueLabel, txnLabel } from '../history/model.ts';
import { CANONICAL_INT, intValue } from './io-int.ts';
import { withInput, type HistoryInput } from './io-read.ts';
import type { FormatModule } from './types.ts';
import { predicateRefusal } from './io-predicates.ts';

/** Longest string V8 makes (about 512 MB): the bound on a file this parser reads as one string. */
const MAX_STRING_LENGTH = constants.MAX_STRING_LENGTH;

const VAR = /[\p{L}\p{N}_]/u;
const VAR_RUN = /[\p{L}\p{N}_]+/uy;
const DIGITS = /[0-9]+/y;

export function parseDbcopHist(text: string, source = '<memory>'): History {
  const b = new HistoryBuilder(source, 'line');
  let sessionNo = 1;
  let session = b.session('1');
  let labelPrefix = b.txnPrefix('s1:');
  let txnIndex = 0;
  let line = 1;
  let p = 0;
  const n = text.length;
  if (text.charCodeAt(0) === 0xfeff) p = 1;
  let lineStart = p;
  // (annotated so TypeScript narrows after a call: `fail` never returns)
  const fail: (at: number, expected: string) => never = (at, expected) => {
    const found = at >= n ? 'end of input' : text[at] === '\n' ? 'end of line' : JSON.stringify(text[at]);
    throw new InputError(at >= n ? 'truncated' : 'syntax', source, 'line', line, `column ${at - lineStart + 1}: expected ${expected}, found ${found}`);
  };
  const skipWs = (): void => {
    while (p < n && (text.charCodeAt(p) === 32 || text.charCodeAt(p) === 9)) p++;
  };
  /** Consumes the end of the line (CR? LF); anything else is an error. */
  const eol = (expected: string): void => {
    if (text.charCodeAt(p) === 13) p++;
    if (p >= n || text.charCodeAt(p) !== 10) fail(p, expected);
    p++;
    line++;
    lineStart = p;
  };

  while (p < n) {
    skipWs();
    if (p >= n) break; // trailing blanks without a newline
    const c = text.charCodeAt(p);
    if (c === 10 || c === 13) { // blank line
      eol('the end of the line');
      continue;
    }
    if (c === 47 && text.charCodeAt(p + 1) === 47) { // comment
      const nl = text.indexOf('\n', p);
      if (nl < 0) fail(n, 'the end of the comment line');
      p = nl;
      eol('the end of the line');
      continue;
    }
    if (c === 45) { // separator
      while (text.charCodeAt(p) === 45) p++;
      skipWs();
      eol("only dashes on a separator line");
      sessionNo++;
      session = b.session(String(sessionNo));
      labelPrefix = b.txnPrefix(`s${sessionNo}:`); // txn i is labelled s<sessionNo>:<i>
      txnIndex = 0;
      continue;
    }
    if (c !== 91) fail(p, "'[' starting a transaction, '//' starting a comment, or a '---' separator");
    // A line of transactions.
    while (p < n && text.charCodeAt(p) === 91) {
      const t = b.beginTxnNumbered(session, labelPrefix, txnIndex++, TXN_COMMITTED, line);
      p++;
      skipWs();
      let events = 0;
      for (;;) {
        VAR_RUN.lastIndex = p;
        const v = VAR_RUN.exec(text);
        if (v === null) fail(p, events === 0 ? 'a variable name (letters, digits, _) starting an event' : "a variable name or ']'");
        const key = b.key(v[0]);
        p = VAR_RUN.lastIndex;
        const op = text.slice(p, p + 2);
        if (op !== ':=' && op !== '==') fail(p, "':=' (write) or '==' (read) after the variable");
        p += 2;
        if (op === '==' && text.charCodeAt(p) === 63) { // ==?
          p++;
          b.pushOp(t, OP_READ, key, INITIAL_VALUE, line);
        } else {
          DIGITS.lastIndex = p;
          const d = DIGITS.exec(text);
          if (d === null) fail(p, op === '==' ? "a version (unsigned integer) or '?' after '=='" : "a version (unsigned integer) after ':='");
          p = DIGITS.lastIndex;
          if (p < n && VAR.test(text[p]!)) fail(p, "a space or ']' after the version");
          const raw = intValue(d[0]);
          if (typeof raw === 'bigint' && raw >= 1n << 64n) fail(p - d[0].length, 'a version below 2^64');
          b.pushOp(t, op === ':=' ? OP_WRITE : OP_READ, key, raw === 0 ? INITIAL_VALUE : b.value(raw), line);
        }
        events++;
        const before = p;
        skipWs();
        if (text.charCodeAt(p) === 93) {
          p++;
          break;
        }
        if (p === before) fail(p, "a space or ']' after an event");
      }
      if (text.charCodeAt(p) === 33) {
        p++;
        b.setStatus(t, TXN_ABORTED);
      }
      skipWs();
    }
    eol("'[' starting another transaction, or the end of the line");
  }
  return b.build();
}

/** Renders dbcop's history text; Error('cannot write ...') if it cannot hold `h`. */
export function writeDbcopHist(h: History): string {
  const why = (msg: string): never => {
    throw new Error(`cannot write ${h.source} as dbcop text: ${msg}`);
  };
  const predicates = predicateRefusal(h);
  if (predicates !== null) why(predicates);
  if (h.sessionCount === 0) why('it has no sessions (dbcop text always has at least one)');
  const used = new Uint8Array(h.keyLabels.length);
  for (let op = 0; op < h.opCount; op++) used[h.opKey[op]!] = 1;
  for (let k = 0; k < h.keyLabels.length; k++) {
    if (used[k] === 1 && !/^[\p{L}\p{N}_]+$/u.test(h.keyLabels[k]!)) why(`key ${JSON.stringify(h.keyLabels[k])} is not a dbcop variable name (letters, digits, _)`);
  }
  const seen = new Set<string>();
  for (let k = 0; k < h.keyLabels.length; k++) {
    if (used[k] === 0) continue;
    if (seen.has(h.keyLabels[k]!)) why(`two different keys are both labelled ${h.keyLabels[k]}`);
    seen.add(h.keyLabels[k]!);
  }
  const valueText = h.valueLabelTable.toArray().map((l, v) => {
    if (v === INITIAL_VALUE) return '0';
    if (!CANONICAL_INT.test(l) || l.charCodeAt(0) === 45 || BigInt(l) >= 1n << 64n) return null;
    return l;
  });
  const out: string[] = [];
  for (let s = 0; s < h.sessionCount; s++) {
    if (s > 0) out.push('---\n');
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      const status = h.txnStatus[t];
      if (status === TXN_UNKNOWN) why(`txn ${txnLabel(h, t)} has an unknown outcome; dbcop records committed or not`);
      if (h.txnOpStart[t] === h.txnOpStart[t + 1]) why(`txn ${txnLabel(h, t)} has no operations; dbcop text needs at least one event`);
      const events: string[] = [];
      for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
        const kind = h.opKind[op];
        if (kind === OP_APPEND || kind === OP_READ_LIST) why(`txn ${txnLabel(h, t)} has a list-append operation`);
        const v = h.opValue[op]!;
        const vt = valueText[v] ?? why(`value ${valueLabel(h, v)} is not an unsigned 64-bit integer`);
        if (v !== INITIAL_VALUE && vt === '0') why('a written value 0 would read back as the initial value');
        const k = h.keyLabels[h.opKey[op]!]!;
        events.push(kind === OP_WRITE ? `${k}:=${vt}` : v === INITIAL_VALUE ? `${k}==?` : `${k}==${vt}`);
      }
      out.push(`[${events.join(' ')}]${status === TXN_COMMITTED ? '' : '!'}\n`);
    }
  }
  // Two value ids with one label would merge on reading back.
  const labelsUsed = new Map<string, number>();
  for (let op = 0; op < h.opCount; op++) {
    const v = h.opValue[op]!;
    if (v === INITIAL_VALUE) continue;
    const prev = labelsUsed.get(valueLabel(h, v));
    if (prev !== undefined && prev !== v) why(`two different values are both labelled ${valueLabel(h, v)}`);
    labelsUsed.set(valueLabel(h, v), v);
  }
  return out.join('');
}

export const dbcopHistFormat: FormatModule = {
  name: 'dbcop-hist',
  description: 'dbcop history text: one line of [x:=1 y==2] transactions per line, sessions separated by ---',
  sniff(head, path, isDir) {
    if (isDir) return false;
    const text = Buffer.from(head.subarray(0, 4096)).toString('utf8');
    // The first line that is not blank or a comment: a transaction or a separator.
    for (const raw of text.split('\n')) {
      const l = raw.trim();
      if (l === '' || l.startsWith('//')) continue;
      if (/^-+$/.test(l)) return true;
      return /^\[[\p{L}\p{N}_]+(:=|==)/u.test(l) || (path.endsWith('.hist') && l.startsWith('['));
    }
    return false;
  },
  read: (input: string | HistoryInput): Promise<History> =>
    withInput(input, async (inp) => {
      const bytes = await inp.readAll();
      // This parser works on one string, and V8 strings stop at 512 MB.
      if (bytes.length > MAX_STRING_LENGTH) {
        throw new InputError('unsupported', inp.source, null, -1,
          `the file has ${bytes.length} bytes; dbcop-hist is parsed as one string of at most ${MAX_STRING_LENGTH} characters ` +
          '(convert it with dbcop to bincode or JSON)');
      }
      return parseDbcopHist(decodeUtf8(bytes, inp.source), inp.source);
    }),
  write: writeDbcopHist,
};
