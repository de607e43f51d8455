/**
 * Usage errors a person can act on: one line on stderr saying what is wrong, a guess when an
 * option or command is a slip of the keyboard ("did you mean --level?", by edit distance), and a
 * pointer to `polysi COMMAND --help` instead of Node's parseArgs text and the whole usage; and
 * `polysi COMMAND --help` prints that command's options, not every command's.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editDistance, nearest } from '../../src/cli/args.ts';
import { runCli as run } from '../support/run-cli.ts';

const LONG_FORK = 'examples/long-fork.txt';

function oneLine(err: string): string {
  const lines = err.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${err}`);
  return lines[0]!;
}

test('a misspelt option: one line, "did you mean", and where the options are listed', async () => {
  for (const [argv, expected] of [
    [['check', LONG_FORK, '--levle', 'ser'], 'polysi check: unknown option --levle (did you mean --level?); see polysi check --help'],
    [['check', LONG_FORK, '--jsno'], 'polysi check: unknown option --jsno (did you mean --json?); see polysi check --help'],
    [['check', LONG_FORK, '--max-memroy', '100'], 'polysi check: unknown option --max-memroy (did you mean --max-memory?); see polysi check --help'],
    [['check', LONG_FORK, '--zzz'], 'polysi check: unknown option --zzz; see polysi check --help'],
    [['check', LONG_FORK, '--level'], 'polysi check: --level takes a value; see polysi check --help'],
    [['check', LONG_FORK, '--json=yes'], 'polysi check: --json takes no value; see polysi check --help'],
    [['check'], 'polysi check: expected a history path (or several, or a directory); see polysi check --help'],
    [['run', '--sessoins', '3'], 'polysi run: unknown option --sessoins (did you mean --sessions?); see polysi run --help'],
    [['run', 'extra'], 'polysi run: unexpected argument "extra" (this command takes options only); see polysi run --help'],
    [['run', '--sessions', 'x'], 'polysi run: --sessions takes an integer, got "x"; see polysi run --help'],
    [['stat', LONG_FORK, '--topp', '3'], 'polysi stat: unknown option --topp (did you mean --top?); see polysi stat --help'],
    [['convert', LONG_FORK], 'polysi convert: expected IN and OUT, got 1 path(s); see polysi convert --help'],
    [['analyze', 'x.anode', '--modle', 'ec'], 'polysi analyze: unknown option --modle (did you mean --model?); see polysi analyze --help'],
    [['chekc', LONG_FORK], 'polysi: unknown command "chekc" (did you mean check?); see polysi --help'],
  ] as [string[], string][]) {
    const r = await run(...argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.equal(oneLine(r.err), expected);
    assert.equal(r.out, '');
  }
});

test('check --help prints check\'s options; polysi --help the commands; each command its own', async () => {
  const check = await run('check', '--help');
  assert.equal(check.code, 0);
  for (const flag of ['--level', '--levels', '--timeout', '--max-memory', '--jobs', '--max-anomalies']) assert.ok(check.out.includes(flag), flag);
  assert.doesNotMatch(check.out, /polysi convert|polysi run/);
  const top = await run('--help');
  assert.equal(top.code, 0);
  for (const cmd of ['check', 'run', 'analyze', 'convert', 'stat']) assert.match(top.out, new RegExp(`polysi ${cmd} `), cmd);
  assert.ok(top.out.split('\n').length < 25, 'the overview is short');
  const runHelp = await run('run', '--help');
  assert.match(runHelp.out, /--force/);
  assert.doesNotMatch(runHelp.out, /polysi check/);
});

test('nearest: slips within the edit distance, swaps of neighbours, unique prefixes; nothing for ties or far names', () => {
  assert.equal(editDistance('levle', 'level'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  const names = ['level', 'levels', 'json', 'timeout', 'max-memory', 'max-anomalies'];
  assert.equal(nearest('levle', names), 'level');
  assert.equal(nearest('timout', names), 'timeout');
  assert.equal(nearest('max-mem', names), 'max-memory');
  assert.equal(nearest('max', names), null); // a prefix of two names
  assert.equal(nearest('xyz', names), null);
  assert.equal(nearest('jsn', names), 'json');
});
