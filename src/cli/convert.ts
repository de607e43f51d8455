/**
 * `polysi convert IN OUT --to FORMAT [--format auto|NAME]`: rewrites a history in another format.
 *
 * Takes: command-line arguments (after `convert`) and an output sink. Gives: an exit code, 0
 * when OUT was written, 2 for invalid input, usage, an OUT that cannot be written, or a
 * conversion that would lose information. OUT `-` writes to stdout (text formats only).
 * Invariant: OUT is only ever the complete, verified result: the target module writes to a
 * temporary file next to OUT (output.ts), which is read back with the same module and compared
 * with the input History (sessions, txns, statuses, ops, keys and values by label; session and
 * txn labels are not compared, since positional formats renumber them); only then is it renamed
 * to OUT. OUT must be absent or a regular file other than IN (compared by device and inode, so a
 * hard link or a symlink to IN is IN), checked before reading IN and again before the rename.
 * A writer's refusal (InputError, or an Error "cannot write ...") and a failed comparison both
 * exit 2 with the reason and leave OUT untouched; SIGINT / SIGTERM / SIGHUP remove the temporary file.
 */

import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { parseCommandArgs, UsageError, usageLine } from './args.ts';
import { InputError } from '../history/errors.ts';
import type { History } from '../history/model.ts';
import { LabelTable } from '../history/labels.ts';
import { FORMATS, readHistory } from '../formats/index.ts';
import { diffHistories } from '../formats/io-diff.ts';
import { checkOutputPath, OutputError, sameFile, TempFile } from './output.ts';
import { injectedFault } from './fault.ts';
import { formatBytes, progressOnStderr, progressTo } from './progress.ts';

export interface Out {
  stdout(s: string): void;
  stderr(s: string): void;
}

export const USAGE = 'usage: polysi convert IN OUT --to FORMAT [--format auto|FORMAT]   (OUT may be - for stdout)';

/**
 * `h` with session and txn labels replaced by their positions (what every format keeps), and
 * the initial value's label (each format names it its own way: init, nil, 0) made uniform.
 */
function positional(h: History): History {
  return {
    ...h,
    sessionLabels: h.sessionLabels.map((_, i) => String(i)),
    txnLabelTable: LabelTable.of(Array.from({ length: h.txnCount }, (_, i) => String(i))),
    valueLabelTable: LabelTable.of(h.valueLabelTable.toArray().map((l, i) => (i === 0 ? 'initial' : l))),
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
  try {
    return await runConvertInner(args, out);
  } catch (err) {
    // A usage mistake: one line and where the options are listed (as main.ts prints it).
    if (!(err instanceof UsageError)) throw err;
    out.stderr(usageLine(err.command, err.message));
    return 2;
  }
}

async function runConvertInner(args: string[], out: Out): Promise<number> {
  let values: { to?: string; format: string };
  let positionals: string[];
  // A usage error is a UsageError: main.ts prints it as one line with a pointer to --help.
  ({ values, positionals } = parseCommandArgs('convert', args, { to: { type: 'string' }, format: { type: 'string', default: 'auto' } }) as
    { values: { to?: string; format: string }; positionals: string[] });
  if (positionals.length !== 2) throw new UsageError('convert', `expected IN and OUT, got ${positionals.length} path(s)`);
  if (values.to === undefined) throw new UsageError('convert', '--to FORMAT is required');
  const target = FORMATS.find((f) => f.name === values.to);
  if (target?.write === undefined) {
    const writable = FORMATS.filter((f) => f.write !== undefined).map((f) => f.name).join(', ');
    out.stderr(`polysi convert: --to: ${target === undefined ? `unknown format ${JSON.stringify(values.to)}` : `format ${target.name} can be read but not written`}; ` +
      `formats that can be written: ${writable}`);
    return 2;
  }
  const [inPath, outPath] = positionals as [string, string];
  injectedFault('convert');
  const toStdout = outPath === '-';
  let tmp: TempFile | null = null;
  try {
    // Refuse a doomed conversion before the (possibly long) read.
    if (!toStdout) {
      if (await sameFile(inPath, outPath)) {
        out.stderr(`polysi convert: OUT ${outPath} is the same file as IN ${inPath}; write the conversion to another path`);
        return 2;
      }
      if (await sameFile(inPath, dirname(outPath))) {
        out.stderr(`polysi convert: OUT ${outPath} is inside the input directory ${inPath}; write the conversion elsewhere`);
        return 2;
      }
      await checkOutputPath(outPath);
    }
    const pr = progressTo(out, await progressOnStderr());
    const { history, format, notes } = await readHistory(inPath, values.format, pr.on ? { onProgress: pr.reading(inPath) } : {});
    pr.line(`read ${inPath} (${format}): ${history.txnCount} transactions, ${history.opCount} operations; converting to ${target.name}`);
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
    tmp = toStdout ? TempFile.inDir(tmpdir(), 'polysi-convert') : TempFile.beside(outPath);
    pr.line(`writing ${formatBytes(typeof data === 'string' ? Buffer.byteLength(data) : data.length)} to a temporary file ${toStdout ? `in ${tmpdir()}` : `beside ${outPath}`}`);
    await tmp.write(data);
    pr.line(`verifying: reading it back as ${target.name}`);
    // Read the result back: what we hand out must hold exactly the input history.
    let diff: string | null;
    try {
      const back = await target.read(tmp.path);
      diff = contentDiff(history, back);
      // Times, error codes and nodes (from `polysi run`) are extras the check does not need: a format
      // that cannot hold them may drop them, but says so.
      const dropped = [history.txnStart !== undefined && back.txnStart === undefined ? 'start/end times' : '',
        history.txnError !== undefined && back.txnError === undefined ? 'error codes' : '',
        history.txnNode !== undefined && back.txnNode === undefined ? 'nodes' : ''].filter((x) => x !== '');
      if (diff === null && dropped.length > 0) out.stderr(`polysi convert: note: ${target.name} cannot hold the transactions' ${dropped.join(' and ')}; they are left out`);
      // Faults (issue 24) are the run's, not a transaction's: only JSON Lines holds them.
      const faults = (history.faults?.length ?? 0) - (back.faults?.length ?? 0);
      if (diff === null && faults > 0) out.stderr(`polysi convert: note: ${target.name} cannot hold the run's ${faults} fault event${faults === 1 ? '' : 's'}; they are left out`);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      diff = `it does not read back: ${err.detail}`;
    }
    if (diff !== null) {
      out.stderr(`polysi convert: refusing to convert ${inPath} from ${format} to ${target.name}: the result would not hold the same history (${diff})`);
      return 2;
    }
    if (toStdout) {
      await tmp.discard(); // verified: the copy on disk has done its job before stdout is written
      out.stdout(data as string);
    } else {
      await tmp.commit();
      out.stdout(`wrote ${outPath} (${target.name}): ${history.sessionCount} sessions, ${history.txnCount} transactions, ${history.opCount} operations`);
    }
    return 0;
  } catch (err) {
    if (err instanceof InputError || err instanceof OutputError) {
      out.stderr(`polysi convert: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    await tmp?.discard();
  }
}
