/**
 * Snapshot files for the explain tests: expected text and JSON under test/explain/snapshots/.
 *
 * `matchSnapshot(name, actual)` compares with the stored file. With UPDATE_SNAPSHOTS=1 it
 * rewrites the file instead (then review the diff before committing). A missing snapshot is
 * written on first run outside CI, and is a failure under CI (CI must never invent its
 * expectations).
 */

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const SNAPSHOT_DIR = join(import.meta.dirname, 'snapshots');

export function matchSnapshot(name: string, actual: string): void {
  const path = join(SNAPSHOT_DIR, name);
  const update = process.env['UPDATE_SNAPSHOTS'] === '1';
  if (update || (!existsSync(path) && process.env['CI'] === undefined)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.ok(existsSync(path), `snapshot ${name} is missing (run with UPDATE_SNAPSHOTS=1 to create it)`);
  const expected = readFileSync(path, 'utf8');
  assert.equal(actual, expected, `${name} differs from its snapshot (UPDATE_SNAPSHOTS=1 rewrites it; review the diff)`);
}
