/**
 * The package's version, for `polysi --version`.
 *
 * Takes: nothing. Gives: the `version` of the nearest package.json named "polysi" above this
 * module, so that it holds in the sources (src/cli/), in the bundle (dist/, dist/chunks/) and in
 * an installed package alike; package.json is the only place the version is written.
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 6; up++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'polysi' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No package.json here (or not ours): look one directory up.
    }
    dir = dirname(dir);
  }
  throw new Error('polysi: cannot find its own package.json');
}
