/**
 * Format `dbcop-json`: dbcop's histories as serde JSON.
 *
 * Takes: a JSON file in one of the two layouts dbcop has serialised (assumed from dbcop's
 * source; both derive serde's defaults):
 * - classic dbcop (`src/db/history.rs`, the layout of the bincode files):
 *   `{"params": {"id", "n_node", "n_variable", "n_transaction", "n_event"}, "info": "...",
 *     "start": "<RFC 3339>", "end": "<RFC 3339>", "data": [session, ...]}` with
 *   session = `[txn, ...]`, txn = `{"events": [event, ...], "success": bool}`,
 *   event = `{"write": bool, "variable": u64, "value": u64, "success": bool}` (forks add
 *   `"start_time"` / `"end_time"` numbers, accepted and ignored); `params`, `info`, `start`, `end`
 *   are optional, and a bare `[session, ...]` is accepted too;
 * - newer dbcop (`history/raw/types.rs`): a bare `[session, ...]` with txn =
 *   `{"events": [...], "committed": bool}` and event = `{"Write": {"variable", "version"}}` |
 *   `{"Read": {"variable", "version": u64 | null}}` | `["w", var, ver]` | `["r", var, ver|null]`;
 *   variables may be strings there.
 * Gives: a History with locUnit 'line', sessions labelled 1..n and txns `s{session}:{index}` as
 * in the bincode reader (so bincode <-> JSON conversions keep labels); value 0 (and a null read
 * version) is the initial value, for reads and writes; txn success=false / committed=false is
 * aborted; events with success=false did not happen: dropped and counted in a note.
 * Header checks (as for bincode): n_node = number of sessions, txns per session <= n_transaction,
 * events per txn <= n_event, variables < n_variable; a violation is 'inconsistent'.
 * Invariant: unknown fields, wrong types and missing fields are InputErrors naming the line;
 * the JSON must be complete (a cut file is 'truncated').
 */

import { HistoryBuilder, OP_READ, OP_WRITE, type RawKey } from '../history/builder.ts';
import { InputError } from '../history/errors.ts';
import { INITIAL_VALUE, OP_APPEND, OP_READ_LIST, TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History, valueLabel, txnLabel } from '../history/model.ts';
import { dbcopHeaderOf, type DbcopHeader, type U64 } from './dbcop-bincode.ts';
import { JsonScanner } from './elle-json-reader.ts';
import { Obj, show } from './elle-values.ts';
import { normBigint, u64OfLabel } from './io-int.ts';
import { attachNotes } from './io-notes.ts';
import { withInput, type HistoryInput } from './io-read.ts';
import type { FormatModule } from './types.ts';
import { predicateRefusal } from './io-predicates.ts';

/** Headers of histories parsed here, so writing one back keeps them. */
const HEADERS = new WeakMap<History, DbcopHeader>();

const TOP_FIELDS = new Set(['params', 'info', 'start', 'end', 'data']);
const PARAM_FIELDS = ['id', 'n_node', 'n_variable', 'n_transaction', 'n_event'] as const;
const EVENT_FIELDS = new Set(['write', 'variable', 'value', 'success', 'start_time', 'end_time']);

class DbcopJsonParser {
  private readonly b: HistoryBuilder;
  private dropped = 0;
  private droppedInCommitted = 0;
  private nVariable: U64 | null = null;
  /** Distinct variables at or above params.n_variable (read anyway, noted), and the first one's line. */
  private readonly outOfRange = new Set<string>();
  private outOfRangeLine = -1;

  constructor(readonly source: string) {
    this.b = new HistoryBuilder(source, 'line');
  }

  private fail(code: 'syntax' | 'inconsistent', line: number, detail: string): never {
    throw new InputError(code, this.source, 'line', line, detail);
  }

  /** The fields of `o`, checking there is no unknown one. */
  private fields(o: Obj, allowed: ReadonlySet<string>, what: string): Map<string, unknown> {
    const m = new Map<string, unknown>();
    for (let i = 0; i < o.kv.length; i += 2) {
      const k = o.kv[i] as string;
      if (!allowed.has(k)) this.fail('syntax', o.line, `unknown field ${JSON.stringify(k)} in ${what}; expected ${[...allowed].join(', ')}`);
      if (m.has(k)) this.fail('syntax', o.line, `field ${JSON.stringify(k)} appears twice in ${what}`);
      m.set(k, o.kv[i + 1]);
    }
    return m;
  }

  private u64(x: unknown, line: number, what: string): U64 {
    if ((typeof x === 'number' && x >= 0) || (typeof x === 'bigint' && x >= 0n && x < 1n << 64n)) return x;
    return this.fail('syntax', line, `expected ${what} to be an unsigned 64-bit integer, found ${show(x)}`);
  }

  private bool(x: unknown, line: number, what: string): boolean {
    if (typeof x === 'boolean') return x;
    return this.fail('syntax', line, `expected ${what} to be true or false, found ${show(x)}`);
  }

  parse(doc: unknown, line: number): History {
    let header: DbcopHeader | undefined;
    let data: unknown = doc;
    let dataLine = line;
    if (doc instanceof Obj) {
      const f = this.fields(doc, TOP_FIELDS, 'the history object');
      if (!f.has('data')) this.fail('syntax', doc.line, 'the history object has no "data" field (the list of sessions)');
      data = f.get('data');
      dataLine = doc.line;
      const str = (k: string): string => {
        const v = f.get(k) ?? '';
        if (typeof v !== 'string') this.fail('syntax', doc.line, `expected "${k}" to be a string, found ${show(v)}`);
        return v;
      };
      const params = f.get('params');
      if (params !== undefined) {
        if (!(params instanceof Obj)) this.fail('syntax', doc.line, `expected "params" to be an object, found ${show(params)}`);
        const p = this.fields(params, new Set(PARAM_FIELDS), '"params"');
        const num = (k: string): U64 => {
          if (!p.has(k)) this.fail('syntax', params.line, `"params" has no "${k}" field`);
          return this.u64(p.get(k), params.line, `params.${k}`);
        };
        header = {
          id: num('id'), nNode: num('n_node'), nVariable: num('n_variable'),
          nTransaction: num('n_transaction'), nEvent: num('n_event'),
          info: str('info'), start: str('start'), end: str('end'),
        };
        this.nVariable = header.nVariable;
      } else {
        // Without params there is no header to keep; the strings are only type-checked.
        str('info');
        str('start');
        str('end');
      }
    }
    if (!Array.isArray(data)) this.fail('syntax', dataLine, `expected the list of sessions (a JSON array), found ${show(data)}`);
    if (header !== undefined && BigInt(header.nNode) !== BigInt(data.length)) {
      this.fail('inconsistent', dataLine, `the file holds ${data.length} session(s) but params.n_node says ${String(header.nNode)}`);
    }
    for (let s = 0; s < data.length; s++) this.session(s, data[s], header, dataLine);
    const notes: string[] = [];
    if (this.dropped > 0) {
      notes.push(`dropped ${this.dropped} event(s) with success=false (dbcop: they did not happen)` +
        (this.droppedInCommitted > 0 ? `, ${this.droppedInCommitted} of them in committed transactions` : ''));
    }
    if (this.outOfRange.size > 0) {
      notes.push(`${this.outOfRange.size} variable(s) are at or above params.n_variable = ${String(this.nVariable)} ` +
        `(first at line ${this.outOfRangeLine}): read anyway, as dbcop and PolySI do (they ignore the field)`);
    }
    const h = attachNotes(this.b.build(), notes);
    if (header !== undefined) HEADERS.set(h, header);
    return h;
  }

  private session(s: number, txns: unknown, header: DbcopHeader | undefined, dataLine: number): void {
    const session = this.b.session(String(s + 1));
    const labelPrefix = this.b.txnPrefix(`s${s + 1}:`); // txn i is labelled s<s+1>:<i>
    if (!Array.isArray(txns)) this.fail('syntax', dataLine, `expected session ${s + 1} to be a list of transactions, found ${show(txns)}`);
    // Arrays carry no line; the session's first txn object says where it is.
    const first: unknown = txns[0];
    const line = first instanceof Obj ? first.line : dataLine;
    if (header !== undefined && BigInt(txns.length) > BigInt(header.nTransaction)) {
      this.fail('inconsistent', line, `session ${s + 1} holds ${txns.length} txns but params.n_transaction says at most ${String(header.nTransaction)}`);
    }
    for (let i = 0; i < txns.length; i++) {
      const txn: unknown = txns[i];
      const name = `s${s + 1}:${i}`;
      if (!(txn instanceof Obj)) this.fail('syntax', line, `expected txn ${name} to be an object {"events": [...], "success": ...}, found ${show(txn)}`);
      let events: unknown;
      let ok: boolean | undefined;
      for (let j = 0; j < txn.kv.length; j += 2) {
        const k = txn.kv[j];
        const v = txn.kv[j + 1];
        if (k === 'events' && events === undefined) events = v;
        else if ((k === 'success' || k === 'committed') && ok === undefined) ok = this.bool(v, txn.line, `"${k}" of txn ${name}`);
        else this.fail('syntax', txn.line, `unexpected field ${JSON.stringify(k)} in txn ${name}; expected "events" and "success" (or "committed")`);
      }
      if (!Array.isArray(events)) this.fail('syntax', txn.line, `expected "events" of txn ${name} to be a list, found ${show(events)}`);
      if (ok === undefined) this.fail('syntax', txn.line, `txn ${name} has no "success" (or "committed") field`);
      if (header !== undefined && BigInt(events.length) > BigInt(header.nEvent)) {
        this.fail('inconsistent', txn.line, `txn ${name} holds ${events.length} events but params.n_event says at most ${String(header.nEvent)}`);
      }
      const t = this.b.beginTxnNumbered(session, labelPrefix, i, ok ? TXN_COMMITTED : TXN_ABORTED, txn.line);
      for (const e of events) {
        if (!this.event(t, e, txn.line, name)) {
          this.dropped++;
          if (ok) this.droppedInCommitted++;
        }
      }
    }
  }

  /** Adds one event; false if it did not happen (success=false). */
  private event(t: number, e: unknown, txnLine: number, name: string): boolean {
    let write: boolean;
    let variable: unknown;
    let value: unknown;
    let line = txnLine;
    if (Array.isArray(e)) {
      // Newer dbcop's compact form ["r" | "w", variable, version].
      if (e.length !== 3 || (e[0] !== 'r' && e[0] !== 'w')) this.fail('syntax', line, `expected an event ["r" | "w", variable, version] in txn ${name}, found ${show(e)}`);
      write = e[0] === 'w';
      variable = e[1];
      value = e[2];
    } else if (e instanceof Obj && e.kv.length === 2 && (e.kv[0] === 'Read' || e.kv[0] === 'Write')) {
      // Newer dbcop's tagged form {"Read": {"variable": .., "version": ..}}.
      line = e.line;
      write = e.kv[0] === 'Write';
      const body = e.kv[1];
      if (!(body instanceof Obj)) this.fail('syntax', line, `expected {"variable": .., "version": ..} in a ${String(e.kv[0])} event, found ${show(body)}`);
      const f = this.fields(body, new Set(['variable', 'version']), `a ${String(e.kv[0])} event`);
      if (!f.has('variable') || !f.has('version')) this.fail('syntax', line, `a ${String(e.kv[0])} event needs "variable" and "version"`);
      variable = f.get('variable');
      value = f.get('version');
    } else if (e instanceof Obj) {
      line = e.line;
      const f = this.fields(e, EVENT_FIELDS, 'an event');
      for (const k of ['write', 'variable', 'value', 'success']) {
        if (!f.has(k)) this.fail('syntax', line, `an event of txn ${name} has no "${k}" field`);
      }
      write = this.bool(f.get('write'), line, '"write"');
      variable = f.get('variable');
      value = f.get('value');
      for (const k of ['start_time', 'end_time']) if (f.has(k)) this.u64(f.get(k), line, `"${k}"`);
      if (!this.bool(f.get('success'), line, '"success"')) {
        // The event did not happen: its variable and value are type-checked, not interned.
        this.rawKey(variable, line);
        this.u64(value, line, 'the value');
        return false;
      }
    } else {
      return this.fail('syntax', line, `expected an event object in txn ${name}, found ${show(e)}`);
    }
    const k = this.key(variable, line);
    let v: number;
    if (value === null && !write) v = INITIAL_VALUE;
    else {
      const u = this.u64(value, line, write ? 'the written value' : 'the read value');
      v = u === 0 ? INITIAL_VALUE : this.b.value(normBigint(BigInt(u)));
    }
    this.b.pushOp(t, write ? OP_WRITE : OP_READ, k, v, line);
    return true;
  }

  private rawKey(variable: unknown, line: number): RawKey {
    if (typeof variable === 'string') return variable;
    const u = this.u64(variable, line, 'the variable');
    // dbcop and PolySI ignore n_variable, and converted histories exceed it (issue 23 item 8).
    if (this.nVariable !== null && BigInt(u) >= BigInt(this.nVariable)) {
      if (this.outOfRange.size === 0) this.outOfRangeLine = line;
      this.outOfRange.add(String(u));
    }
    return typeof u === 'bigint' ? u.toString() : u;
  }

  private key(variable: unknown, line: number): number {
    return this.b.key(this.rawKey(variable, line));
  }
}

/** The dbcop header a History was parsed from by this module, if any (bincode writers may keep it). */
export function dbcopJsonHeaderOf(h: History): DbcopHeader | undefined {
  return HEADERS.get(h);
}

/** Parses dbcop JSON bytes already in memory. */
export function parseDbcopJsonBytes(bytes: Uint8Array, source = '<memory>'): History {
  const forms: unknown[] = [];
  const lines: number[] = [];
  new JsonScanner(source, {
    streamTopSequence: false,
    chunkBytes: Math.max(1, bytes.length),
    emptyDetail: 'empty file; expected a dbcop history (a JSON object or array)',
  }).parseBytes(bytes, (form, line) => {
    forms.push(form);
    lines.push(line);
  });
  if (forms.length !== 1) {
    throw new InputError('syntax', source, 'line', lines[1]!, 'expected one JSON document, found another value after it');
  }
  return new DbcopJsonParser(source).parse(forms[0], lines[0]!);
}

/** Renders the classic dbcop JSON layout; Error('cannot write ...') if dbcop cannot hold `h`. */
export function writeDbcopJson(h: History): string {
  const why = (msg: string): never => {
    throw new Error(`cannot write ${h.source} as dbcop JSON: ${msg}`);
  };
  const predicates = predicateRefusal(h);
  if (predicates !== null) why(predicates);
  const usedKey = new Uint8Array(h.keyLabels.length);
  const usedValue = new Uint8Array(h.valueCount);
  for (let op = 0; op < h.opCount; op++) {
    const kind = h.opKind[op];
    if (kind === OP_APPEND || kind === OP_READ_LIST) why('it has list-append operations; dbcop has only reads and writes');
    usedKey[h.opKey[op]!] = 1;
    usedValue[h.opValue[op]!] = 1;
  }
  const keyText: string[] = [];
  let maxKey = -1n;
  for (let k = 0; k < h.keyLabels.length; k++) {
    if (usedKey[k] === 0) continue;
    const u = u64OfLabel(h.keyLabels[k]!) ?? why(`key ${h.keyLabels[k]} is not an unsigned 64-bit integer`);
    keyText[k] = String(u);
    if (BigInt(u) > maxKey) maxKey = BigInt(u);
  }
  const seenKeys = new Set<string>();
  for (const t of keyText) {
    if (t === undefined) continue;
    if (seenKeys.has(t)) why(`two different keys are both labelled ${t}`);
    seenKeys.add(t);
  }
  const valueText: string[] = [];
  valueText[INITIAL_VALUE] = '0';
  const seenValues = new Set<string>();
  for (let v = 1; v < h.valueCount; v++) {
    if (usedValue[v] === 0) continue;
    const u = u64OfLabel(valueLabel(h, v)) ?? why(`value ${valueLabel(h, v)} is not an unsigned 64-bit integer`);
    if (u === 0) why('a written value 0 would read back as the initial value');
    const text = String(u);
    if (seenValues.has(text)) why(`two different values are both labelled ${text}`);
    seenValues.add(text);
    valueText[v] = text;
  }
  let maxTxns = 0;
  let maxOps = 0;
  for (let s = 0; s < h.sessionCount; s++) maxTxns = Math.max(maxTxns, h.sessionTxnStart[s + 1]! - h.sessionTxnStart[s]!);
  for (let t = 0; t < h.txnCount; t++) maxOps = Math.max(maxOps, h.txnOpStart[t + 1]! - h.txnOpStart[t]!);
  const header: DbcopHeader = HEADERS.get(h) ?? dbcopHeaderOf(h) ?? {
    id: 0, nNode: h.sessionCount, nVariable: maxKey + 1n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(maxKey + 1n) : maxKey + 1n,
    nTransaction: maxTxns, nEvent: maxOps, info: '', start: '', end: '',
  };
  const sessions: string[] = [];
  for (let s = 0; s < h.sessionCount; s++) {
    const txns: string[] = [];
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (h.txnStatus[t] === TXN_UNKNOWN) why(`txn ${txnLabel(h, t)} has an unknown outcome; dbcop records success or failure`);
      const events: string[] = [];
      for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
        events.push(`{"write":${h.opKind[op] === OP_WRITE},"variable":${keyText[h.opKey[op]!]},"value":${valueText[h.opValue[op]!]},"success":true}`);
      }
      txns.push(`{"events":[${events.join(',')}],"success":${h.txnStatus[t] === TXN_COMMITTED}}`);
    }
    sessions.push(`[${txns.join(',\n  ')}]`);
  }
  const params = `{"id":${String(header.id)},"n_node":${String(header.nNode)},"n_variable":${String(header.nVariable)},` +
    `"n_transaction":${String(header.nTransaction)},"n_event":${String(header.nEvent)}}`;
  return `{"params":${params},"info":${JSON.stringify(header.info)},"start":${JSON.stringify(header.start)},` +
    `"end":${JSON.stringify(header.end)},"data":[\n ${sessions.join(',\n ')}]}\n`;
}

export const dbcopJsonFormat: FormatModule = {
  name: 'dbcop-json',
  description: "dbcop history as serde JSON ({params, info, start, end, data: sessions of {events, success}})",
  sniff(head, _path, isDir) {
    if (isDir) return false;
    const text = Buffer.from(head.subarray(0, 4096)).toString('latin1');
    if (!/^\s*[[{]/.test(text)) return false;
    return /"events"\s*:/.test(text) && /"(success|committed)"\s*:/.test(text) || /^\s*\{\s*"params"\s*:\s*\{\s*"id"/.test(text);
  },
  read: (input: string | HistoryInput): Promise<History> =>
    withInput(input, async (inp) => parseDbcopJsonBytes(await inp.readAll(), inp.source)),
  write: writeDbcopJson,
};
