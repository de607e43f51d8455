/**
 * Format `cobra`: Cobra's binary client logs, a directory with one `T<n>.log` file per session.
 *
 * Takes: a directory (or a single `.log` file: one session). Each file is a sequence of
 * big-endian records, the tag being one ASCII byte (checked on the PolySI artifact's logs):
 *   'S' txnId:i64 | 'W' writeId:i64 key:i64 value:i64
 *   | 'R' writerTxnId:i64 writeId:i64 key:i64 value:i64 | 'C' txnId:i64 | 'A' txnId:i64
 * Gives: a History with one session per file (ordered by n, labelled `T<n>`), one txn per 'S'
 * (labelled with its decimal txnId), `locUnit` 'byte' (offsets within the session's file).
 *
 * Mapping: a read names the write it read, so WR is explicit. The value of every W and R op is
 * the interned **writeId** (unique per write), so the value-based checker recovers exactly
 * Cobra's WR. The user's value (a hash) is checked, not kept. Reads whose writer is
 * 0xbebeebee (the initial state) or 0xdeadbeef (Cobra's marker for a read of a missing key)
 * read the initial value. A txn still open at the end of its file (no 'C' / 'A') has an
 * unknown outcome (noted).
 * Invariant: the log must be self-consistent, or it is an InputError naming file and byte:
 * truncated records, unknown tags, 'W' / 'R' outside a txn, 'S' inside a txn, 'C' / 'A' naming
 * another txn ('syntax' / 'truncated'); duplicate txn or write ids, a read whose writer txn /
 * key / value differ from the 'W' of its write id ('inconsistent').
 * A read naming a write id that no 'W' record carries is not bad input: it read a value nobody
 * wrote, which every other format calls a garbage (thin-air) read, and so does this one: the
 * read keeps its write id as its value, validation reports the garbage read, and a note names
 * the file and byte of the first such read (issue 23 item 8; VeriStrong's `history/table2`).
 * A log cut exactly at a record boundary is not detectable (its last txn becomes unknown).
 */

import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { HistoryBuilder, OP_READ, OP_WRITE } from '../history/builder.ts';
import { InputError } from '../history/errors.ts';
import { INITIAL_VALUE, TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History } from '../history/model.ts';
import { readFileBytes, withInput, type HistoryInput } from './io-read.ts';
import { attachNotes, notesOf } from './io-notes.ts';
import { normBigint } from './io-int.ts';
import { Int64Table, int64 } from './cobra-ids.ts';
import { GrowableInt32 } from '../util/growable.ts';
import type { FormatModule } from './types.ts';

/** Writer txn id (and write id) of reads of the initial state. */
export const COBRA_INIT = 0xbebeebeen;
/** Writer txn id (and write id) of reads of a key that does not exist. */
export const COBRA_MISSING = 0xdeadbeefn;

const SESSION_FILE = /^T(\d+)\.log$/;

const TAG_S = 0x53;
const TAG_W = 0x57;
const TAG_R = 0x52;
const TAG_C = 0x43;
const TAG_A = 0x41;

export interface CobraFile {
  /** Session label, e.g. `T10`. */
  label: string;
  path: string;
  bytes: Uint8Array;
}

function hex(hi: number, lo: number): string {
  return `0x${BigInt.asUintN(64, int64(hi, lo)).toString(16)}`;
}

/** Raw key for the builder: the signed 64-bit value, a number when it is a safe integer. */
function rawKey(hi: number, lo: number): number | string {
  const n = normBigint(int64(hi, lo));
  return typeof n === 'number' ? n : String(n);
}

const INIT_HI = 0;
const INIT_LO = 0xbebeebee | 0;
const MISSING_LO = 0xdeadbeef | 0;

function isMarker(hi: number, lo: number): boolean {
  return hi === INIT_HI && (lo === INIT_LO || lo === MISSING_LO);
}

/** Builds the History from session files already in memory (in session order). */
export function parseCobraFiles(source: string, files: readonly CobraFile[]): History {
  const b = new HistoryBuilder(source, 'byte', 'init');
  const txnIds = new Int64Table();
  const txnAt: number[] = []; // dense txn id -> file index, offset (pairs)
  const keyIds = new Int64Table();
  const keyOf = new GrowableInt32(); // dense key -> builder key id
  const writeIds = new Int64Table();
  // Per dense write id (interned by a 'W' or by a read naming it):
  const wValueId = new GrowableInt32(); // builder value id
  const wTxn = new GrowableInt32(); // dense txn id of the 'W', -1 until the 'W' is seen
  const wKey = new GrowableInt32(); // builder key id of the 'W'
  const wValHi = new GrowableInt32();
  const wValLo = new GrowableInt32();
  const wFile = new GrowableInt32();
  const wOffset = new GrowableInt32();
  // Reads to check once every file is read (their 'W' may come later or in another file).
  const rWrite = new GrowableInt32();
  const rWriterHi = new GrowableInt32();
  const rWriterLo = new GrowableInt32();
  const rKey = new GrowableInt32();
  const rValHi = new GrowableInt32();
  const rValLo = new GrowableInt32();
  const rFile = new GrowableInt32();
  const rOffset = new GrowableInt32();
  let unknownTxns = 0;
  const where = (file: number, at: number) => `${files[file]!.path} byte ${at}`;

  const keyText: string[] = []; // builder key id -> label, for messages
  const internKey = (hi: number, lo: number): number => {
    const k = keyIds.intern(hi, lo);
    if (keyIds.added) {
      const raw = rawKey(hi, lo);
      keyOf.push(b.key(raw));
      keyText[keyOf.get(k)] = String(raw);
    }
    return keyOf.get(k);
  };
  const internWrite = (hi: number, lo: number): number => {
    const w = writeIds.intern(hi, lo);
    if (writeIds.added) {
      wValueId.push(b.value(normBigint(int64(hi, lo))));
      wTxn.push(-1);
      wKey.push(-1);
      wValHi.push(0);
      wValLo.push(0);
      wFile.push(-1);
      wOffset.push(-1);
    }
    return w;
  };

  for (let f = 0; f < files.length; f++) {
    const { label, path, bytes } = files[f]!;
    const session = b.session(label);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const n = bytes.length;
    let open = -1; // builder id of the open txn
    let openDense = -1;
    let openHi = 0;
    let openLo = 0;
    let openAt = -1;
    let p = 0;
    const fail = (code: 'syntax' | 'truncated' | 'inconsistent', at: number, detail: string): never => {
      throw new InputError(code, path, 'byte', at, detail);
    };
    while (p < n) {
      const at = p;
      const tag = bytes[p]!;
      const size = tag === TAG_W ? 25 : tag === TAG_R ? 33 : tag === TAG_S || tag === TAG_C || tag === TAG_A ? 9 : 0;
      if (size === 0) {
        fail('syntax', at, `unknown record tag 0x${tag.toString(16).padStart(2, '0')}; expected 'S', 'W', 'R', 'C' or 'A'`);
      }
      if (at + size > n) {
        fail('truncated', at, `the '${String.fromCharCode(tag)}' record needs ${size} bytes but the file ends after ${n - at}`);
      }
      const aHi = dv.getInt32(at + 1);
      const aLo = dv.getInt32(at + 5);
      switch (tag) {
        case TAG_S: {
          if (open >= 0) fail('syntax', at, `'S' ${hex(aHi, aLo)} while txn ${hex(openHi, openLo)} opened at byte ${openAt} is still open; expected 'C' or 'A' first`);
          if (isMarker(aHi, aLo)) fail('inconsistent', at, `txn id ${hex(aHi, aLo)} is reserved for the initial state`);
          const t = txnIds.intern(aHi, aLo);
          if (!txnIds.added) fail('inconsistent', at, `txn id ${hex(aHi, aLo)} was already used at ${where(txnAt[2 * t]!, txnAt[2 * t + 1]!)}`);
          txnAt.push(f, at);
          open = b.beginTxn(session, int64(aHi, aLo).toString(), TXN_UNKNOWN, at);
          openDense = t;
          openHi = aHi;
          openLo = aLo;
          openAt = at;
          break;
        }
        case TAG_C:
        case TAG_A: {
          const what = tag === TAG_C ? 'C' : 'A';
          if (open < 0) fail('syntax', at, `'${what}' ${hex(aHi, aLo)} outside a transaction; expected 'S' first`);
          if (aHi !== openHi || aLo !== openLo) fail('syntax', at, `'${what}' ${hex(aHi, aLo)} does not match the open txn ${hex(openHi, openLo)} (opened at byte ${openAt})`);
          b.setStatus(open, tag === TAG_C ? TXN_COMMITTED : TXN_ABORTED);
          open = -1;
          break;
        }
        case TAG_W: {
          if (open < 0) fail('syntax', at, `'W' record outside a transaction; expected 'S' first`);
          if (isMarker(aHi, aLo)) fail('inconsistent', at, `write id ${hex(aHi, aLo)} is reserved for the initial state`);
          const w = internWrite(aHi, aLo);
          if (wTxn.get(w) >= 0) fail('inconsistent', at, `write id ${hex(aHi, aLo)} was already used at ${where(wFile.get(w), wOffset.get(w))}`);
          const k = internKey(dv.getInt32(at + 9), dv.getInt32(at + 13));
          wTxn.set(w, openDense);
          wKey.set(w, k);
          wValHi.set(w, dv.getInt32(at + 17));
          wValLo.set(w, dv.getInt32(at + 21));
          wFile.set(w, f);
          wOffset.set(w, at);
          b.pushOp(open, OP_WRITE, k, wValueId.get(w), at);
          break;
        }
        default: { // TAG_R
          if (open < 0) fail('syntax', at, `'R' record outside a transaction; expected 'S' first`);
          const key = internKey(dv.getInt32(at + 17), dv.getInt32(at + 21));
          if (isMarker(aHi, aLo)) {
            b.pushOp(open, OP_READ, key, INITIAL_VALUE, at);
            break;
          }
          const w = internWrite(dv.getInt32(at + 9), dv.getInt32(at + 13));
          b.pushOp(open, OP_READ, key, wValueId.get(w), at);
          rWrite.push(w);
          rWriterHi.push(aHi);
          rWriterLo.push(aLo);
          rKey.push(key);
          rValHi.push(dv.getInt32(at + 25));
          rValLo.push(dv.getInt32(at + 29));
          rFile.push(f);
          rOffset.push(at);
        }
      }
      p = at + size;
    }
    if (open >= 0) unknownTxns++;
  }

  let thinAir = 0;
  let firstThinAir = '';
  for (let i = 0; i < rWrite.length; i++) {
    const w = rWrite.get(i);
    const writerHi = rWriterHi.get(i);
    const writerLo = rWriterLo.get(i);
    let why = '';
    if (wTxn.get(w) < 0) {
      // Nobody wrote it: its value (the write id) is written by no op, so validation reports it.
      if (thinAir++ === 0) {
        firstThinAir = `${where(rFile.get(i), rOffset.get(i))}: write id ${hex(writeIds.hiOf(w), writeIds.loOf(w))} of txn ${hex(writerHi, writerLo)}, key ${keyText[rKey.get(i)]}`;
      }
    } else {
      const at = where(wFile.get(w), wOffset.get(w));
      const wid = hex(writeIds.hiOf(w), writeIds.loOf(w));
      if (txnIds.get(writerHi, writerLo) !== wTxn.get(w)) {
        why = `read names txn ${hex(writerHi, writerLo)} as the writer of write id ${wid}, but ${at} writes it in txn ${hex(txnIds.hiOf(wTxn.get(w)), txnIds.loOf(wTxn.get(w)))}`;
      } else if (rKey.get(i) !== wKey.get(w)) {
        why = `read of key ${keyText[rKey.get(i)]} names write id ${wid}, which ${at} writes to key ${keyText[wKey.get(w)]}`;
      } else if (rValHi.get(i) !== wValHi.get(w) || rValLo.get(i) !== wValLo.get(w)) {
        why = `read value ${hex(rValHi.get(i), rValLo.get(i))} differs from value ${hex(wValHi.get(w), wValLo.get(w))} written by write id ${wid} at ${at}`;
      }
    }
    if (why !== '') throw new InputError('inconsistent', files[rFile.get(i)]!.path, 'byte', rOffset.get(i), why);
  }

  const notes: string[] = [];
  if (thinAir > 0) {
    notes.push(`${thinAir} read(s) name a write id that no 'W' record carries (first at ${firstThinAir}): ` +
      'each read a value nobody wrote, a garbage (thin-air) read');
  }
  if (unknownTxns > 0) notes.push(`${unknownTxns} transaction(s) not closed by 'C' or 'A' at the end of their file: outcome unknown`);
  return attachNotes(b.build(), notes);
}

/** The session files of a Cobra log directory, in session order, and the names ignored. */
export function listCobraDir(dir: string): { files: { label: string; path: string }[]; ignored: string[] } {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new InputError('io', dir, null, -1, `cannot list the directory: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const files: { n: bigint; label: string; path: string }[] = [];
  const ignored: string[] = [];
  for (const name of names) {
    const m = SESSION_FILE.exec(name);
    if (m === null) ignored.push(name);
    else files.push({ n: BigInt(m[1]!), label: `T${m[1]}`, path: join(dir, name) });
  }
  files.sort((x, y) => (x.n < y.n ? -1 : x.n > y.n ? 1 : x.label < y.label ? -1 : 1));
  return { files, ignored: ignored.sort() };
}

export function readCobra(input: string | HistoryInput): Promise<History> {
  return withInput(input, async (inp) => {
    if (!inp.isDir) {
      const label = basename(inp.source).replace(/\.log$/, '');
      return parseCobraFiles(inp.source, [{ label, path: inp.source, bytes: await inp.readAll() }]);
    }
    return readCobraDir(inp.path);
  });
}

async function readCobraDir(path: string): Promise<History> {
  const { files, ignored } = listCobraDir(path);
  if (files.length === 0) throw new InputError('syntax', path, null, -1, 'no session files named T<n>.log in this directory');
  const loaded: CobraFile[] = [];
  for (const f of files) loaded.push({ ...f, bytes: await readFileBytes(f.path) });
  const h = parseCobraFiles(path, loaded);
  if (ignored.length === 0) return h;
  const shown = ignored.slice(0, 5).join(', ') + (ignored.length > 5 ? ', ...' : '');
  return attachNotes(h, [...notesOf(h), `ignored ${ignored.length} file(s) not named T<n>.log: ${shown}`]);
}

export const cobraFormat: FormatModule = {
  name: 'cobra',
  description: "Cobra binary client logs: a directory of T<n>.log files, one per session",
  binary: true,
  sniff(_head, path, isDir) {
    if (!isDir) return false;
    try {
      return readdirSync(path).some((name) => SESSION_FILE.test(name));
    } catch {
      return false;
    }
  },
  read: readCobra,
};
