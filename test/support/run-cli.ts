/**
 * The CLI in-process, for tests: `main` with captured stdout and stderr.
 * Takes: argv as a user types it after `polysi`. Gives: the exit code and everything printed.
 */

import { main } from '../../src/cli/main.ts';

export async function runCli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const code = await main(argv, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } });
  return { code, out, err };
}
