/**
 * `polysi check` prints the same bytes as before labels were made on demand (issue 10): the
 * text and JSON outputs of real histories in every format with labels (PolySI text, dbcop
 * bincode, JSON Lines converted from them, Elle EDN, IsoVista text), violations with their
 * explanations (transaction and value labels, `init`) and valid histories, compared with
 * golden files that the build before the change (0813a55) wrote. Only times are masked.
 *
 * Rewrite the golden files with UPDATE_GOLDEN=1 (then review the diff: a change of labels or
 * wording is a change users see).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const NO_DATA = needsData();
const GOLDEN = join(import.meta.dirname, 'golden');

interface Case { name: string; path: string; args: string[]; jsonl?: boolean }

const CASES: Case[] = [
  { name: 'galera-lost-update', path: 'polysi/violations/galera-lost-update.txt', args: [] },
  { name: 'yugabyte-causality', path: 'polysi/violations/yugabyte-causality.txt', args: ['--max-anomalies', '3'] },
  { name: 'dgraph-causality', path: 'polysi/violations/dgraph-causality.bincode', args: [] },
  { name: 'dgraph-causality-jsonl', path: 'polysi/violations/dgraph-causality.bincode', args: [], jsonl: true },
  { name: 'galera-lost-update-jsonl', path: 'polysi/violations/galera-lost-update.txt', args: ['--max-anomalies', '2'], jsonl: true },
  { name: 'pg-ser-bug', path: 'isovista/pg_ser_bug.txt', args: ['--level', 'ser'] },
  { name: 'si-without-g-single', path: 'elle/si-without-g-single.edn', args: ['--level', 'ser'] },
  { name: 'paper-example', path: 'elle/paper-example.edn', args: [] },
  { name: 'write-skew', path: 'small/write-skew.txt', args: ['--level', 'ser'] },
  { name: 'fig7-valid', path: 'polysi/valid/fig7/20_100_15_1000_0.5_uniform.bincode', args: [] },
];

/** Times vary from run to run; paths from machine to machine. */
function mask(s: string, tmp: string): string {
  return s.split(DATA_DIR).join('<data>').split(tmp).join('<tmp>')
    .replace(/^time \(ms\):.*$/gm, 'time (ms): <masked>')
    .replace(/"([A-Za-z]*Ms|ms)":\{[^}]*\}/g, '"$1":{}')
    .replace(/"([A-Za-z]*Ms|ms)":-?[0-9][0-9.e+-]*/g, '"$1":0');
}

function matchGolden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env['UPDATE_GOLDEN'] === '1') {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.ok(existsSync(path), `golden file ${name} is missing (UPDATE_GOLDEN=1 writes it)`);
  assert.equal(actual, readFileSync(path, 'utf8'), `${name} differs from its golden file`);
}

test('check prints the same text and JSON as before, labels and explanations included', { skip: NO_DATA }, async () => {
  const tmp = scratchDir('polysi-golden-');
  try {
    for (const c of CASES) {
      let file = join(DATA_DIR, c.path);
      if (c.jsonl === true) {
        const out = join(tmp, `${c.name}.jsonl`);
        const conv = await runCli('convert', file, out, '--to', 'jsonl');
        assert.equal(conv.code, 0, conv.err);
        file = out;
      }
      const text = await runCli('check', file, ...c.args);
      const json = await runCli('check', file, '--json', ...c.args);
      assert.ok(text.code === 0 || text.code === 1, `${c.name}: exit ${text.code}: ${text.err}`);
      assert.equal(json.code, text.code);
      matchGolden(`${c.name}.txt`, mask(`exit ${text.code}\n${text.out}${text.err}`, tmp));
      matchGolden(`${c.name}.json`, mask(`exit ${json.code}\n${json.out}${json.err}`, tmp));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
