// `polysi convert`: real files through every writable format and back, random histories through
// every writable pair (A -> B -> A gives the same History), refusals and usage errors (exit 2,
// OUT untouched).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryBuilder, type RawKey, type RawValue } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History, type TxnStatus } from '../../src/history/model.ts';
import { FORMATS, readHistory } from '../../src/formats/index.ts';
import type { FormatModule } from '../../src/formats/types.ts';
import { contentDiff, runConvert } from '../../src/cli/convert.ts';
import { mulberry32, type Rng } from '../support/gen.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const NO_DATA = needsData();
const DATA = DATA_DIR;
const WRITABLE = FORMATS.filter((f) => f.write !== undefined);

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) }, out, err };
}

function withTmp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = scratchDir('polysi-convert-');
  return fn(dir).finally(() => rmSync(dir, { recursive: true }));
}

/** Writes `h` with `fmt` into `dir` and reads it back; null if the writer refuses. */
async function through(fmt: FormatModule, h: History, dir: string, tag: string): Promise<History | null> {
  let data: string | Uint8Array;
  try {
    data = fmt.write!(h);
  } catch (e) {
    assert.ok(e instanceof Error && /^cannot write /.test(e.message), `${fmt.name} writer failed oddly: ${String(e)}`);
    return null;
  }
  const p = join(dir, `${tag}.${fmt.name}`);
  writeFileSync(p, data);
  return fmt.read(p);
}

test('convert: the registry holds the formats of this module', () => {
  const names = FORMATS.map((f) => f.name);
  for (const n of ['cobra', 'edn', 'elle-json', 'dbcop-json', 'dbcop-hist']) assert.ok(names.includes(n), n);
  for (const n of ['edn', 'elle-json', 'dbcop-json', 'dbcop-hist']) assert.ok(WRITABLE.some((f) => f.name === n), n);
});

test('convert: real files through the CLI and back', { skip: NO_DATA }, async () => {
  await withTmp(async (dir) => {
    const cases: [string, string[]][] = [
      ['elle/si-without-g-single.edn', ['elle-json', 'jsonl', 'edn']],
      ['elle/paper-example.edn', ['jsonl', 'elle-json', 'edn']],
      ['small/long-fork.txt', ['dbcop-hist', 'dbcop-json', 'edn', 'elle-json', 'jsonl', 'text']],
      ['polysi/valid/cobra/rubis-10000', ['edn', 'jsonl', 'elle-json']],
      [`polysi/valid/fig7/${readdirSync(join(DATA, 'polysi/valid/fig7')).sort()[0]}`, ['dbcop-json', 'dbcop-hist', 'dbcop', 'jsonl']],
    ];
    for (const [file, chain] of cases) {
      const { history: original } = await readHistory(join(DATA, file));
      let from = join(DATA, file);
      for (const to of chain) {
        const out = join(dir, `${chain.indexOf(to)}.${to}`);
        const c = capture();
        const code = await runConvert([from, out, '--to', to], c.io);
        assert.equal(code, 0, `${file} -> ${to}: ${c.err.join('\n')}`);
        assert.match(c.out.join(''), new RegExp(`wrote .* \\(${to}\\): ${original.sessionCount} sessions, ${original.txnCount} transactions, ${original.opCount} operations`));
        const { history, format } = await readHistory(out);
        assert.equal(format, to, `auto-detection recognises the ${to} output`);
        assert.equal(contentDiff(original, history), null, `${file} -> ${to}`);
        from = out;
      }
    }
  });
});

test('convert: refusals and usage errors exit 2 and leave OUT alone', { skip: NO_DATA }, async () => {
  await withTmp(async (dir) => {
    const edn = join(DATA, 'elle/paper-example.edn');
    const out = join(dir, 'out.json');
    const run = async (args: string[], err: RegExp) => {
      const c = capture();
      assert.equal(await runConvert(args, c.io), 2, args.join(' '));
      assert.match(c.err.join('\n'), err);
      assert.ok(!existsSync(out), 'OUT was not written');
      assert.deepEqual(readdirSync(dir), [], 'no temporary file is left behind');
    };
    await run([edn, out, '--to', 'dbcop-json'], /refusing to convert .*paper-example.edn from edn to dbcop-json: .*list-append/);
    await run([edn, out, '--to', 'text'], /refusing to convert .* to text: cannot write/);
    await run([edn, out, '--to', 'cobra'], /format cobra can be read but not written/);
    await run([edn, out, '--to', 'nope'], /unknown format "nope"/);
    await run([edn, out], /--to FORMAT is required/);
    await run([edn, '--to', 'edn'], /expected IN and OUT, got 1/);
    await run([edn, out, '--to', 'edn', '--bogus'], /^polysi convert: unknown option --bogus; see polysi convert --help$/);
    await run([join(dir, 'missing.edn'), out, '--to', 'edn'], /missing.edn.*no such file/);
    await run([edn, out, '--to', 'edn', '--format', 'dbcop-json'], /paper-example.edn line 1/);
    await run([join(DATA, 'polysi/valid/cobra/rubis-10000'), out, '--to', 'dbcop'], /refusing.*cannot write/);
  });
});

test('convert: OUT "-" prints text formats; binary formats need a file', { skip: NO_DATA }, async () => {
  const c = capture();
  assert.equal(await runConvert([join(DATA, 'small/long-fork.txt'), '-', '--to', 'dbcop-hist'], c.io), 0);
  assert.equal(c.out.join(''), '[1==? 1:=1]\n[1==1 2==?]\n---\n[2==? 2:=1]\n[1==? 2==1]\n');
  const d = capture();
  assert.equal(await runConvert([join(DATA, 'small/long-fork.txt'), '-', '--to', 'dbcop'], d.io), 2);
  assert.match(d.err.join(''), /binary format/);
});

// ---- random histories through every writable pair ------------------------------------------

type Profile = 'registers' | 'aborts' | 'lists';

/**
 * A random History fitting a profile: 'registers' (committed, integer keys, fresh positive
 * integer values, no empty txns: every writable format can hold it), 'aborts' (plus aborted txns
 * that read only written values), 'lists' (list-append and register keys of several types,
 * string values, every outcome: Elle and JSON Lines).
 */
function randomHistory(rnd: Rng, profile: Profile): History {
  const b = new HistoryBuilder('<random>');
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const nSessions = 1 + Math.floor(rnd() * 4);
  const written = new Map<RawKey, RawValue[]>();
  const lists = new Map<RawKey, RawValue[]>();
  let next = 1;
  const regKeys: RawKey[] = profile === 'lists' ? [0, 'r', ':kw', 12345678901234567890n.toString()] : [0, 1, 2, 3, 4];
  const listKeys: RawKey[] = ['l', 7, ':lk'];
  for (let s = 0; s < nSessions; s++) {
    const session = b.session(s + 1);
    const nTxns = 1 + Math.floor(rnd() * 4);
    for (let i = 0; i < nTxns; i++) {
      const status: TxnStatus = profile === 'registers' ? TXN_COMMITTED : pick([TXN_COMMITTED, TXN_COMMITTED, TXN_ABORTED, profile === 'lists' ? TXN_UNKNOWN : TXN_ABORTED]);
      const t = b.beginTxn(session, `t${s}-${i}`, status);
      const nOps = 1 + Math.floor(rnd() * 4);
      for (let o = 0; o < nOps; o++) {
        if (profile === 'lists' && rnd() < 0.5) {
          const k = pick(listKeys);
          const l = lists.get(k) ?? [];
          lists.set(k, l);
          if (rnd() < 0.5) {
            const v = rnd() < 0.5 ? next++ : `v${next++}`;
            b.append(t, k, v);
            if (status === TXN_COMMITTED) l.push(v);
          } else {
            b.readList(t, k, l.slice(0, Math.floor(rnd() * (l.length + 1))));
          }
          continue;
        }
        const k = pick(regKeys);
        const w = written.get(k) ?? [];
        written.set(k, w);
        if (rnd() < 0.5) {
          const v = profile === 'lists' && rnd() < 0.3 ? `s${next++}` : next++;
          b.write(t, k, v);
          w.push(v);
        } else if (w.length > 0 && (rnd() < 0.7 || status !== TXN_COMMITTED)) {
          b.read(t, k, pick(w));
        } else if (status === TXN_COMMITTED) {
          b.read(t, k, null);
        }
      }
    }
  }
  return b.build();
}

const FUZZ_SCALE = Number(process.env.POLYSI_FUZZ_SCALE ?? '1') || 1;

test('convert: random histories survive A -> B -> A for every writable pair', { timeout: 300_000 }, async () => {
  await withTmp(async (dir) => {
    const rnd = mulberry32(20240611);
    const pairs = new Map<string, number>();
    let n = 0;
    for (const profile of ['registers', 'aborts', 'lists'] as const) {
      for (let i = 0; i < 4 * FUZZ_SCALE; i++) {
        const h = randomHistory(rnd, profile);
        for (const a of WRITABLE) {
          const ha = await through(a, h, dir, `${n++}`);
          if (ha === null) continue;
          assert.equal(contentDiff(h, ha), null, `${profile}: ${a.name}`);
          for (const bFmt of WRITABLE) {
            const hb = await through(bFmt, ha, dir, `${n++}`);
            if (hb === null) continue;
            assert.equal(contentDiff(ha, hb), null, `${profile}: ${a.name} -> ${bFmt.name}`);
            const ha2 = await through(a, hb, dir, `${n++}`);
            assert.ok(ha2 !== null, `${profile}: ${a.name} -> ${bFmt.name} -> ${a.name} is writable again`);
            assert.equal(contentDiff(ha, ha2), null, `${profile}: ${a.name} -> ${bFmt.name} -> ${a.name}`);
            const key = `${profile}:${a.name}->${bFmt.name}`;
            pairs.set(key, (pairs.get(key) ?? 0) + 1);
          }
        }
      }
    }
    // Every pair that can hold a profile was exercised at least once.
    const registerFormats = WRITABLE.map((f) => f.name);
    for (const a of registerFormats) for (const b of registerFormats) assert.ok(pairs.has(`registers:${a}->${b}`), `registers:${a}->${b}`);
    for (const a of ['edn', 'elle-json', 'dbcop-json', 'dbcop-hist']) {
      for (const b of ['edn', 'elle-json', 'dbcop-json', 'dbcop-hist']) assert.ok(pairs.has(`aborts:${a}->${b}`), `aborts:${a}->${b}`);
    }
    for (const a of ['edn', 'elle-json']) for (const b of ['edn', 'elle-json']) assert.ok(pairs.has(`lists:${a}->${b}`), `lists:${a}->${b}`);
  });
});
