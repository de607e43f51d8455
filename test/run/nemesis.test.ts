// The nemesis (src/run/nemesis/nemesis.ts) without a database: fault choice by the seed among
// the faults the nodes' commands allow, one fault at a time with its start and end reported,
// stop() and healNowSync() healing the fault in progress (a paused node is resumed), a failed
// inject recorded as no fault; --faults usage errors (the cluster file's own: cluster-file.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Nemesis, possibleFaults, type FaultKind, type NemesisNode } from '../../src/run/nemesis/nemesis.ts';
import { FaultProxy } from '../../src/run/nemesis/proxy.ts';
import type { ClusterMember } from '../../src/run/cluster.ts';
import { parseFaultKinds } from '../../src/run/nemesis/index.ts';
import { runCommand } from '../../src/run/nemesis/commands.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function node(spec: ClusterMember): NemesisNode {
  return { spec, proxy: new FaultProxy('127.0.0.1', 1) };
}

interface Seen { kind: FaultKind; node: string; start: number; end: number }

function nemesis(nodes: NemesisNode[], kinds: FaultKind[], ran: string[], extra: { fail?: string; seed?: number } = {}): { n: Nemesis; faults: Seen[] } {
  const faults: Seen[] = [];
  let clock = 0;
  const n = new Nemesis(nodes, {
    kinds, everyMs: 5, durationMs: 20, seed: extra.seed ?? 1, now: () => ++clock,
    onFault: (kind, nodeName, start, end) => faults.push({ kind, node: nodeName, start, end }),
    run: async (cmd) => { ran.push(cmd); return cmd === extra.fail ? { ok: false, detail: 'exited 1' } : { ok: true, detail: '' }; },
  });
  return { n, faults };
}

test('nemesis: only faults whose commands the node has are possible', () => {
  const full = node({ name: 'a', url: 'x://', kill: 'k', start: 's', pause: 'p', resume: 'r' });
  const bare = node({ name: 'b', url: 'x://', kill: 'k' }); // no start: cannot be killed and healed
  assert.deepEqual(possibleFaults([full, bare], ['kill', 'pause', 'partition']).map((f) => `${f.node}:${f.kind}`),
    ['0:kill', '0:pause', '0:partition', '1:partition']);
});

test('nemesis: one fault at a time, each healed with its command and reported with start < end', async () => {
  const ran: string[] = [];
  const nodes = [node({ name: 'n1', url: 'x://', kill: 'kill1', start: 'start1', pause: 'pause1', resume: 'resume1' }),
    node({ name: 'n2', url: 'x://', kill: 'kill2', start: 'start2', pause: 'pause2', resume: 'resume2' })];
  const { n, faults } = nemesis(nodes, ['kill', 'pause', 'partition', 'stall'], ran);
  n.start();
  await sleep(300);
  await n.stop();
  assert.ok(faults.length >= 3, `only ${faults.length} faults`);
  assert.equal(n.injected, faults.length);
  // Every command-driven fault's inject is followed by its own heal before the next inject.
  const pairs: Record<string, string> = { kill1: 'start1', kill2: 'start2', pause1: 'resume1', pause2: 'resume2' };
  for (let i = 0; i < ran.length; i += 2) assert.equal(ran[i + 1], pairs[ran[i]!], `commands ${ran.join(' ')}`);
  for (let i = 0; i < faults.length; i++) {
    const f = faults[i]!;
    assert.ok(f.start < f.end, `fault ${i}`);
    if (i > 0) assert.ok(faults[i - 1]!.end < f.start, 'faults do not overlap');
  }
  // The seed decides: the same seed, the same faults.
  const again = nemesis(nodes, ['kill', 'pause', 'partition', 'stall'], []);
  again.n.start();
  await sleep(300);
  await again.n.stop();
  const m = Math.min(faults.length, again.faults.length);
  assert.deepEqual(again.faults.slice(0, m).map((f) => f.kind + f.node), faults.slice(0, m).map((f) => f.kind + f.node));
  for (const nd of nodes) assert.equal(nd.proxy.mode, 'pass', 'every proxy passes after stop');
});

test('nemesis: stop() during a fault heals it before resolving; a partition sets the proxy back to pass', async () => {
  const ran: string[] = [];
  const n1 = node({ name: 'n1', url: 'x://', pause: 'pause1', resume: 'resume1' });
  const { n, faults } = nemesis([n1], ['pause'], ran);
  n.start();
  while (ran.length === 0) await sleep(1);
  await n.stop();
  assert.deepEqual(ran, ['pause1', 'resume1']);
  assert.equal(faults.length, 1);
  assert.ok(!Number.isNaN(faults[0]!.end));

  const p = nemesis([n1], ['partition'], []);
  p.n.start();
  while (n1.proxy.mode === 'pass') await sleep(1);
  assert.equal(n1.proxy.mode, 'drop');
  await p.n.stop();
  assert.equal(n1.proxy.mode, 'pass');
  assert.equal(p.faults[0]?.kind, 'partition');
});

test('nemesis: healNowSync resumes a paused node at once (a second Ctrl-C)', async () => {
  const dir = scratchDir('polysi-nemesis-');
  try {
    const log = join(dir, 'log');
    const n1 = node({ name: 'n1', url: 'x://', pause: `echo pause >> ${log}`, resume: `echo resume >> ${log}` });
    const faults: Seen[] = [];
    const n = new Nemesis([n1], { kinds: ['pause'], everyMs: 1, durationMs: 60_000, seed: 3, onFault: (kind, nn, start, end) => faults.push({ kind, node: nn, start, end }) });
    n.start();
    while (n.injected === 0) await sleep(2);
    n.healNowSync();
    assert.equal(readFileSync(log, 'utf8'), 'pause\nresume\n');
    assert.equal(faults.length, 1);
    await n.stop(); // nothing left to heal: no second resume, no second report
    assert.equal(readFileSync(log, 'utf8'), 'pause\nresume\n');
    assert.equal(faults.length, 1);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('nemesis: a failed inject records no fault; a failed pause is resumed anyway, a failed kill not started', async () => {
  const ran: string[] = [];
  const n1 = node({ name: 'n1', url: 'x://', kill: 'kill1', start: 'start1' });
  const notes: string[] = [];
  const faults: Seen[] = [];
  const n = new Nemesis([n1], {
    kinds: ['kill'], everyMs: 5, durationMs: 5, seed: 1,
    onFault: (kind, nn, start, end) => faults.push({ kind, node: nn, start, end }), onNote: (t) => notes.push(t),
    run: async (cmd) => { ran.push(cmd); return { ok: cmd !== 'kill1', detail: 'exited 1' }; },
  });
  n.start();
  await sleep(60);
  await n.stop();
  assert.equal(faults.length, 0);
  assert.equal(n.injected, 0);
  assert.ok(ran.length >= 1 && ran.every((c) => c === 'kill1'), ran.join(' '));
  assert.match(notes[0]!, /kill of n1 failed \(exited 1\); no fault recorded/);

  const paused: string[] = [];
  const p = new Nemesis([node({ name: 'n2', url: 'x://', pause: 'pause2', resume: 'resume2' })], {
    kinds: ['pause'], everyMs: 5, durationMs: 5, seed: 1, onFault: () => assert.fail('no fault'),
    run: async (cmd) => { paused.push(cmd); return { ok: cmd !== 'pause2', detail: 'exited 1' }; },
  });
  p.start();
  await sleep(60);
  await p.stop();
  assert.deepEqual(paused.slice(0, 2), ['pause2', 'resume2']);
});

test('commands: sh -c, exit status and stderr; a backgrounded daemon does not hold it up', async () => {
  assert.deepEqual(await runCommand('true'), { ok: true, detail: '' });
  const r = await runCommand('echo oops >&2; exit 3');
  assert.equal(r.ok, false);
  assert.match(r.detail, /exited 3: oops/);
  const t0 = Date.now();
  assert.equal((await runCommand('sleep 5 & exit 0')).ok, true);
  assert.ok(Date.now() - t0 < 3000, 'returned when the shell exited');
  assert.match((await runCommand('sleep 5', 100)).detail, /did not finish within 0.1 s/);
});

test('run: fault flags without a cluster, unknown faults and impossible faults are usage errors (exit 2)', async () => {
  assert.throws(() => parseFaultKinds('kill,explode'), /unknown fault "explode"/);
  let r = await runCli('run', '--faults', 'kill');
  assert.equal(r.code, 2);
  assert.match(r.err, /--faults needs --cluster FILE/);
  const dir = scratchDir('polysi-nemesis-');
  try {
    const file = join(dir, 'c.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, JSON.stringify({ name: 'x', nodes: [{ name: 'n1', url: 'mysql://u@127.0.0.1:1/db', pause: 'true' }] }));
    r = await runCli('run', '--cluster', file, '--faults', 'pause,partition');
    assert.equal(r.code, 2);
    assert.match(r.err, /--faults pause: no node of .* has the commands for it/);
    r = await runCli('run', '--cluster', file, '--db', 'memory');
    assert.equal(r.code, 2);
    assert.match(r.err, /--cluster and --db both name the target/);
    r = await runCli('run', '--cluster', join(dir, 'missing.json'));
    assert.equal(r.code, 2);
    assert.match(r.err, /cannot read the cluster file/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
