/**
 * PolySI JSON Lines: the project's native format, able to hold everything a History holds.
 *
 * Layout (spec in docs/formats.md): an optional header line
 *   {"format":"polysi-history","version":1,"sessions":["s1","s2"]}
 * then one transaction per line, a session's transactions in session order:
 *   {"session":"s1","txn":"t1","status":"committed","ops":[["w","x",1],["r","y",null],
 *    ["append","l",3],["r","l",[1,2,3]]]}
 * with optional per-txn "start" / "end" (invocation / completion, ms of a monotonic clock) and
 * "error" (the database's error code), as `polysi run` records them.
 *
 * Takes: the file's text. Gives: a History with locUnit 'line' (1-based); `null` is the initial
 * value; values are safe integers, strings or {"int":"<decimal>"} for integers beyond 2^53;
 * keys are strings or safe integers, identified by their text ("5" and 5 are one key).
 * Invariant: parse(write(h)) has the same sessions, txns, labels, statuses, ops, values and
 * lists as h, in the same order; every line is one txn (or the header) or an InputError naming
 * the line and what was expected. Nothing unknown is ignored: unknown fields are errors.
 */

import { checkUtf8, decodeUtf8 } from './utf8.ts';
import { JsonlFastScanner, TxnNameIndex } from './jsonl-fast.ts';
import { splitLabel } from '../history/labels.ts';
import { HistoryBuilder, OP_APPEND, OP_READ, OP_READ_LIST, OP_WRITE, type RawKey, type RawValue } from '../history/builder.ts';
import { InputError } from '../history/errors.ts';
import {
  INITIAL_VALUE,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  txnLabel,
  valueLabel,
  type History,
  type TxnStatus,
} from '../history/model.ts';
import { CANONICAL_INT, intKey, intValue } from './io-int.ts';
import { withInput, type HistoryInput } from './io-read.ts';
import { predicateOpJson, PREDICATE_OP_KINDS, readPredicateOp, readRelations, relationsJson, type JsonlLineContext } from './jsonl-predicates.ts';
import type { FormatModule } from './types.ts';

export const JSONL_FORMAT_TAG = 'polysi-history';
export const JSONL_VERSION = 1;

const STATUS: Record<string, TxnStatus> = { committed: TXN_COMMITTED, aborted: TXN_ABORTED, unknown: TXN_UNKNOWN };
const STATUS_NAME = ['committed', 'aborted', 'unknown'] as const;
const TXN_FIELDS = new Set(['session', 'txn', 'status', 'ops', 'start', 'end', 'error']);
const HEADER_FIELDS = new Set(['format', 'version', 'sessions', 'relations']);
const BIG_INT = /^-?[0-9]+$/;

/** A short rendering of an offending JSON value for messages; never throws (deep nesting). */
function show(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    return Array.isArray(v) ? 'a deeply nested array' : 'a deeply nested object';
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * How the number `v` (parsed by JSON.parse, so possibly rounded: 9007199254740993 becomes
 * ...992, 1e400 becomes Infinity, 1.50 becomes 1.5) is written in `line`: the first number
 * literal outside strings that parses to `v`. Messages quote this, never the rounded double.
 */
function numberAsWritten(line: string, v: number): string {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x22) { // skip a string, escapes included
      for (i++; i < line.length && line.charCodeAt(i) !== 0x22; i++) if (line.charCodeAt(i) === 0x5c) i++;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    JSON_NUMBER.lastIndex = i;
    const m = JSON_NUMBER.exec(line);
    if (m === null) continue;
    if (Object.is(Number(m[0]), v)) return m[0];
    i = JSON_NUMBER.lastIndex - 1;
  }
  return show(v);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Longest line (one transaction) accepted; V8 strings stop at 512 MB. */
export const JSONL_LINE_BYTES_MAX = 256 * 1024 * 1024;

/** Parses JSON Lines in memory; `source` names the input in messages and in `History.source`. */
export function parseJsonl(text: string, source = '<memory>'): History {
  const p = jsonlParser(source);
  // Well-formed text is read as its UTF-8 bytes (the fast path); text with a lone surrogate
  // (which no file can hold) keeps it by going line by line through JSON.parse.
  // (String.prototype.isWellFormed: Node 20, ES2024; the project's lib stops at ES2023.)
  if ((text as unknown as { isWellFormed(): boolean }).isWellFormed()) p.feedBytes(Buffer.from(text, 'utf8'));
  else p.feedText(text);
  return p.finish();
}

/** `parseJsonl` with every line through JSON.parse: the reference the fast path is tested against. */
export function parseJsonlGeneral(text: string, source = '<memory>'): History {
  const p = jsonlParser(source);
  p.feedText(text);
  return p.finish();
}

/**
 * Bytes per operation assumed when sizing the builder from the file size: a recorder's line
 * of 2-9 ops with times averages 35-40 bytes per op; guessing short costs address space only.
 */
const JSONL_BYTES_PER_OP = 30;

/** Reads JSON Lines from a path or an opened input, a block of lines at a time. */
export function readJsonl(input: string | HistoryInput): Promise<History> {
  return withInput(input, async (inp) => {
    const p = jsonlParser(inp.source);
    if (inp.size !== null) p.reserve(inp.size);
    let offset = 0;
    for await (const block of inp.lineBlocks(JSONL_LINE_BYTES_MAX)) {
      // Strict: invalid UTF-8 is an error naming the line, never replaced (distinct keys would merge).
      checkUtf8(block, inp.source, p.nextLine(), offset);
      p.feedBytes(block);
      offset += block.length;
    }
    return p.finish();
  });
}

/**
 * The one place where JSONL bytes become text: a block of whole lines (cut at '\n', so never
 * inside a UTF-8 character). A leading byte-order mark is kept for the parser to skip.
 */
export function decodeLines(block: Uint8Array, source: string, firstLine: number, firstOffset: number): string {
  // Strict: invalid UTF-8 is an error naming the line, never replaced (distinct keys would merge).
  return decodeUtf8(block, source, firstLine, firstOffset);
}

/**
 * A JSONL parser fed with blocks of whole lines (the last may end without a newline).
 * `feed` may be called any number of times; `finish` builds the History.
 */
function jsonlParser(source: string): {
  feedText(text: string): void; feedBytes(bytes: Uint8Array): void; nextLine(): number; finish(): History;
  reserve(bytes: number): void;
} {
  const b = new HistoryBuilder(source, 'line');
  let line = 0;
  let fed = false;
  let lineText = '';
  const fail = (detail: string, code: 'syntax' | 'inconsistent' | 'unsupported' = 'syntax'): never => {
    throw new InputError(code, source, 'line', line, detail);
  };
  /** An offending value for a message; numbers as written in the line, not as parsed. */
  const shown = (v: unknown): string => (typeof v === 'number' ? numberAsWritten(lineText, v) : show(v));

  /** A key: strings and safe integers; integer-looking strings are the same key as the integer. */
  const keyOf = (k: unknown, where: string): RawKey => {
    if (typeof k === 'string') return CANONICAL_INT.test(k) ? intKey(k) : k;
    if (typeof k === 'number' && Number.isSafeInteger(k)) return k === 0 ? 0 : k; // -0 → 0
    return fail(`expected ${where} to be a string or an integer within ±2^53, found ${shown(k)}` +
      (typeof k === 'number' && Number.isInteger(k) ? ' (write large integer keys as strings)' : ''));
  };

  /** A value: null (initial), a safe integer, a string, or {"int":"<decimal>"}. */
  const valueOf = (v: unknown, where: string): RawValue => {
    if (v === null || typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v === 0 ? 0 : v; // -0 → 0
    if (isObject(v)) {
      const lit = v['int'];
      if (Object.keys(v).length === 1 && typeof lit === 'string' && BIG_INT.test(lit)) return intValue(lit);
    }
    return fail(`expected ${where} to be null, a string, an integer within ±2^53 or {"int":"<decimal>"}, ` +
      `found ${shown(v)}`);
  };

  /** Optional "start" / "end" (ms, finite, start ≤ end, both or neither) and "error" (a string). */
  const readTimesAndError = (o: Record<string, unknown>, t: number): void => {
    const start = o['start'], end = o['end'], error = o['error'];
    if (start !== undefined || end !== undefined) {
      if (typeof start !== 'number' || !Number.isFinite(start)) fail(`expected "start" to be a time in ms (a finite number) alongside "end", found ${shown(start)}`);
      if (typeof end !== 'number' || !Number.isFinite(end)) fail(`expected "end" to be a time in ms (a finite number) alongside "start", found ${shown(end)}`);
      if ((end as number) < (start as number)) fail(`"end" (${end}) is before "start" (${start})`, 'inconsistent');
      b.setTimes(t, start as number, end as number);
    }
    if (error !== undefined) {
      if (typeof error !== 'string') fail(`expected "error" to be a string (the database's error code), found ${shown(error)}`);
      b.setError(t, error as string);
    }
  };

  const lineContext: JsonlLineContext = { b, fail, shown, keyOf, valueOf };

  // Sessions declared by the header, if any: then every txn must name one of them.
  let declared: Set<string> | null = null;
  /** Txn names seen, by their canonical parts (labels.ts), with their lines. */
  const txnNames = new TxnNameIndex();
  let sawContent = false;

  /** The general path: one line (not blank) through JSON.parse; every error is raised here. */
  const parseLine = (raw: string): void => {
      lineText = raw;
      let obj: unknown;
      try {
        obj = JSON.parse(raw);
      } catch (err) {
        fail(`expected one JSON object per line, found invalid JSON (${(err as Error).message})`);
      }
      if (!isObject(obj)) fail(`expected a JSON object (a transaction or the header), found ${shown(obj)}`);
      const o = obj as Record<string, unknown>;

      if ('format' in o) {
        if (sawContent) fail('expected a transaction; the header {"format":...} may only be the first line');
        sawContent = true;
        for (const f of Object.keys(o)) if (!HEADER_FIELDS.has(f)) fail(`unknown header field ${shown(f)}; expected format, version, sessions, relations`);
        if (o['format'] !== JSONL_FORMAT_TAG) fail(`expected "format":"${JSONL_FORMAT_TAG}", found ${shown(o['format'])}`);
        if (o['version'] !== JSONL_VERSION) {
          fail(`unsupported version ${shown(o['version'])}; this reader knows version ${JSONL_VERSION}`, 'unsupported');
        }
        if (o['sessions'] !== undefined) {
          const ss = o['sessions'];
          if (!Array.isArray(ss)) fail(`expected "sessions" to be an array of session names, found ${shown(ss)}`);
          declared = new Set();
          for (const s of ss as unknown[]) {
            if (typeof s !== 'string' && !(typeof s === 'number' && Number.isSafeInteger(s))) {
              fail(`expected each session name to be a string or an integer, found ${shown(s)}`);
            }
            const label = String(s);
            if (declared.has(label)) fail(`session ${shown(label)} is declared twice`, 'inconsistent');
            declared.add(label);
            b.session(label); // header order is session order, even for sessions without txns
          }
        }
        if (o['relations'] !== undefined) readRelations(lineContext, o['relations']);
        return;
      }
      sawContent = true;

      for (const f of Object.keys(o)) {
        if (!TXN_FIELDS.has(f)) fail(`unknown field ${shown(f)}; expected session, txn, status, ops, start, end, error`);
      }
      const sess = o['session'];
      if (typeof sess !== 'string' && !(typeof sess === 'number' && Number.isSafeInteger(sess))) {
        fail(`expected "session" to be a string or an integer, found ${shown(sess)}`);
      }
      const sessLabel = String(sess);
      if (declared !== null && !declared.has(sessLabel)) {
        fail(`session ${shown(sessLabel)} is not among the sessions the header declares`, 'inconsistent');
      }

      const txn = o['txn'];
      let label: string;
      if (txn === undefined) label = `L${line}`;
      else if (typeof txn === 'string' || (typeof txn === 'number' && Number.isSafeInteger(txn))) label = String(txn);
      else label = fail(`expected "txn" to be a string or an integer, found ${shown(txn)}`);
      const [labelPrefix, labelN] = splitLabel(label);
      const labelPre = b.txnPrefix(labelPrefix);
      const prev = txnNames.firstLine(labelPre, labelN, line);
      if (prev >= 0) fail(`txn ${shown(label)} already appears at line ${prev}; txn names must be unique`, 'inconsistent');

      const st = o['status'];
      let status: TxnStatus = TXN_COMMITTED;
      if (st !== undefined) {
        const known = typeof st === 'string' && Object.hasOwn(STATUS, st) ? STATUS[st] : undefined;
        if (known === undefined) fail(`expected "status" to be "committed", "aborted" or "unknown", found ${shown(st)}`);
        status = known!;
      }

      const ops = o['ops'];
      if (!Array.isArray(ops)) fail(`expected "ops" to be an array of operations, found ${shown(ops)}`);
      const t = b.beginTxnNumbered(b.session(sessLabel), labelPre, labelN, status, line);
      readTimesAndError(o, t);
      const list = ops as unknown[];
      for (let i = 0; i < list.length; i++) {
        const op = list[i];
        const where = `op ${i + 1}`;
        if (Array.isArray(op) && typeof op[0] === 'string' && PREDICATE_OP_KINDS.has(op[0])) {
          readPredicateOp(lineContext, t, op, where, line);
          continue;
        }
        if (!Array.isArray(op) || op.length !== 3) {
          fail(`expected ${where} to be ["r"|"w"|"append", key, value] or an insert, delete, select or count, found ${shown(op)}`);
        }
        const [kind, k, v] = op as unknown[];
        const key = keyOf(k, `the key of ${where}`);
        if (kind === 'r') {
          if (Array.isArray(v)) {
            const elems = v.map((e: unknown, j: number) => valueOf(e, `element ${j + 1} of the list read by ${where}`));
            b.readList(t, key, elems, line);
          } else {
            b.read(t, key, valueOf(v, `the value of ${where}`), line);
          }
        } else if (kind === 'w') {
          b.write(t, key, valueOf(v, `the value of ${where}`), line);
        } else if (kind === 'append') {
          b.append(t, key, valueOf(v, `the value of ${where}`), line);
        } else {
          fail(`expected the kind of ${where} to be "r", "w", "append", "insert", "delete", "select" or "count", found ${shown(kind)}`);
        }
      }
  };

  /** Text in memory: every line through the general path. */
  const feedText = (text: string): void => {
    let pos = !fed && text.charCodeAt(0) === 0xfeff ? 1 : 0;
    fed = true;
    while (pos < text.length) {
      line++;
      let end = text.indexOf('\n', pos);
      if (end < 0) end = text.length;
      const raw = text.slice(pos, end);
      pos = end + 1;
      if (raw.trim() === '') continue;
      parseLine(raw);
    }
  };

  const fast = new JsonlFastScanner(b, (label) => (declared !== null && !declared.has(label) ? -1 : b.session(label)));
  /** Commits the transaction `fast` scanned; false (nothing done) if the general path must judge it. */
  const commitFast = (bytes: Uint8Array): boolean => {
    const session = fast.sessionId(bytes);
    if (session < 0) return false;
    fast.txnName(bytes, line);
    if (txnNames.firstLine(fast.txnPre, fast.txnN, line) >= 0) return false; // the general path says so
    sawContent = true;
    const t = b.beginTxnNumbered(session, fast.txnPre, fast.txnN, fast.status, line);
    if (fast.hasTimes) b.setTimes(t, fast.start, fast.end);
    if (fast.error !== null) b.setError(t, fast.error);
    fast.commitOps(bytes, t, line);
    return true;
  };

  /**
   * UTF-8 bytes (already validated), a block of whole lines: each transaction line is first
   * scanned as bytes (jsonl-fast.ts); a line the scanner does not take is decoded and goes
   * through the general path, which gives the same History or the error.
   */
  const feedBytes = (bytes: Uint8Array): void => {
    const n = bytes.length;
    let pos = !fed && n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    fed = true;
    while (pos < n) {
      line++;
      let end = bytes.indexOf(10, pos);
      if (end < 0) end = n;
      const from = pos;
      pos = end + 1;
      // Blank (JS trim's ASCII whitespace only): skipped. Non-ASCII blanks go the general way.
      let first = from;
      while (first < end) {
        const c = bytes[first]!;
        if (c !== 32 && c !== 9 && c !== 13 && c !== 11 && c !== 12) break;
        first++;
      }
      if (first === end) continue;
      if (bytes[first] === 123 && fast.scan(bytes, first, end) && commitFast(bytes)) continue;
      const raw = utf8.decode(bytes.subarray(from, end));
      if (raw.trim() !== '') parseLine(raw); // (a line of Unicode blanks is blank too)
    }
  };
  /** Sizes the builder for a file of `bytes` bytes (a guess; see HistoryBuilder.reserve). */
  const reserve = (bytes: number): void => {
    const ops = Math.ceil(bytes / JSONL_BYTES_PER_OP);
    b.reserve(ops, ops >> 2, ops >> 1);
  };
  const finish = (): History => {
    const h = b.build();
    if (h.predicates !== undefined) refuseListRows(h);
    return h;
  };
  return { feedText, feedBytes, nextLine: () => line + 1, finish, reserve };
}

/**
 * A row of a relation holds one value at a time (r, w, insert, delete): an append or a list read
 * of it is an error at its line. After the build, since the fast path does not know relations.
 */
function refuseListRows(h: History): void {
  const rel = h.predicates!.keyRelation;
  for (let op = 0; op < h.opCount; op++) {
    const kind = h.opKind[op]!;
    if ((kind === OP_APPEND || kind === OP_READ_LIST) && rel[h.opKey[op]!]! >= 0) {
      throw new InputError('inconsistent', h.source, 'line', h.opLoc[op]!,
        `key ${JSON.stringify(h.keyLabels[h.opKey[op]!])} is a row of relation ${JSON.stringify(h.predicates!.relationLabels[rel[h.opKey[op]!]!])}, ` +
        'which holds one value at a time: expected r, w, insert or delete on it, found an append or a list read');
    }
  }
}

const utf8 = new TextDecoder('utf-8');

/** Renders a value id as JSON: null, a number, a string, or {"int":"..."}; null if impossible. */
function valueJson(label: string, v: number): string | null {
  if (v === INITIAL_VALUE) return 'null';
  if (label.charCodeAt(0) === 34) return label; // '"': the builder stored JSON.stringify(string)
  if (!CANONICAL_INT.test(label)) return null;
  return Number.isSafeInteger(Number(label)) ? label : `{"int":"${label}"}`;
}

/** The optional `,"start":..,"end":..,"error":..` fields of txn t ('' when it has none). */
function timesAndErrorJson(h: History, t: number): string {
  let s = '';
  const start = h.txnStart?.[t] ?? NaN, end = h.txnEnd?.[t] ?? NaN;
  if (!Number.isNaN(start) && !Number.isNaN(end)) s += `,"start":${start},"end":${end}`;
  const err = h.txnError?.[t] ?? '';
  if (err !== '') s += `,"error":${JSON.stringify(err)}`;
  return s;
}

/**
 * Renders a History as JSON Lines (header with the session list, then one txn per line in
 * History order). Throws an Error saying why if the History holds something the format cannot
 * express without loss: a non-integer number value, or two keys / values / txns sharing a label.
 */
export function writeJsonl(h: History): string {
  const why = (msg: string): never => {
    throw new Error(`cannot write ${h.source} as JSON Lines: ${msg}`);
  };
  const keyJson = h.keyLabels.map((l) => (CANONICAL_INT.test(l) && Number.isSafeInteger(Number(l)) ? l : JSON.stringify(l)));
  const seenKeys = new Set<string>();
  for (const l of h.keyLabels) {
    // Keys are identified by their text on reading, so two keys with one label would merge.
    const canon = CANONICAL_INT.test(l) ? l : `s:${l}`;
    if (seenKeys.has(canon)) why(`two different keys are both labelled ${l}`);
    seenKeys.add(canon);
  }
  const valJson = h.valueLabelTable.toArray().map((l, v) => valueJson(l, v) ?? why(`value ${l} is neither an integer nor a string`));
  const seenValues = new Set<string>();
  for (let v = 1; v < valJson.length; v++) {
    if (seenValues.has(valJson[v]!)) why(`two different values are both labelled ${valueLabel(h, v)}`);
    seenValues.add(valJson[v]!);
  }
  if (new Set(h.txnLabelTable.toArray()).size !== h.txnCount) why('two transactions share a label; txn names must be unique');

  const out: string[] = [
    `{"format":"${JSONL_FORMAT_TAG}","version":${JSONL_VERSION},"sessions":${JSON.stringify(h.sessionLabels)}${relationsJson(h, keyJson)}}`,
  ];
  const ops: string[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    ops.length = 0;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = keyJson[h.opKey[op]!]!;
      const v = h.opValue[op]!;
      switch (h.opKind[op]) {
        case OP_READ: ops.push(`["r",${k},${valJson[v]}]`); break;
        case OP_WRITE: ops.push(`["w",${k},${valJson[v]}]`); break;
        case OP_APPEND: ops.push(`["append",${k},${valJson[v]}]`); break;
        case OP_READ_LIST: {
          const elems: string[] = [];
          for (let i = h.listStart[v]!; i < h.listStart[v + 1]!; i++) elems.push(valJson[h.listElems[i]!]!);
          ops.push(`["r",${k},[${elems.join(',')}]]`);
          break;
        }
        default: ops.push(predicateOpJson(h, op, keyJson, valJson) ?? why(`op ${op} has an unknown kind ${h.opKind[op]}`));
      }
    }
    out.push(`{"session":${JSON.stringify(h.sessionLabels[h.txnSession[t]!])},"txn":${JSON.stringify(txnLabel(h, t))},` +
      `"status":"${STATUS_NAME[h.txnStatus[t]!]}","ops":[${ops.join(',')}]${timesAndErrorJson(h, t)}}`);
  }
  return `${out.join('\n')}\n`;
}

/** True if the first line of `head` is a JSON object that looks like our header or a txn. */
export function sniffJsonl(head: Uint8Array, _path: string, isDir: boolean): boolean {
  if (isDir) return false;
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3; // byte-order mark
  while (i < head.length && (head[i] === 32 || head[i] === 9 || head[i] === 10 || head[i] === 13)) i++;
  if (head[i] !== 123 || head[i + 1] !== 34) return false; // '{"'
  let end = head.indexOf(10, i);
  if (end < 0) end = head.length;
  const first = new TextDecoder('utf-8').decode(head.subarray(i, end));
  return first.includes(`"${JSONL_FORMAT_TAG}"`) || (first.includes('"ops"') && first.includes('"session"'));
}

export const jsonlFormat: FormatModule = {
  name: 'jsonl',
  description: 'PolySI JSON Lines: one transaction per line, can hold every History (aborts, lists, strings)',
  sniff: sniffJsonl,
  read: readJsonl,
  write: writeJsonl,
};
