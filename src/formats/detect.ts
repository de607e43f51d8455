/**
 * Format lookup and `--format auto` detection over a list of format modules.
 *
 * Takes: a format name, or an opened input plus the registry (index.ts passes FORMATS). Gives:
 * the FormatModule to use. Invariant: detection is a pure function of the input's first 64 KiB
 * (or "is a directory") and the registry order: the first module whose `sniff` says yes wins, so
 * a more specific format must come before a more lenient one. The head is read ahead on the
 * input itself and replayed to the parser: a pipe is read once.
 *
 * When no sniff says yes, every format's parser is tried on the head, and the error names the
 * one that got furthest with its first error (line and column): a small file with a typo on
 * line 3 is "closest: text, line 3 ...", not just "could not tell the format".
 */

import { InputError } from '../history/errors.ts';
import { HEAD_BYTES, HistoryInput } from './io-read.ts';
import type { FormatModule } from './types.ts';

function names(formats: readonly FormatModule[]): string {
  return formats.map((f) => f.name).join(', ');
}

/** The module called `name`; InputError('unknown-format') listing the known names otherwise. */
export function findFormatIn(formats: readonly FormatModule[], name: string): FormatModule {
  const f = formats.find((m) => m.name === name);
  if (f === undefined) {
    throw new InputError('unknown-format', '--format', null, -1,
      `unknown format ${JSON.stringify(name)}; expected one of: auto, ${names(formats)}`);
  }
  return f;
}

/** The first module whose sniff accepts `head`, or undefined. */
export function sniffFormat(
  formats: readonly FormatModule[], head: Uint8Array, path: string, isDir: boolean,
): FormatModule | undefined {
  return formats.find((m) => m.sniff(head, path, isDir));
}

/** Detects the format of an opened input, reading ahead its head; InputError 'io' or 'unknown-format'. */
export async function detectInputFormat(formats: readonly FormatModule[], input: HistoryInput): Promise<FormatModule> {
  const head = await input.head(HEAD_BYTES);
  const f = sniffFormat(formats, head, input.path, input.isDir);
  if (f !== undefined) return f;
  const what = input.isDir ? ' of this directory' : head.length === 0 ? ` of an empty ${input.size === null ? 'input' : 'file'}` : '';
  const closest = input.isDir || head.length === 0 ? null : await closestFormat(formats, head, head.length < HEAD_BYTES);
  throw new InputError('unknown-format', input.source, null, -1,
    `could not tell the format${what}; ${closest === null ? '' : `closest: ${closest}; `}` +
    `expected one of ${names(formats)}; pass --format`);
}

/** Detects the format of the file or directory at `path` (opened, sniffed and closed). */
export async function detectFormatIn(formats: readonly FormatModule[], path: string): Promise<FormatModule> {
  const input = await HistoryInput.open(path);
  try {
    return await detectInputFormat(formats, input);
  } finally {
    await input.close();
  }
}

/**
 * Each format's parser on the head; the one whose first error comes latest in the input wins
 * (ties: registry order). `whole`: the head is the entire input; otherwise it is cut after its
 * last complete line, and an error about the input ending there means "no error in the head".
 * Returns "FORMAT, line L: ..." (the parser's own message), or null if none got past the first line.
 */
async function closestFormat(formats: readonly FormatModule[], head: Uint8Array, whole: boolean): Promise<string | null> {
  let bytes = head;
  if (!whole) {
    const nl = head.lastIndexOf(10);
    if (nl > 0) bytes = head.subarray(0, nl + 1);
  }
  // Any binary format "parses" a few fields of any bytes; on text it would win by accident.
  const textual = looksLikeText(bytes);
  let best: { at: number; text: string } | null = null;
  for (const f of formats) {
    if (textual && f.binary === true) continue;
    let at: number, text: string;
    try {
      await f.read(HistoryInput.fromBytes(bytes, '<head>'));
      at = bytes.length;
      text = `${f.name} (no error in the first ${bytes.length} bytes)`;
    } catch (err) {
      if (!(err instanceof InputError) || err.code === 'io') continue; // e.g. a format that wants a directory
      if (!whole && err.code === 'truncated') {
        at = bytes.length;
        text = `${f.name} (no error in the first ${bytes.length} bytes)`;
      } else {
        at = byteOffsetOf(bytes, err);
        // The parser named '<head>'; say where instead.
        text = `${f.name}, ${err.unit === null || err.loc < 0 ? '' : `${err.unit} ${err.loc}: `}${err.detail}`;
      }
    }
    if (best === null || at > best.at) best = { at, text };
  }
  // Every parser failing on the first line says nothing about which format was meant.
  return best === null || best.at === 0 ? null : best.text;
}

/** Valid UTF-8 without control characters other than tab, newline, carriage return and form feed. */
function looksLikeText(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c < 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13) return false;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Where in `bytes` an error points: its byte, or the start of its line (records: unknown, 0). */
function byteOffsetOf(bytes: Uint8Array, err: InputError): number {
  if (err.loc < 0) return 0;
  if (err.unit === 'byte') return err.loc;
  if (err.unit !== 'line') return 0;
  let line = 1, i = 0;
  while (line < err.loc) {
    const nl = bytes.indexOf(10, i);
    if (nl < 0) return bytes.length;
    i = nl + 1;
    line++;
  }
  return i;
}
