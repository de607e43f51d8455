// The database clients (`pg`, `mysql2`) are loaded only when a database URL is used: `polysi
// check` and `polysi run` on the embedded store never pay for them.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { scratchDir } from '../support/scratch.ts';

const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require.cache).filter((p) => /node_modules[\\/](pg|mysql2)[\\/]/.test(p));
const quiet = { stdout: () => {}, stderr: () => {} };

test('check and a memory run load neither pg nor mysql2; a database URL does', async () => {
  assert.equal(await main(['check', resolve(import.meta.dirname, '..', '..', 'examples', 'long-fork.txt')], quiet), 1);
  const out = join(scratchDir('polysi-lazy-'), 'h.jsonl');
  assert.equal(await main(['run', '--sessions', '2', '--txns', '3', '--out', out], quiet), 0);
  assert.deepEqual(loaded(), []);
  // Nothing listens on port 1: the run fails (exit 2), but it had to load the client to try.
  assert.equal(await main(['run', '--db', 'postgres://u:p@127.0.0.1:1/db', '--sessions', '1', '--txns', '1', '--out', `${out}.2`], quiet), 2);
  assert.ok(loaded().some((p) => /[\\/]pg[\\/]/.test(p)), 'the check above can see a loaded client');
});
