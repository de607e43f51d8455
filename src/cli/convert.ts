/**
 * `polysi convert IN OUT --to FORMAT [--format auto|NAME]`: rewrites a history in another format.
 *
 * Takes: command-line arguments (after `convert`) and an output sink. Gives: an exit code, 0
 * when OUT was written, 2 for invalid input, usage, or a conversion that would lose information.
 * OUT `-` writes to stdout (text formats only).
 * Invariant: OUT is only ever the complete, verified result: the target module writes to a
 * temporary file next to OUT, which is read back with the same module and compared with the
 * input History (sessions, txns, statuses, ops, keys and values by label; session and txn labels
 * are not compared, since positional formats renumber them); only then is it renamed to OUT.
 * A writer's refusal (InputError, or an Error "cannot write ...") and a failed comparison both
 * exit 2 with the reason and leave OUT untouched.
 */

import { randomBytes } from 'node:crypto';
import { rm, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { InputError } from '../history/errors.ts';
import type { History } from '../history/model.ts';
import { findFormat, readHistory } from '../formats/index.ts';
import { diffHistories } from '../formats/io-diff.ts';

export interface Out {
  stdout(s: string): void;
  stderr(s: string): void;
}

const USAGE = 'usage: polysi convert IN OUT --to FORMAT [--format auto|FORMAT]   (OUT may be - for stdout)';

/**
 * `h` with session and txn labels replaced by their positions (what every format keeps), and
 * the initial value's label (each format names it its own way: init, nil, 0) made uniform.
 */
function positional(h: History): History {
  return {
    ...h,
    sessionLabels: h.sessionLabels.map((_, i) => String(i)),
    txnLabels: h.txnLabels.map((_, i) => String(i)),
    valueLabels: h.valueLabels.map((l, i) => (i === 0 ? 'initial' : l)),
  };
}

/** null if `a` and `b` hold the same history up to session / txn labels, else the first difference. */
export function contentDiff(a: History, b: History): string | null {
  return diffHistories(positional(a), positional(b));
}

/** A writer's refusal to represent a History (as opposed to a bug in it). */
function refusal(err: unknown): string | null {
  if (err instanceof InputError) return err.detail;
  if (err instanceof Error && /^cannot write\b/.test(err.message)) return err.message;
  return null;
}

export async function runConvert(args: string[], out: Out): Promise<number> {
  let values: { to?: string; format: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { to: { type: 'string' }, format: { type: 'string', default: 'auto' } },
    }) as { values: { to?: string; format: string }; positionals: string[] });
  } catch (err) {
    out.stderr(`polysi convert: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (positionals.length !== 2) {
    out.stderr(`polysi convert: expected IN and OUT, got ${positionals.length} path(s)\n${USAGE}`);
    return 2;
  }
  if (values.to === undefined) {
    out.stderr(`polysi convert: --to FORMAT is required\n${USAGE}`);
    return 2;
  }
  const [inPath, outPath] = positionals as [string, string];
  const toStdout = outPath === '-';
  const tmp = join(toStdout ? tmpdir() : dirname(outPath), `.${basename(toStdout ? 'polysi-convert' : outPath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const target = findFormat(values.to);
    if (target.write === undefined) {
      out.stderr(`polysi convert: format ${target.name} can be read but not written`);
      return 2;
    }
    const { history, format, notes } = await readHistory(inPath, values.format);
    for (const n of notes) out.stderr(`polysi convert: note (${format}): ${n}`);
    let data: string | Uint8Array;
    try {
      data = target.write(history);
    } catch (err) {
      const why = refusal(err);
      if (why === null) throw err;
      out.stderr(`polysi convert: refusing to convert ${inPath} from ${format} to ${target.name}: ${why}`);
      return 2;
    }
    if (toStdout && typeof data !== 'string') {
      out.stderr(`polysi convert: ${target.name} is a binary format; give an output file instead of -`);
      return 2;
    }
    try {
      await writeFile(tmp, data);
    } catch (err) {
      out.stderr(`polysi convert: cannot write ${toStdout ? 'a temporary file' : outPath}: ${(err as Error).message}`);
      return 2;
    }
    // Read the result back: what we hand out must hold exactly the input history.
    let diff: string | null;
    try {
      const back = await target.read(tmp);
      diff = contentDiff(history, back);
      // Times and error codes (from `polysi run`) are extras the check does not need: a format
      // that cannot hold them may drop them, but says so.
      const dropped = [history.txnStart !== undefined && back.txnStart === undefined ? 'start/end times' : '',
        history.txnError !== undefined && back.txnError === undefined ? 'error codes' : ''].filter((x) => x !== '');
      if (diff === null && dropped.length > 0) out.stderr(`polysi convert: note: ${target.name} cannot hold the transactions' ${dropped.join(' and ')}; they are left out`);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      diff = `it does not read back: ${err.detail}`;
    }
    if (diff !== null) {
      out.stderr(`polysi convert: refusing to convert ${inPath} from ${format} to ${target.name}: the result would not hold the same history (${diff})`);
      return 2;
    }
    if (toStdout) {
      out.stdout(data as string);
    } else {
      await rename(tmp, outPath);
      out.stdout(`wrote ${outPath} (${target.name}): ${history.sessionCount} sessions, ${history.txnCount} transactions, ${history.opCount} operations`);
    }
    return 0;
  } catch (err) {
    if (err instanceof InputError) {
      out.stderr(`polysi convert: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}
