/**
 * Scratch directories for tests. Takes a name prefix; gives a fresh directory under the system's
 * temporary directory. Invariant: every directory made here is removed when the test process
 * exits (node --test runs each test file in its own process), whether its tests passed, failed
 * or threw before their own cleanup: a test suite run must not leave files behind in /tmp.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

function removeAll(): void {
  for (const d of made) rmSync(d, { recursive: true, force: true });
  made.length = 0;
}

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeAll);
  made.push(dir);
  return dir;
}
