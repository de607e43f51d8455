/**
 * The paper benchmark suite (bench/paper/) end to end at its smallest configuration (`smoke`):
 * histories recorded from the embedded snapshot store, each checked in a child process, then
 * the CSV, the markdown and the SVG charts written. No timing assertions: only that every
 * number is there and consistent, that the snapshot store's histories satisfy SI, and that
 * the charts are well-formed SVG.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { paperSuite, pointId } from '../../bench/paper/configs.ts';
import { parseCsv, toCsv, type Row } from '../../bench/paper/rows.ts';
import { niceTicks, renderFigure, shortNumber } from '../../bench/paper/svg.ts';
import { runPaperSuite } from '../../bench/paper/suite.ts';
import { scratchDir } from '../support/scratch.ts';

/** The CSV header, written out so that a change of columns shows up here. */
const EXPECTED_COLUMNS = [
  'group', 'x', 'point', 'sessions', 'txns_per_session', 'ops_per_txn', 'read_fraction', 'keys', 'distribution', 'seed',
  'reps', 'committed', 'aborted', 'transactions', 'operations', 'verdict', 'decided_by',
  'parse_ms', 'validate_ms', 'construct_ms', 'prune_ms', 'solve_ms', 'total_ms', 'process_ms', 'cpu_ms',
  'constraints_before', 'constraints_after', 'prune_rounds', 'solver_variables', 'solver_conflicts', 'peak_rss_mb', 'baseline_rss_mb',
];

/**
 * A strict XML well-formedness check, enough for SVG written by hand: one root element, every
 * tag closed in order, attributes quoted and unique, only the five predefined entities or
 * numeric references, no stray '<' or '&' in text. Returns the element names in document order.
 */
function parseXml(text: string): string[] {
  const names: string[] = [];
  const stack: string[] = [];
  let i = 0, roots = 0;
  const checkText = (t: string, at: number) => {
    if (t.includes('<')) throw new Error(`stray '<' at ${at}`);
    for (const m of t.matchAll(/&([^;]*);?/g)) {
      if (!/^(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+)$/.test(m[1]!) || !m[0].endsWith(';')) throw new Error(`bad entity "${m[0]}" at ${at}`);
    }
  };
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) { checkText(text.slice(i), i); if (text.slice(i).trim() !== '') throw new Error('text after the root'); break; }
    const between = text.slice(i, lt);
    checkText(between, i);
    if (stack.length === 0 && between.trim() !== '') throw new Error(`text outside the root at ${i}`);
    const gt = text.indexOf('>', lt);
    if (gt < 0) throw new Error(`unclosed tag at ${lt}`);
    const tag = text.slice(lt + 1, gt);
    if (tag.startsWith('?')) { i = gt + 1; continue; }
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      if (stack.pop() !== name) throw new Error(`</${name}> at ${lt} closes nothing open`);
      i = gt + 1;
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const m = /^([A-Za-z][\w:.-]*)((?:\s+[A-Za-z_:][\w:.-]*\s*=\s*"[^"<]*")*)\s*$/.exec(body);
    if (m === null) throw new Error(`malformed tag <${tag}> at ${lt}`);
    const attrs = [...m[2]!.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*"([^"]*)"/g)];
    const seen = new Set<string>();
    for (const a of attrs) {
      if (seen.has(a[1]!)) throw new Error(`duplicate attribute ${a[1]} at ${lt}`);
      seen.add(a[1]!);
      checkText(a[2]!, lt);
    }
    if (stack.length === 0 && ++roots > 1) throw new Error('more than one root element');
    names.push(m[1]!);
    if (!selfClosing) stack.push(m[1]!);
    i = gt + 1;
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('> <')}>`);
  if (roots !== 1) throw new Error('no root element');
  return names;
}

test('the XML checker used below rejects what is not well-formed', () => {
  assert.deepEqual(parseXml('<svg a="1"><g><text>x &amp; y</text></g><line/></svg>'), ['svg', 'g', 'text', 'line']);
  for (const bad of ['<svg><g></svg>', '<svg a=1></svg>', '<svg>a & b</svg>', '<svg></svg><svg></svg>', '<svg a="1" a="2"/>', '<svg><text>1 < 2</text></svg>']) {
    assert.throws(() => parseXml(bad), Error, bad);
  }
});

test('the smallest suite runs end to end: CSV columns, one row per sweep point and General workload, SI-valid histories, well-formed SVG', async () => {
  const out = scratchDir('polysi-bench-test-');
  try {
    const lines: string[] = [];
    const { rows, files } = await runPaperSuite({ mode: 'smoke', outDir: out, reps: 1, target: 'memory:snapshot', seed: 1, log: (s) => lines.push(s) });
    const suite = paperSuite('smoke', 1);
    assert.equal(lines.length, suite.points.length, 'one progress line per distinct point');

    const { header, records } = parseCsv(readFileSync(join(out, 'results.csv'), 'utf8'));
    assert.deepEqual(header, EXPECTED_COLUMNS);
    const expectedRows = suite.sweeps.reduce((s, w) => s + w.values.length, 0) + suite.general.length;
    assert.equal(records.length, expectedRows);
    assert.equal(rows.length, expectedRows);
    assert.deepEqual(records.map((r) => `${r[0]}/${r[1]}`), [
      ...suite.sweeps.flatMap((w) => w.values.map((v) => `${w.param}/${v}`)),
      'general/GeneralRH', 'general/GeneralRW', 'general/GeneralWH',
    ]);
    const col = (r: string[], name: string) => r[EXPECTED_COLUMNS.indexOf(name)]!;
    for (const r of records) {
      assert.equal(r.length, EXPECTED_COLUMNS.length);
      // The embedded store in snapshot mode never breaks SI: a violation here is a bug in one of them.
      assert.equal(col(r, 'verdict'), 'valid', `point ${col(r, 'point')}`);
      const num = (name: string) => { const v = Number(col(r, name)); assert.ok(Number.isFinite(v) && v >= 0, `${name} = ${col(r, name)}`); return v; };
      assert.equal(num('committed') + num('aborted'), num('sessions') * num('txns_per_session'));
      assert.equal(num('transactions'), num('sessions') * num('txns_per_session'));
      assert.ok(num('constraints_after') <= num('constraints_before'));
      for (const k of ['parse_ms', 'validate_ms', 'construct_ms', 'prune_ms', 'solve_ms', 'total_ms', 'process_ms', 'cpu_ms', 'solver_variables', 'prune_rounds']) num(k);
      assert.ok(num('peak_rss_mb') > 0 && num('baseline_rss_mb') > 0);
      assert.equal(col(r, 'point'), pointId({
        ...suite.points[0]!.options, sessions: num('sessions'), txnsPerSession: num('txns_per_session'), opsPerTxn: num('ops_per_txn'),
        readFraction: num('read_fraction'), keys: num('keys'), distribution: col(r, 'distribution') as 'uniform',
      }));
    }

    const svgs = files.filter((f) => f.endsWith('.svg'));
    assert.deepEqual(svgs.map((f) => f.slice(out.length + 1)).sort(), ['constraints.svg', 'fig5-time.svg', 'fig6-memory.svg', 'general-stages.svg']);
    for (const f of svgs) {
      const text = readFileSync(f, 'utf8');
      const names = parseXml(text);
      assert.equal(names[0], 'svg', f);
      assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.ok(names.includes('polyline') || names.includes('circle'), `${f} draws no data`);
    }
    const fig5 = readFileSync(join(out, 'fig5-time.svg'), 'utf8');
    for (const w of suite.sweeps) assert.ok(fig5.includes(w.label), `fig5 lacks the panel of ${w.label}`);
    const md = readFileSync(join(out, 'results.md'), 'utf8');
    assert.match(md, /Node v\d+/);
    // Every markdown table row has as many cells as its header.
    let cells = -1;
    for (const line of md.split('\n')) {
      if (!line.startsWith('|')) { cells = -1; continue; }
      const n = line.split(' | ').length;
      if (cells < 0) cells = n;
      else assert.equal(n, cells, `table row "${line}" has ${n} cells, its header ${cells}`);
    }
    assert.match(md, /commit [0-9a-f]{10}|commit unknown/);
    const machine = JSON.parse(readFileSync(join(out, 'machine.json'), 'utf8')) as Record<string, unknown>;
    for (const k of ['cores', 'cpuModel', 'memoryGb', 'node', 'commit']) assert.ok(k in machine, `machine.json lacks ${k}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('CSV fields with commas or quotes survive a round trip', () => {
  const row = { group: 'x,y', x: 'say "hi"' } as unknown as Row;
  const { records } = parseCsv(toCsv([row]));
  assert.equal(records[0]![0], 'x,y');
  assert.equal(records[0]![1], 'say "hi"');
});

test('axis ticks start at 0, reach the maximum, and step by 1, 2 or 5 times a power of ten', () => {
  for (const max of [0.3, 7, 10, 99, 1234, 56_789]) {
    const t = niceTicks(max);
    assert.equal(t[0], 0);
    assert.ok(t[t.length - 1]! >= max, `${max}: ${t}`);
    assert.ok(t.length >= 3 && t.length <= 7, `${max}: ${t}`);
    const step = t[1]! - t[0]!;
    const mant = step / 10 ** Math.floor(Math.log10(step));
    assert.ok([1, 2, 5].some((m) => Math.abs(mant - m) < 1e-9), `${max}: step ${step}`);
  }
  assert.equal(shortNumber(2000), '2k');
  assert.equal(shortNumber(1_500_000), '1.5M');
});

test('a figure escapes its text and leaves a gap for a missing point', () => {
  const svg = renderFigure({
    title: 'a < b & c', subtitle: 's', series: ['one'], columns: 1,
    panels: [{ title: 'p', xLabel: 'x', yLabel: 'y', x: [1, 2, 3, 4], y: [[1, null, 3, 4]] }],
  });
  parseXml(svg);
  assert.ok(svg.includes('a &lt; b &amp; c'));
  assert.equal((svg.match(/<polyline/g) ?? []).length, 1, 'the points after the gap form one line, the lone one before it none');
  assert.equal((svg.match(/<circle/g) ?? []).length, 3);
});
