/**
 * Strict UTF-8 decoding for the text formats (JSON Lines, PolySI text, dbcop .hist).
 *
 * Takes: a file's bytes (or a block of whole lines of it: `firstLine` and `firstOffset` say
 * where the block starts) and its name. Gives: the text, with a leading byte-order mark kept for
 * the parser to skip. Throws InputError 'syntax' naming the line and byte offset of the first
 * byte that is not UTF-8.
 * Why: a lenient decoder replaces every invalid byte by U+FFFD, so two distinct keys or values
 * ("\xff" and "\xfe") become one and a bad read is checked as a good one. The Elle readers
 * already refuse invalid UTF-8; this gives the other text formats the same rule.
 */

import { isUtf8 } from 'node:buffer';
import { InputError } from '../history/errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeUtf8(bytes: Uint8Array, source: string, firstLine = 1, firstOffset = 0): string {
  try {
    return utf8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    let line = firstLine;
    for (let i = 0; i < at; i++) if (bytes[i] === 10) line++;
    const b = bytes[at] === undefined ? 'the end of the file' : `byte 0x${bytes[at]!.toString(16).padStart(2, '0')}`;
    throw new InputError('syntax', source, 'line', line,
      `invalid UTF-8 at byte offset ${firstOffset + at} (${b}); the file must be UTF-8 text`);
  }
}

/**
 * Throws what `decodeUtf8` throws if `bytes` is not UTF-8; otherwise returns without making a
 * string (node:buffer's isUtf8 is a native validator, many times faster than decoding), for
 * parsers that scan bytes.
 */
export function checkUtf8(bytes: Uint8Array, source: string, firstLine = 1, firstOffset = 0): void {
  if (!isUtf8(bytes)) decodeUtf8(bytes, source, firstLine, firstOffset);
}

/**
 * Offset of the first byte that starts (or ends early) an ill-formed sequence, per RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF; a sequence cut short by the end of
 * the input counts as starting at its first byte. `bytes.length` if every byte is well formed.
 * Only called once the decoder has failed, so speed does not matter.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need: number, lo = 0x80, hi = 0xbf;
    if (b < 0x80) { i++; continue; }
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) { need = 2; if (b === 0xe0) lo = 0xa0; if (b === 0xed) hi = 0x9f; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; if (b === 0xf0) lo = 0x90; if (b === 0xf4) hi = 0x8f; }
    else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}
