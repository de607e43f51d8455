/**
 * Runs a cluster file's fault commands (kill, start, pause, resume) with `sh -c`.
 *
 * Takes: a shell command and a time limit. Gives: whether it exited 0, and the end of its
 * stderr for messages. Invariant: never rejects and never outlives its limit (the shell is
 * killed); a command that starts a daemon in the background returns when the shell exits, not
 * when the daemon closes the inherited stderr (we wait for 'exit', not 'close').
 * `runCommandSync` is for the last moment of a process (a second Ctrl-C): it blocks.
 */

import { spawn, spawnSync } from 'node:child_process';

export interface CommandResult {
  ok: boolean;
  /** The last lines of stderr, or why it failed (exit code, signal, time limit). */
  detail: string;
}

/** Longest a fault command may take (a start may wait for a node's recovery). */
export const COMMAND_TIMEOUT_MS = 60_000;

const STDERR_KEEP = 2000;

function summary(code: number | null, signal: string | null, stderr: string, timedOut: boolean, limitMs: number): CommandResult {
  const tail = stderr.trim().slice(-STDERR_KEEP);
  if (code === 0 && !timedOut) return { ok: true, detail: tail };
  const why = timedOut ? `did not finish within ${limitMs / 1000} s` : signal !== null ? `killed by ${signal}` : `exited ${code}`;
  return { ok: false, detail: tail === '' ? why : `${why}: ${tail}` };
}

export function runCommand(cmd: string, limitMs = COMMAND_TIMEOUT_MS): Promise<CommandResult> {
  return new Promise((resolve) => {
    let stderr = '';
    let timedOut = false;
    const child = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => { stderr = (stderr + d).slice(-STDERR_KEEP); });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, limitMs);
    child.on('error', (err) => { clearTimeout(timer); resolve({ ok: false, detail: err.message }); });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // A daemon the command started may hold the pipe open: stop listening, let it be.
      child.stderr.destroy();
      resolve(summary(code, signal, stderr, timedOut, limitMs));
    });
  });
}

export function runCommandSync(cmd: string, limitMs = COMMAND_TIMEOUT_MS): CommandResult {
  // stderr to a pipe would make spawnSync wait for a background daemon holding it: ignore it.
  const r = spawnSync('sh', ['-c', cmd], { stdio: 'ignore', timeout: limitMs });
  if (r.error !== undefined && (r.error as NodeJS.ErrnoException).code !== 'ETIMEDOUT') return { ok: false, detail: r.error.message };
  return summary(r.status, r.signal, '', r.error !== undefined, limitMs);
}
