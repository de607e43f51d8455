/**
 * Parse throughput benchmark for the "more formats" parsers (Elle EDN / JSON, Cobra, dbcop JSON
 * and text).
 *
 * Usage: node --import tsx bench/parse.ts [--mb 100] [--small-mb 20] [--seed 1]
 *          [--formats edn,elle-json,cobra,dbcop-json,dbcop-hist] [--dir /tmp/polysi-bench-parse]
 * Generates (once per seed and size; files are reused) a Jepsen-style list-append history of
 * about --mb MB in EDN and the same operations in Elle JSON, plus --small-mb MB of a Cobra log
 * directory, dbcop JSON and dbcop text, with a seeded generator; then parses each in a fresh
 * child process (so each peak RSS is its own) and reports time, MB/s and peak RSS.
 * Invariant: the generated histories are valid (a serial execution), so they also serve as
 * large inputs for the checker.
 *
 * Core formats (PolySI text, JSON Lines, dbcop bincode): `--core 10,200 [--runs 5]` writes a
 * register history of about that many MB per format (a seeded serial execution: 16 sessions,
 * 5,000 integer keys, 2-9 ops per txn, reads see the latest write; JSON Lines with recorder-style
 * fractional start / end times) and parses each file `--runs` times in one child process per
 * file, reporting process CPU time (user + system) and wall time, best and median, as MB/s.
 * CPU is the figure to compare on a shared machine.
 */

import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { History } from '../src/history/model.ts';
import { mulberry32 as prng } from '../test/support/prng.ts';


/** Buffered text output to a file. */
class Sink {
  private parts: string[] = [];
  private size = 0;
  written = 0;
  private readonly fd: number;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  put(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    if (this.size > 1 << 22) this.flush();
  }
  flush(): void {
    const buf = new TextEncoder().encode(this.parts.join(''));
    writeSync(this.fd, buf);
    this.written += buf.length;
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/**
 * A Jepsen list-append run: 10 client processes, a few active keys each taking up to 32
 * appends, txns of 1-4 micro-ops, 90% :ok / 5% :fail / 5% :info (a crashed process is replaced
 * by a new process id), a nemesis op now and then. Writes EDN and JSON side by side.
 */
function genListAppend(ednPath: string, jsonPath: string, targetBytes: number, seed: number): void {
  const rnd = prng(seed);
  const edn = new Sink(ednPath);
  const json = new Sink(jsonPath);
  const lists = new Map<number, number[]>();
  const issued = new Map<number, number>();
  const active: number[] = [];
  let nextKey = 0;
  for (let i = 0; i < 5; i++) {
    active.push(nextKey);
    lists.set(nextKey++, []);
  }
  const procs = Array.from({ length: 10 }, (_, i) => i);
  let nextProc = procs.length;
  const pending = new Map<number, [string, number, number | null][]>();
  let index = 0;
  let time = 1_000_000_000;
  json.put('[');
  let first = true;
  const emit = (type: string, f: string, proc: number | string, mops: [string, number, number | number[] | null][] | null): void => {
    time += 1 + Math.floor(rnd() * 500_000);
    const ednVal = mops === null ? 'nil' : `[${mops.map(([g, k, v]) => `[:${g} ${k} ${v === null ? 'nil' : Array.isArray(v) ? `[${v.join(' ')}]` : v}]`).join(' ')}]`;
    const jsonVal = mops === null ? 'null' : JSON.stringify(mops);
    const ednProc = typeof proc === 'number' ? String(proc) : `:${proc}`;
    edn.put(`{:type :${type}, :f :${f}, :value ${ednVal}, :time ${time}, :process ${ednProc}, :index ${index}}\n`);
    json.put(`${first ? '' : ',\n'}{"type":"${type}","f":"${f}","value":${jsonVal},"time":${time},"process":${JSON.stringify(proc)},"index":${index}}`);
    first = false;
    index++;
  };
  while (edn.written + 4_000_000 < targetBytes || pending.size > 0) {
    const finishing = edn.written + 4_000_000 >= targetBytes;
    if (!finishing && rnd() < 0.002) {
      emit('invoke', 'start-partition', 'nemesis', null);
      emit('info', 'start-partition', 'nemesis', null);
      continue;
    }
    const slot = Math.floor(rnd() * procs.length);
    const p = procs[slot]!;
    const mine = pending.get(p);
    if (mine === undefined) {
      if (finishing) continue;
      const n = 1 + Math.floor(rnd() * 4);
      const mops: [string, number, number | null][] = [];
      for (let i = 0; i < n; i++) {
        const k = active[Math.floor(rnd() * active.length)]!;
        // Append values are unique per key: the key's count of values handed out so far.
        if (rnd() < 0.5) {
          const v = (issued.get(k) ?? 0) + 1;
          issued.set(k, v);
          mops.push(['append', k, v]);
        } else {
          mops.push(['r', k, null]);
        }
      }
      pending.set(p, mops);
      emit('invoke', 'txn', p, mops);
      continue;
    }
    pending.delete(p);
    const roll = rnd();
    const type = roll < 0.9 ? 'ok' : roll < 0.95 ? 'fail' : 'info';
    const applies = type === 'ok' || (type === 'info' && rnd() < 0.5);
    const done: [string, number, number | number[] | null][] = [];
    for (const [g, k, v] of mine) {
      const list = lists.get(k)!;
      if (g === 'append') {
        if (applies) list.push(v!);
        done.push(['append', k, v]);
      } else {
        done.push(['r', k, type === 'ok' ? list.slice() : null]);
      }
    }
    emit(type, 'txn', p, done);
    if (type === 'info') procs[slot] = nextProc++;
    // Retire full keys (Jepsen's max-writes-per-key).
    for (let i = 0; i < active.length; i++) {
      if (lists.get(active[i]!)!.length >= 32) {
        active[i] = nextKey;
        lists.set(nextKey++, []);
      }
    }
  }
  json.put(']\n');
  edn.close();
  json.close();
}

/** A register history (serial execution) as a Cobra directory, dbcop JSON and dbcop text. */
function genRegisters(dir: string, targetBytes: number, seed: number): void {
  const rnd = prng(seed);
  const sessions = 16;
  const nKeys = 5000;
  const cur = new Int32Array(nKeys); // current value per key (0 = initial)
  const curTxn = new Int32Array(nKeys).fill(-1);
  const curWrite = new Int32Array(nKeys).fill(-1);
  let nextValue = 1;
  let nextTxn = 1;
  let nextWrite = 1;
  const cobraDir = join(dir, 'cobra');
  mkdirSync(cobraDir, { recursive: true });
  const cobraBufs = Array.from({ length: sessions }, () => [] as Buffer[]);
  const json = new Sink(join(dir, 'dbcop.json'));
  const hist = new Sink(join(dir, 'dbcop.hist'));
  const jsonTxns: string[][] = Array.from({ length: sessions }, () => []);
  const histTxns: string[][] = Array.from({ length: sessions }, () => []);
  let approx = 0;
  const rec = (tag: string, ...xs: number[]): Buffer => {
    const b = Buffer.alloc(1 + 8 * xs.length);
    b[0] = tag.charCodeAt(0);
    xs.forEach((x, i) => b.writeBigInt64BE(BigInt(x), 1 + 8 * i));
    return b;
  };
  while (approx < targetBytes) {
    const s = Math.floor(rnd() * sessions);
    const t = nextTxn++;
    const n = 2 + Math.floor(rnd() * 8);
    const cob: Buffer[] = [rec('S', t)];
    const ev: string[] = [];
    const hv: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = Math.floor(rnd() * nKeys);
      if (rnd() < 0.5) {
        const v = nextValue++;
        const w = nextWrite++;
        cur[k] = v;
        curTxn[k] = t;
        curWrite[k] = w;
        cob.push(rec('W', w, k, v));
        ev.push(`{"write":true,"variable":${k},"value":${v},"success":true}`);
        hv.push(`k${k}:=${v}`);
      } else {
        cob.push(curTxn[k]! < 0 ? rec('R', 0xbebeebee, 0xbebeebee, k, 0) : rec('R', curTxn[k]!, curWrite[k]!, k, cur[k]!));
        ev.push(`{"write":false,"variable":${k},"value":${cur[k]},"success":true}`);
        hv.push(cur[k] === 0 ? `k${k}==?` : `k${k}==${cur[k]}`);
      }
    }
    cob.push(rec('C', t));
    cobraBufs[s]!.push(...cob);
    jsonTxns[s]!.push(`{"events":[${ev.join(',')}],"success":true}`);
    histTxns[s]!.push(`[${hv.join(' ')}]\n`);
    approx += 70 * n;
  }
  for (let s = 0; s < sessions; s++) {
    const fd = openSync(join(cobraDir, `T${s + 1}.log`), 'w');
    writeSync(fd, Buffer.concat(cobraBufs[s]! as unknown as Uint8Array[]) as unknown as Uint8Array);
    closeSync(fd);
  }
  json.put(`{"params":{"id":0,"n_node":${sessions},"n_variable":${nKeys},"n_transaction":${Math.max(...jsonTxns.map((x) => x.length))},"n_event":9},`);
  json.put('"info":"bench","start":"","end":"","data":[\n');
  for (let s = 0; s < sessions; s++) {
    json.put(`${s > 0 ? ',\n' : ''}[`);
    jsonTxns[s]!.forEach((x, i) => json.put(`${i > 0 ? ',\n' : ''}${x}`));
    json.put(']');
    for (const x of histTxns[s]!) hist.put(x);
    if (s + 1 < sessions) hist.put('---\n');
  }
  json.put(']}\n');
  json.close();
  hist.close();
}

function sizeOf(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((a, n) => a + statSync(join(path, n)).size, 0);
}

/** Child mode: parse one input and print {ms, maxRssMB, txns, ops} as JSON. */
async function parseOne(format: string, path: string): Promise<void> {
  // Load the modules first: the timing is for parsing, not for transpiling TypeScript.
  const edn = await import('../src/formats/elle-edn.ts');
  const ej = await import('../src/formats/elle-json.ts');
  const cobra = await import('../src/formats/cobra.ts');
  const dj = await import('../src/formats/dbcop-json.ts');
  const dh = await import('../src/formats/dbcop-hist.ts');
  const registry = await import('../src/formats/index.ts');
  const readers: Record<string, (p: string) => Promise<History>> = {
    text: (p) => registry.findFormat('text').read(p),
    jsonl: (p) => registry.findFormat('jsonl').read(p),
    dbcop: (p) => registry.findFormat('dbcop').read(p),
    edn: (p) => edn.readEdnFile(p),
    'elle-json': (p) => ej.readElleJsonFile(p),
    cobra: (p) => cobra.readCobra(p),
    'dbcop-json': (p) => dj.dbcopJsonFormat.read(p),
    'dbcop-hist': (p) => dh.dbcopHistFormat.read(p),
  };
  const read = readers[format];
  if (read === undefined) throw new Error(`unknown format ${format}`);
  const t0 = performance.now();
  const h = await read(path);
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, txns: h.txnCount, ops: h.opCount }));
}

/** A register history (serial execution) of about `targetBytes` of PolySI text, built in memory. */
function genCoreHistory(targetBytes: number, seed: number, B: typeof import('../src/history/builder.ts').HistoryBuilder): History {
  const rnd = prng(seed);
  const sessions = 16, nKeys = 5000;
  const cur = new Float64Array(nKeys); // latest value per key (0 = initial)
  const b = new B('<bench>', 'line');
  const sess = Array.from({ length: sessions }, (_, s) => b.session(String(s + 1)));
  const nextIdx = new Int32Array(sessions);
  let nextValue = 1, bytes = 0, clock = 0;
  while (bytes < targetBytes) {
    const s = Math.floor(rnd() * sessions);
    const t = b.beginTxn(sess[s]!, `${s + 1}.${nextIdx[s]!++}`);
    const n = 2 + Math.floor(rnd() * 8);
    for (let i = 0; i < n; i++) {
      const k = Math.floor(rnd() * nKeys);
      if (rnd() < 0.5) {
        const v = nextValue++;
        cur[k] = v;
        b.write(t, k, v);
      } else {
        b.read(t, k, cur[k] === 0 ? null : cur[k]!);
      }
      bytes += 22; // about one PolySI text line
    }
    const start = clock + Math.round(rnd() * 1e6) / 1000;
    clock = start + Math.round(rnd() * 1e6) / 1000;
    b.setTimes(t, start, clock);
  }
  return b.build();
}

const CORE: [string, string][] = [['text', 'history.txt'], ['jsonl', 'history.jsonl'], ['dbcop', 'history.bincode']];

/** Child mode for --core: parse one file `runs` times; print per-run CPU and wall ms as JSON. */
async function parseRepeated(format: string, path: string, runs: number): Promise<void> {
  const registry = await import('../src/formats/index.ts');
  const fmt = registry.findFormat(format);
  const cpu: number[] = [], wall: number[] = [];
  let h: History | null = null;
  for (let i = 0; i < runs; i++) {
    h = null;
    const c0 = process.cpuUsage(), t0 = performance.now();
    h = await fmt.read(path);
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000);
  }
  process.stdout.write(JSON.stringify({ cpu, wall, txns: h!.txnCount, ops: h!.opCount, maxRssMB: process.resourceUsage().maxRSS / 1024 }));
}

async function core(dir: string, sizes: number[], runs: number, seed: number, formats: string[]): Promise<void> {
  const registry = await import('../src/formats/index.ts');
  const { HistoryBuilder } = await import('../src/history/builder.ts');
  process.stdout.write('format   MB     runs  CPU best / median ms   MB/s (CPU best / median)   wall best ms   txns      ops\n');
  for (const mb of sizes) {
    const sub = join(dir, `core-${mb}mb`);
    mkdirSync(sub, { recursive: true });
    if (CORE.some(([, f]) => !existsSync(join(sub, f)))) {
      process.stdout.write(`generating ${mb} MB register history (seed ${seed}) ...\n`);
      const h = genCoreHistory(mb * 1e6, seed, HistoryBuilder);
      for (const [name, file] of CORE) writeFileSync(join(sub, file), registry.findFormat(name).write!(h));
    }
    for (const [format, file] of CORE) {
      if (!formats.includes(format)) continue;
      const path = join(sub, file);
      const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--parse-repeat', format, '--path', path, '--runs', String(runs)], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (r.status !== 0) throw new Error(`parsing ${format} failed: ${r.stderr}`);
      const res = JSON.parse(r.stdout) as { cpu: number[]; wall: number[]; txns: number; ops: number };
      const size = sizeOf(path) / 1e6;
      const sorted = res.cpu.slice().sort((a, b) => a - b);
      const best = sorted[0]!, median = sorted[Math.floor((sorted.length - 1) / 2)]!;
      const wallBest = Math.min(...res.wall);
      process.stdout.write(`${format.padEnd(7)} ${size.toFixed(1).padStart(6)} ${String(runs).padStart(5)} ${best.toFixed(0).padStart(9)} / ${median.toFixed(0).padEnd(9)} ${(size / (best / 1000)).toFixed(1).padStart(10)} / ${(size / (median / 1000)).toFixed(1).padEnd(14)} ${wallBest.toFixed(0).padStart(9)} ${String(res.txns).padStart(9)} ${String(res.ops).padStart(9)}\n`);
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mb: { type: 'string', default: '100' },
      'small-mb': { type: 'string', default: '20' },
      seed: { type: 'string', default: '1' },
      formats: { type: 'string', default: 'edn,elle-json,cobra,dbcop-json,dbcop-hist,text,jsonl,dbcop' },
      dir: { type: 'string', default: '/tmp/polysi-bench-parse' },
      'parse-one': { type: 'string' },
      'parse-repeat': { type: 'string' },
      path: { type: 'string' },
      core: { type: 'string' },
      runs: { type: 'string', default: '5' },
    },
  });
  if (values['parse-one'] !== undefined) return parseOne(values['parse-one'], values.path ?? '');
  if (values['parse-repeat'] !== undefined) return parseRepeated(values['parse-repeat'], values.path ?? '', Number(values.runs));
  if (values.core !== undefined) {
    const sizes = values.core.split(',').map(Number);
    const runs = Number(values.runs);
    if (sizes.some((x) => !(x > 0)) || !(runs >= 1)) throw new Error('--core takes sizes in MB (e.g. 10,200) and --runs a count >= 1');
    const fmts = values.formats === undefined || values.formats.includes('edn') ? CORE.map(([f]) => f) : values.formats.split(',');
    return core(join(values.dir ?? '/tmp/polysi-bench-parse', `seed${values.seed}`), sizes, runs, Number(values.seed), fmts);
  }
  const mb = Number(values.mb);
  if (!(mb > 0) || !(Number(values['small-mb']) > 0)) throw new Error('--mb and --small-mb take positive numbers');
  const smallMb = Number(values['small-mb']);
  const seed = Number(values.seed);
  const dir = join(values.dir ?? '/tmp/polysi-bench-parse', `seed${seed}`);
  mkdirSync(dir, { recursive: true });
  const ednPath = join(dir, `list-append-${mb}mb.edn`);
  const jsonPath = join(dir, `list-append-${mb}mb.json`);
  if (!existsSync(ednPath) || !existsSync(jsonPath)) {
    process.stdout.write(`generating ${mb} MB list-append history (seed ${seed}) ...\n`);
    genListAppend(ednPath, jsonPath, mb * 1e6, seed);
  }
  const regDir = join(dir, `registers-${smallMb}mb`);
  if (!existsSync(join(regDir, 'dbcop.hist'))) {
    process.stdout.write(`generating ${smallMb} MB register history (seed ${seed}) ...\n`);
    genRegisters(regDir, smallMb * 1e6, seed);
  }
  // The core formats get the same register history, converted once by our own writers.
  const registry = await import('../src/formats/index.ts');
  const derived: [string, string][] = [['text', 'history.txt'], ['jsonl', 'history.jsonl'], ['dbcop', 'history.bincode']];
  if (derived.some(([, f]) => !existsSync(join(regDir, f)))) {
    const { history } = await registry.readHistory(join(regDir, 'dbcop.json'), 'dbcop-json');
    for (const [name, file] of derived) writeFileSync(join(regDir, file), registry.findFormat(name).write!(history));
  }
  const inputs: Record<string, string> = {
    edn: ednPath, 'elle-json': jsonPath, cobra: join(regDir, 'cobra'),
    'dbcop-json': join(regDir, 'dbcop.json'), 'dbcop-hist': join(regDir, 'dbcop.hist'),
    text: join(regDir, 'history.txt'), jsonl: join(regDir, 'history.jsonl'), dbcop: join(regDir, 'history.bincode'),
  };
  process.stdout.write('format        MB     seconds   MB/s   peak RSS MB   txns      ops\n');
  for (const format of (values.formats ?? '').split(',')) {
    const path = inputs[format];
    if (path === undefined) throw new Error(`unknown format ${format}`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--parse-one', format, '--path', path], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`parsing ${format} failed: ${r.stderr}`);
    const res = JSON.parse(r.stdout) as { ms: number; maxRssMB: number; txns: number; ops: number };
    const size = sizeOf(path) / 1e6;
    process.stdout.write(`${format.padEnd(12)} ${size.toFixed(1).padStart(6)} ${(res.ms / 1000).toFixed(2).padStart(9)} ${(size / (res.ms / 1000)).toFixed(1).padStart(7)} ${res.maxRssMB.toFixed(0).padStart(11)} ${String(res.txns).padStart(8)} ${String(res.ops).padStart(9)}\n`);
  }
}

await main();
