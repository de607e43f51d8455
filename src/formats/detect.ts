/**
 * Format lookup and `--format auto` detection over a list of format modules.
 *
 * Takes: a format name, or a path plus the registry (index.ts passes FORMATS). Gives: the
 * FormatModule to use. Invariant: detection is a pure function of the path's first 64 KiB (or
 * "is a directory") and the registry order: the first module whose `sniff` says yes wins, so
 * a more specific format must come before a more lenient one.
 */

import { InputError } from '../history/errors.ts';
import { readHead } from './io-read.ts';
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

/** Detects the format of `path` (a file or directory); InputError 'io' or 'unknown-format'. */
export async function detectFormatIn(formats: readonly FormatModule[], path: string): Promise<FormatModule> {
  const { head, isDir } = await readHead(path);
  const f = sniffFormat(formats, head, path, isDir);
  if (f === undefined) {
    throw new InputError('unknown-format', path, null, -1,
      `could not tell the format${isDir ? ' of this directory' : head.length === 0 ? ' of an empty file' : ''}; ` +
      `expected one of ${names(formats)}; pass --format`);
  }
  return f;
}
