/**
 * The import direction between src/'s folders (issue 20 item 4): the library never imports the
 * command line. Every relative import specifier of every module under src/ is resolved to a file;
 * one outside src/cli/ that lands inside src/cli/ is a failure, named with its file and line.
 * (Found by reading the source text, so that a type-only import counts too: it still ties the
 * library's types to the CLI.)
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SRC = resolve(import.meta.dirname, '../../src');

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...tsFiles(p));
    else if (d.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** `from '...'`, `import '...'` and `import('...')` specifiers, with their 1-based line. */
export function importSpecifiers(text: string): { spec: string; line: number }[] {
  const out: { spec: string; line: number }[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(re)) out.push({ spec: m[1]!, line: text.slice(0, m.index).split('\n').length });
  return out;
}

const inCli = (file: string) => relative(SRC, file).split(sep)[0] === 'cli';

test('the import scanner sees static, side-effect and dynamic imports', () => {
  const text = "import { a } from './a.ts';\nimport './b.ts';\nconst c = await import('../cli/c.ts');\nexport * from \"./d.ts\";\n";
  assert.deepEqual(importSpecifiers(text).map((s) => `${s.line}:${s.spec}`), ['1:./a.ts', '2:./b.ts', '3:../cli/c.ts', '4:./d.ts']);
});

test('nothing outside src/cli imports src/cli', () => {
  const files = tsFiles(SRC);
  assert.ok(files.length > 50, `found only ${files.length} modules under ${SRC}`);
  const bad: string[] = [];
  for (const f of files) {
    if (inCli(f)) continue;
    for (const { spec, line } of importSpecifiers(readFileSync(f, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      if (inCli(resolve(dirname(f), spec))) bad.push(`${relative(SRC, f)}:${line} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});
