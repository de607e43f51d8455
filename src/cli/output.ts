/**
 * Writing the files the CLI produces (`check --dot/--svg/--html`, `convert OUT`) safely.
 *
 * Takes: an output path and its bytes. Gives: the file, written to a temporary file beside it
 * and renamed over it, or an `OutputError` naming the path and the reason (missing directory,
 * a directory, a symbolic link, a FIFO, a device, permission, read-only file system, ...),
 * which the CLI reports as an I/O error (exit 2).
 * Invariant: an output path that exists is replaced only if it is a regular file: `rename`
 * would otherwise swap a device node (/dev/null), a FIFO or a symbolic link for a regular
 * file. Every temporary file is removed on success, on failure and on SIGINT / SIGTERM / SIGHUP (the
 * handlers are installed only while a temporary file exists, then the signal is re-raised so
 * the caller sees the process die of it).
 */

// fs.promises is read when used: a check that writes no file never loads node:fs/promises (2-3 ms).
import { promises as fsp, rmSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** An output that cannot be written; the CLI exits 2 with `message`. */
export class OutputError extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(`cannot write ${path}: ${reason}`);
    this.name = 'OutputError';
  }
}

/** What is wrong with writing over an existing non-regular file, or null for a regular file. */
function kindProblem(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'it is a directory';
  if (st.isSymbolicLink()) return 'it is a symbolic link (refusing to replace it; give the path it points to)';
  if (st.isFIFO()) return 'it is a named pipe (FIFO); give a regular file';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'it is a device; give a regular file';
  if (st.isSocket()) return 'it is a socket; give a regular file';
  return 'it is not a regular file';
}

/** A system error as a reason a user can act on. */
export function errnoReason(err: unknown, dir: string): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT': return `the directory ${dir} does not exist`;
    case 'ENOTDIR': return `${dir} is not a directory`;
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'EROFS': return 'read-only file system';
    case 'ENOSPC': return 'no space left on device';
    case 'EDQUOT': return 'disk quota exceeded';
    case 'EISDIR': return 'it is a directory';
    default: return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Checks, before any long work, that `path` can be an output: its directory exists and is a
 * directory, and `path` is absent or a regular file. Throws OutputError otherwise. (Permission
 * is only known when writing: root ignores mode bits, read-only mounts do not show in them.)
 */
export async function checkOutputPath(path: string): Promise<void> {
  const dir = dirname(path);
  let d: Stats;
  try {
    d = await fsp.stat(dir);
  } catch (err) {
    throw new OutputError(path, errnoReason(err, dir));
  }
  if (!d.isDirectory()) throw new OutputError(path, `${dir} is not a directory`);
  let st: Stats;
  try {
    st = await fsp.lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new OutputError(path, errnoReason(err, dir));
  }
  const why = kindProblem(st);
  if (why !== null) throw new OutputError(path, why);
}

/** Whether `a` and `b` name the same existing file or directory (also through a symlink or a hard link). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  if (a === '-' || b === '-') return false;
  try {
    const [x, y] = await Promise.all([fsp.stat(a), fsp.stat(b)]);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false; // one of them does not exist (or cannot be examined): not the same file
  }
}

// ---- temporary files, removed on SIGINT / SIGTERM / SIGHUP and at exit ----

const live = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function removeLive(): void {
  for (const p of live) rmSync(p, { force: true });
  live.clear();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.removeListener('exit', removeLive);
}

function onSignal(sig: NodeJS.Signals): void {
  removeLive();
  // Die of the signal as if no handler had been installed (the shell sees 130 / 143).
  process.kill(process.pid, sig);
}

// 'exit' too: the launcher ends the process with process.exit when stdout is closed
// (`polysi convert ... - | head`), and that skips every `finally` still pending.
function track(p: string): void {
  if (live.size === 0) {
    for (const s of SIGNALS) process.on(s, onSignal);
    process.on('exit', removeLive);
  }
  live.add(p);
}

function untrack(p: string): void {
  live.delete(p);
  if (live.size === 0) {
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    process.removeListener('exit', removeLive);
  }
}

/** A temporary file that becomes `target` on commit(), or disappears on discard() / a signal. */
export class TempFile {
  private done = false;

  private constructor(readonly path: string, readonly target: string | null) {}

  /** A fresh name beside `target` (same file system, so the final rename is atomic), or in `dir` for stdout. */
  static beside(target: string): TempFile {
    return new TempFile(join(dirname(target), tempName(basename(target))), target);
  }

  static inDir(dir: string, stem: string): TempFile {
    return new TempFile(join(dir, tempName(stem)), null);
  }

  /** Creates the file (never following or reusing an existing name) and writes `data`. */
  async write(data: string | Uint8Array): Promise<void> {
    track(this.path);
    try {
      await fsp.writeFile(this.path, data, { flag: 'wx' });
    } catch (err) {
      throw new OutputError(this.target ?? this.path, errnoReason(err, dirname(this.path)));
    }
  }

  /** Renames the file over its target, after checking again that the target may be replaced. */
  async commit(): Promise<void> {
    if (this.target === null) throw new Error('TempFile.commit: this temporary file has no target');
    await checkOutputPath(this.target);
    try {
      await fsp.rename(this.path, this.target);
    } catch (err) {
      throw new OutputError(this.target, errnoReason(err, dirname(this.target)));
    }
    this.done = true;
    untrack(this.path);
  }

  /** Removes the file unless it was committed; safe to call more than once. */
  async discard(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await fsp.rm(this.path, { force: true });
    untrack(this.path);
  }
}

function tempName(stem: string): string {
  // Not node:crypto: loading it costs every run of the CLI a few ms at start-up, and the name
  // needs no secrecy: the file is created with 'wx' (never an existing name), so a clash fails.
  const r = Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0');
  return `.${stem}.${process.pid}.${r}.tmp`;
}

/** Writes `data` to `path` through a temporary file beside it; OutputError on failure. */
export async function writeOutput(path: string, data: string | Uint8Array): Promise<void> {
  await checkOutputPath(path);
  const tmp = TempFile.beside(path);
  try {
    await tmp.write(data);
    await tmp.commit();
  } finally {
    await tmp.discard();
  }
}

/** `work`, with an OutputError's path shown as the option that named it ("--svg out.svg"). */
export async function asOption(opt: string, work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (err) {
    if (err instanceof OutputError) throw new OutputError(`--${opt} ${err.path}`, err.reason);
    throw err;
  }
}
