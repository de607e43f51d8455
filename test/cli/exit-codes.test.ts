/**
 * Exit codes and output safety of the real CLI process (bin/polysi.mjs, the bundle in dist/:
 * `npm test` builds it first; run `node scripts/build.mjs` before running this file alone):
 * internal errors exit 4 with one line (the stack with --debug); outputs that cannot be written
 * exit 2 naming the path and the reason and leave what was there untouched; convert refuses
 * OUT = IN and leaves no temporary file behind when killed by SIGINT / SIGTERM.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import {
  chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync,
  symlinkSync, writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../support/scratch.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'polysi.mjs');
const LONG_FORK = join(ROOT, 'examples', 'long-fork.txt');

interface Ran { code: number | null; out: string; err: string }

function cli(args: string[], opts: SpawnSyncOptions = {}): Ran {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, ...opts });
  return { code: r.status, out: String(r.stdout), err: String(r.stderr) };
}

function scratch(): string {
  return scratchDir('polysi-exit-');
}

/**
 * A character device (a null device, 1:3) made in `dir`, or null where mknod is not allowed.
 * Never /dev/null itself: a regression would then replace the machine's /dev/null with a file
 * (which is what the old `convert` did as root).
 */
function nullDevice(dir: string): string | null {
  const p = join(dir, 'device');
  return spawnSync('mknod', ['-m', '666', p, 'c', '1', '3']).status === 0 ? p : null;
}

const FAULT = { env: { ...process.env, POLYSI_TEST_FAULT: 'internal' } };

test('an internal error exits 4 with one line on stderr, for every command', () => {
  const dir = scratch();
  try {
    const runs: [string, string[]][] = [
      ['check', ['check', LONG_FORK]],
      ['stat', ['stat', LONG_FORK]],
      ['convert', ['convert', LONG_FORK, join(dir, 'out.jsonl'), '--to', 'jsonl']],
    ];
    for (const [cmd, args] of runs) {
      const r = cli(args, FAULT);
      assert.equal(r.code, 4, `${cmd}: ${r.err}`);
      assert.equal(r.err,
        `polysi: internal error: fault injected by POLYSI_TEST_FAULT in ${cmd} (run with --debug for the stack; please report)\n`);
      assert.equal(r.out, '');
    }
    assert.deepEqual(readdirSync(dir), [], 'convert left nothing behind');
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('--debug prints the stack of an internal error (still exit 4)', () => {
  const r = cli(['check', LONG_FORK, '--debug'], FAULT);
  assert.equal(r.code, 4);
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines[0], 'polysi: internal error: Error: fault injected by POLYSI_TEST_FAULT in check');
  assert.ok(lines.length > 2 && lines.slice(1).every((l) => /^\s+at /.test(l)), r.err);
  // --debug is the CLI's own flag: without a fault it changes nothing.
  assert.equal(cli(['check', LONG_FORK, '--debug']).code, 1);
});

test('drawings that cannot be written exit 2 before the check, naming the option, the path and why', () => {
  const dir = scratch();
  try {
    const link = join(dir, 'link.svg');
    symlinkSync(join(dir, 'elsewhere.svg'), link);
    const fifo = join(dir, 'fifo.dot');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    // Without mknod we are not root, so even a regression could not replace /dev/null.
    const device = nullDevice(dir) ?? '/dev/null';
    const cases: [string, string, string][] = [
      ['--dot', join(dir, 'missing', 'x.dot'), `the directory ${join(dir, 'missing')} does not exist`],
      ['--svg', dir, 'it is a directory'],
      ['--html', device, 'it is a device; give a regular file'],
      ['--svg', link, 'it is a symbolic link (refusing to replace it; give the path it points to)'],
      ['--dot', fifo, 'it is a named pipe (FIFO); give a regular file'],
      ['--dot', join(LONG_FORK, 'x.dot'), `${LONG_FORK} is not a directory`],
    ];
    for (const [opt, path, why] of cases) {
      const r = cli(['check', LONG_FORK, opt, path]);
      assert.equal(r.code, 2, `${opt} ${path}: ${r.err}`);
      assert.equal(r.err, `polysi check: cannot write ${opt} ${path}: ${why}\n`);
      assert.equal(r.out, '', 'refused before checking');
    }
    assert.ok(lstatSync(link).isSymbolicLink() && !existsSync(join(dir, 'elsewhere.svg')));
    assert.ok(lstatSync(fifo).isFIFO());
    assert.ok(lstatSync(device).isCharacterDevice());
    // The ordinary case still works, and leaves no temporary file.
    const ok = cli(['check', LONG_FORK, '--dot', join(dir, 'ok.dot')]);
    assert.equal(ok.code, 1, ok.err);
    assert.match(readFileSync(join(dir, 'ok.dot'), 'utf8'), /^digraph/);
    assert.deepEqual(readdirSync(dir).filter((f) => f !== 'device').sort(), ['fifo.dot', 'link.svg', 'ok.dot']);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

// Root ignores mode bits, so the permission case runs the CLI as an unprivileged user when the
// tests run as root (the repository and /tmp must be readable by it, as they are here).
const asUser: SpawnSyncOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
/** Whether that user can run the CLI at all (a checkout under a private home directory cannot). */
const userCanRun = spawnSync(process.execPath, [BIN, 'stat', LONG_FORK], asUser).status === 0;

test('an output in a directory without write permission exits 2 with "permission denied"', {
  skip: userCanRun ? false : 'skipped: the unprivileged user (uid 65534) cannot read this checkout, and root ignores permissions',
}, () => {
  const dir = scratch();
  const locked = join(dir, 'locked');
  mkdirSync(locked);
  chmodSync(dir, 0o755);
  chmodSync(locked, 0o555);
  try {
    const svg = join(locked, 'x.dot');
    const r = cli(['check', LONG_FORK, '--dot', svg], asUser);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.err, `polysi check: cannot write --dot ${svg}: permission denied\n`);
    const out = join(locked, 'x.jsonl');
    const c = cli(['convert', LONG_FORK, out, '--to', 'jsonl'], asUser);
    assert.equal(c.code, 2, c.err);
    assert.equal(c.err, `polysi convert: cannot write ${out}: permission denied\n`);
    assert.deepEqual(readdirSync(locked), []);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('convert refuses OUT = IN (same path, another spelling, a hard link, a symlink) and leaves IN intact', () => {
  const dir = scratch();
  try {
    const input = join(dir, 'in.txt');
    writeFileSync(input, readFileSync(LONG_FORK));
    const hard = join(dir, 'hard.txt');
    linkSync(input, hard);
    const soft = join(dir, 'soft.txt');
    symlinkSync(input, soft);
    for (const out of [input, join(dir, '.', 'in.txt'), hard, soft]) {
      const r = cli(['convert', input, out, '--to', 'text']);
      assert.equal(r.code, 2, `${out}: ${r.err}`);
      assert.equal(r.err, `polysi convert: OUT ${out} is the same file as IN ${input}; write the conversion to another path\n`);
    }
    // check's drawings may not overwrite the history either.
    const d = cli(['check', input, '--dot', hard]);
    assert.equal(d.code, 2, d.err);
    assert.equal(d.err, `polysi check: cannot write --dot ${hard}: it is the input history ${input}\n`);
    assert.deepEqual(readFileSync(input), readFileSync(LONG_FORK));
    assert.deepEqual(readdirSync(dir).sort(), ['hard.txt', 'in.txt', 'soft.txt']);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

const canMknod = (() => {
  const dir = scratch();
  try {
    return nullDevice(dir) !== null;
  } finally {
    rmSync(dir, { recursive: true });
  }
})();

test('convert refuses to write into the directory it reads (a Cobra log directory)', () => {
  const dir = scratch();
  try {
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    // Any directory input will do: the refusal comes before reading it.
    const out = join(logs, 'T1.log');
    const r = cli(['convert', logs, out, '--to', 'jsonl']);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.err, `polysi convert: OUT ${out} is inside the input directory ${logs}; write the conversion elsewhere\n`);
    assert.deepEqual(readdirSync(logs), []);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('convert never replaces a device, a FIFO, a symlink or a directory (exit 2, left as it was)', {
  skip: canMknod ? false : 'skipped: mknod is not allowed here, and the device case must not risk /dev/null',
}, () => {
  const dir = scratch();
  try {
    const link = join(dir, 'link.jsonl');
    symlinkSync(join(dir, 'target.jsonl'), link);
    const fifo = join(dir, 'fifo.jsonl');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const device = nullDevice(dir)!;
    const cases: [string, string][] = [
      [device, 'it is a device; give a regular file'],
      [fifo, 'it is a named pipe (FIFO); give a regular file'],
      [link, 'it is a symbolic link (refusing to replace it; give the path it points to)'],
      [dir, 'it is a directory'],
      [join(dir, 'no', 'x.jsonl'), `the directory ${join(dir, 'no')} does not exist`],
    ];
    for (const [out, why] of cases) {
      const r = cli(['convert', LONG_FORK, out, '--to', 'jsonl']);
      assert.equal(r.code, 2, `${out}: ${r.err}`);
      assert.equal(r.err, `polysi convert: cannot write ${out}: ${why}\n`);
    }
    assert.ok(lstatSync(device).isCharacterDevice());
    assert.ok(lstatSync(fifo).isFIFO());
    assert.ok(lstatSync(link).isSymbolicLink() && !existsSync(join(dir, 'target.jsonl')));
    assert.deepEqual(readdirSync(dir).sort(), ['device', 'fifo.jsonl', 'link.jsonl']);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

/** A valid JSON Lines history of `n` transactions (3 ops each) over 8 sessions. */
function bigJsonl(n: number): string {
  const lines: string[] = [];
  let v = 1;
  for (let t = 0; t < n; t++) {
    const k = t % 1000;
    lines.push(`{"session":"s${t % 8}","txn":"t${t}","status":"committed","ops":[["r","k${k}",null],["w","k${k}",${v++}],["w","x${t}",${v++}]]}`);
  }
  return `${lines.join('\n')}\n`;
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`convert killed by ${signal} while its temporary file exists leaves neither it nor OUT`, async () => {
    const dir = scratch();
    try {
      const input = join(dir, 'big.jsonl');
      writeFileSync(input, bigJsonl(60_000));
      const outDir = join(dir, 'out');
      mkdirSync(outDir);
      const child = spawn(process.execPath, [BIN, 'convert', input, join(outDir, 'big.edn'), '--to', 'edn'], { stdio: 'ignore' });
      const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((res) => child.on('exit', (code, sig) => res({ code, sig })));
      // Wait for the temporary file to appear (the conversion is writing or reading it back).
      let sawTemp = false;
      let finished = false;
      void exited.then(() => { finished = true; });
      while (!finished) {
        if (readdirSync(outDir).some((f) => f.endsWith('.tmp'))) {
          sawTemp = true;
          child.kill(signal);
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      const { code, sig } = await exited;
      assert.ok(sawTemp, 'the conversion finished before its temporary file was seen; make the input larger');
      assert.equal(sig, signal, `exit code ${code}`);
      assert.deepEqual(readdirSync(outDir), [], 'no temporary file and no OUT');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
}

test('a closed stdout (polysi ... | head) ends the process quietly with 2, not a crash, and leaves no temporary file', async () => {
  const dir = scratch();
  try {
    const input = join(dir, 'big.jsonl');
    writeFileSync(input, bigJsonl(20_000)); // about 2.4 MB of output: far more than a pipe holds
    // convert to stdout verifies through a temporary file in the temp directory: point that at
    // a directory of our own to see whether it is left behind.
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const child = spawn(process.execPath, [BIN, 'convert', input, '-', '--to', 'jsonl'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    assert.equal(code, 2, err);
    assert.equal(err, '');
    assert.deepEqual(readdirSync(tmp), [], 'the temporary file of the conversion is removed');
  } finally {
    rmSync(dir, { recursive: true });
  }
});
