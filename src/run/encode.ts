/**
 * Encodes a TxnRecord as its JSON Lines line straight into bytes, with no intermediate string:
 * the recorder's hot path (a run records 10^5 transactions a second).
 *
 * Takes: a byte buffer with room for `txnBytesMax(r)` bytes at `at`, a record and the time
 * origin. Gives: the offset after the line (without its newline).
 * Invariant: the bytes are exactly `txnLine(r, t0)` in UTF-8 (recorder.ts; tested on every
 * store mode by test/run/recording.test.ts). Keys, values, sessions and indices are
 * non-negative safe integers (the workload's), so digits are written by hand.
 */

import { W_APPEND, W_READ, W_READ_LIST, W_WRITE } from '../workload/types.ts';
import type { TxnRecord } from './runner.ts';

const bytes = (s: string): number[] => Array.from(s, (c) => c.charCodeAt(0));
const SESSION = bytes('{"session":"');
const TXN = bytes('","txn":"');
const STATUS: Record<string, number[]> = {
  committed: bytes('","status":"committed","ops":['),
  aborted: bytes('","status":"aborted","ops":['),
  unknown: bytes('","status":"unknown","ops":['),
};
const READ = bytes('["r",');
const WRITE = bytes('["w",');
const APPEND = bytes('["append",');
const NULL = bytes('null');
const START = bytes('],"start":');
const END = bytes(',"end":');
const ERROR = bytes(',"error":');
const NODE = bytes(',"node":');

function put(b: Uint8Array, at: number, frag: readonly number[]): number {
  for (let i = 0; i < frag.length; i++) b[at + i] = frag[i]!;
  return at + frag.length;
}

/** A non-negative safe integer in decimal. */
function putInt(b: Uint8Array, at: number, n: number): number {
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  const end = at + digits;
  for (let i = end - 1; i >= at; i--) {
    b[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return end;
}

/** An ASCII string (numbers' text, JSON of ASCII codes). */
function putAscii(b: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) b[at + i] = s.charCodeAt(i);
  return at + s.length;
}

/** An upper bound of the line's length in bytes, or -1 if the fast encoder cannot write it (use txnLine). */
export function txnBytesMax(r: TxnRecord): number {
  // Per op at most `["append",` + two 16-digit integers + punctuation; list elements 17 each.
  let n = 160 + r.done * 48;
  const kinds = r.plan.kinds;
  for (let i = 0; i < r.done; i++) {
    const v = r.seen[i];
    // Predicate workloads' ops (and an update that found no row) take the string path.
    if (kinds[i]! > W_READ_LIST || (v === null && kinds[i] === W_WRITE)) return -1;
    if (Array.isArray(v)) n += v.length * 17;
  }
  if (r.error !== undefined) {
    for (let i = 0; i < r.error.length; i++) if (r.error.charCodeAt(i) >= 127) return -1;
    n += r.error.length * 6 + 12;
  }
  if (r.node !== undefined) {
    for (let i = 0; i < r.node.length; i++) if (r.node.charCodeAt(i) >= 127) return -1;
    n += r.node.length * 6 + 12;
  }
  return n;
}

export function encodeTxn(b: Uint8Array, at: number, r: TxnRecord, t0: number): number {
  const p = r.plan;
  let o = put(b, at, SESSION);
  o = putInt(b, o, r.session);
  o = put(b, o, TXN);
  o = putInt(b, o, r.session);
  b[o++] = 46; // .
  o = putInt(b, o, r.index);
  o = put(b, o, STATUS[r.outcome]!);
  for (let i = 0; i < r.done; i++) {
    if (i > 0) b[o++] = 44; // ,
    switch (p.kinds[i]) {
      case W_READ: {
        o = put(b, o, READ);
        o = putInt(b, o, p.keys[i]!);
        b[o++] = 44;
        const v = r.seen[i] as number | null;
        o = v === null ? put(b, o, NULL) : putInt(b, o, v);
        break;
      }
      case W_WRITE: case W_APPEND:
        o = put(b, o, p.kinds[i] === W_WRITE ? WRITE : APPEND);
        o = putInt(b, o, p.keys[i]!);
        b[o++] = 44;
        o = putInt(b, o, p.values[i]!);
        break;
      case W_READ_LIST: {
        o = put(b, o, READ);
        o = putInt(b, o, p.keys[i]!);
        b[o++] = 44;
        b[o++] = 91; // [
        const list = r.seen[i] as number[];
        for (let j = 0; j < list.length; j++) {
          if (j > 0) b[o++] = 44;
          o = putInt(b, o, list[j]!);
        }
        b[o++] = 93; // ]
        break;
      }
      default: throw new Error(`internal error: op kind ${p.kinds[i]}`);
    }
    b[o++] = 93; // ]
  }
  o = put(b, o, START);
  o = putAscii(b, o, String(Math.round((r.start - t0) * 1000) / 1000));
  o = put(b, o, END);
  o = putAscii(b, o, String(Math.round((r.end - t0) * 1000) / 1000));
  if (r.error !== undefined) {
    o = put(b, o, ERROR);
    o = putAscii(b, o, JSON.stringify(r.error));
  }
  if (r.node !== undefined) {
    o = put(b, o, NODE);
    o = putAscii(b, o, JSON.stringify(r.node));
  }
  b[o++] = 125; // }
  return o;
}
