/**
 * Renderings of explanations: DOT, SVG (WebAssembly Graphviz), the HTML report, and the CLI
 * flags that write them; plus the end-to-end time budget for the Dgraph violation.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';
import { main, type Io } from '../../src/cli/main.ts';
import type { Counterexample } from '../../src/result/counterexample.ts';
import { htmlReport, renderDot, renderSvg, SVG_TXNS_MAX } from '../../src/render/index.ts';
import { dotToSvg } from '../../src/render/svg.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const NO_DATA = needsData();
const DATA = DATA_DIR;
const GALERA = join(DATA, 'polysi/violations/galera-lost-update.txt');
const YUGABYTE = join(DATA, 'polysi/violations/yugabyte-causality.txt');
const DGRAPH = join(DATA, 'polysi/violations/dgraph-causality.bincode');

async function explained(path: string): Promise<Counterexample[]> {
  const { history } = await readHistory(path);
  const r = checkHistory(history, { level: 'si', pruning: true, explain: true });
  return r.anomalies.map((a) => a.explanation!);
}

function capture(): Io & { out: string; err: string } {
  const io = { out: '', err: '', stdout: (s: string) => { io.out += `${s}\n`; }, stderr: (s: string) => { io.err += `${s}\n`; } };
  return io;
}

/** Nothing that a browser would fetch: no scripts, stylesheets, images, fonts or frames by URL. */
function assertSelfContained(html: string): void {
  for (const bad of [/<script/i, /<link/i, /<img/i, /<iframe/i, /\ssrc=/i, /url\(/i, /@import/i, /xlink:href="http/i]) {
    assert.doesNotMatch(html, bad, `the report refers to something outside it: ${bad}`);
  }
}

test('DOT: one node per transaction, one edge per dependency, styles by status', { skip: NO_DATA }, async () => {
  const [cx] = await explained(GALERA);
  const dot = renderDot([cx!]);
  assert.match(dot, /^digraph "polysi" \{/);
  assert.equal((dot.match(/\{/g) ?? []).length, (dot.match(/\}/g) ?? []).length);
  const nodes = dot.split('\n').filter((l) => /^\s+"a1_t-?\d+" \[/.test(l));
  assert.equal(nodes.length, cx!.txns.length);
  const edges = dot.split('\n').filter((l) => l.includes(' -> '));
  assert.equal(edges.length, cx!.edges.length + cx!.context.length);
  const hypothetical = cx!.edges.filter((e) => e.status === 'hypothetical').length;
  assert.equal(edges.filter((l) => l.includes('style=dashed')).length, hypothetical);
  assert.equal(edges.filter((l) => l.includes('color=blue')).length, cx!.edges.filter((e) => e.status === 'derived').length);
});

test('SVG through WebAssembly Graphviz: one node per transaction; too large a graph is not laid out', { skip: NO_DATA }, async () => {
  const [cx] = await explained(GALERA);
  const svg = await renderSvg([cx!], { legend: false });
  assert.match(svg, /^<svg[\s\S]*<\/svg>\s*$/);
  assert.equal((svg.match(/class="node"/g) ?? []).length, cx!.txns.length);
  const big: Counterexample = { ...cx!, txns: Array.from({ length: SVG_TXNS_MAX + 1 }, (_, i) => ({ ...cx!.txns[0]!, txn: i })) };
  const placeholder = await renderSvg([big]);
  assert.match(placeholder, /too large to lay out/);
  assert.doesNotMatch(placeholder, /class="node"/);
});

test('HTML report: self-contained, the verdict, one SVG and one argument per anomaly', { skip: NO_DATA }, async () => {
  const { history } = await readHistory(YUGABYTE);
  const r = checkHistory(history, { level: 'si', pruning: true, explain: true });
  const html = await htmlReport(r, { file: 'yugabyte-causality.txt', format: 'text', notes: [] });
  assertSelfContained(html);
  assert.match(html, /<p id="verdict" class="verdict violation" data-verdict="violation">SI: VIOLATION/);
  const sections = html.split('<section class="anomaly"').length - 1;
  assert.equal(sections, r.anomalies.length);
  // One drawing per anomaly, and the legend once above them (with the edge labels explained).
  assert.equal((html.match(/<svg/g) ?? []).length, r.anomalies.length + 1);
  assert.ok(html.indexOf('id="legend"') < html.indexOf('id="anomaly-1"'));
  assert.match(html, /WW\(k\) a&lt;b: the source&#39;s write|WW\(k\) a&lt;b: the source's write/);
  assert.equal((html.match(/<pre class="explanation">/g) ?? []).length, r.anomalies.length);
});

test('CLI: --explain prints the argument; --dot, --svg and --html write files; bad --max-anomalies is a usage error', { skip: NO_DATA }, async () => {
  const dir = scratchDir('polysi-explain-');
  try {
    const io = capture();
    const files = { dot: join(dir, 'g.dot'), svg: join(dir, 'g.svg'), html: join(dir, 'g.html') };
    const code = await main(['check', GALERA, '--explain', '--dot', files.dot, '--svg', files.svg, '--html', files.html], io);
    assert.equal(code, 1);
    assert.match(io.out, /Anomaly 1 of 1: lost update/);
    assert.match(io.out, /a contradiction\./);
    assert.match(readFileSync(files.dot, 'utf8'), /^digraph/);
    assert.match(readFileSync(files.svg, 'utf8'), /^<svg/);
    assertSelfContained(readFileSync(files.html, 'utf8'));

    const json = capture();
    assert.equal(await main(['check', GALERA, '--json'], json), 1);
    const parsed = JSON.parse(json.out) as { anomalies: { class: string; description: string | null; explanation: Counterexample; text?: string }[] };
    assert.equal(parsed.anomalies[0]!.class, 'lost update');
    assert.equal(parsed.anomalies[0]!.description, null);
    assert.equal(parsed.anomalies[0]!.explanation.class, 'lost update');
    assert.equal(parsed.anomalies[0]!.text, undefined, 'text only with --explain');
    assert.doesNotMatch(json.out, /<svg/);

    const bad = capture();
    assert.equal(await main(['check', GALERA, '--max-anomalies', '0'], bad), 2);
    assert.match(bad.err, /--max-anomalies/);
    assert.ok(!existsSync(join(dir, 'nothing')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// How long this takes is measured by bench/speed.ts (budget 3 s), not asserted here.
test('Dgraph violation explained end to end, SVG included', { skip: NO_DATA }, async (t) => {
  const dir = scratchDir('polysi-dgraph-');
  try {
    const io = capture();
    const t0 = performance.now();
    const code = await main(['check', DGRAPH, '--explain', '--svg', join(dir, 'd.svg')], io);
    const ms = performance.now() - t0;
    t.diagnostic(`dgraph-causality.bincode: check + explain + SVG in ${ms.toFixed(0)} ms`);
    assert.equal(code, 1);
    assert.match(io.out, /causality violation/);
    assert.match(readFileSync(join(dir, 'd.svg'), 'utf8'), /class="node"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Edge-label boxes of a Graphviz SVG (estimated: 9 pt text, 0.55 em per character), per drawing. */
function edgeLabelBoxes(svg: string): { text: string; x0: number; x1: number; y0: number; y1: number }[] {
  const boxes: { text: string; x0: number; x1: number; y0: number; y1: number }[] = [];
  for (const edge of svg.split('class="edge"').slice(1)) {
    const body = edge.slice(0, edge.indexOf('</g>'));
    for (const m of body.matchAll(/<text[^>]*x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)<\/text>/g)) {
      const x = Number(m[1]), y = Number(m[2]), w = m[3]!.length * 9 * 0.55;
      boxes.push({ text: m[3]!, x0: x - w / 2, x1: x + w / 2, y0: y - 9, y1: y });
    }
  }
  return boxes;
}

test('the Galera lost update: no two edge labels overlap (the two writers\' parallel edges included)', { skip: NO_DATA }, async () => {
  const [cx] = await explained(GALERA);
  const boxes = edgeLabelBoxes(await dotToSvg(renderDot([cx!])));
  assert.ok(boxes.length >= cx!.edges.length, 'every edge is labelled');
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!, b = boxes[j]!;
      const overlap = a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
      assert.ok(!overlap, `labels "${a.text}" and "${b.text}" overlap`);
    }
  }
});

test('standalone SVG: the legend first, then anomaly 1, 2, ... top to bottom', { skip: NO_DATA }, async () => {
  const cxs = await explained(YUGABYTE);
  assert.ok(cxs.length >= 3);
  const svg = await renderSvg(cxs);
  // The outer SVG holds one nested SVG per drawing, at increasing heights.
  const nested = svg.split(/(?=<svg )/).slice(1);
  assert.equal(nested.length, cxs.length + 1);
  const ys = nested.map((part) => Number(/ y="([\d.]+)"/.exec(part.slice(0, part.indexOf('>')))![1]));
  assert.deepEqual([...ys].sort((a, b) => a - b), ys);
  assert.equal(new Set(ys).size, ys.length);
  assert.match(nested[0]!, /certain: follows from the history/);
  assert.match(nested[0]!, /WW\(k\) a&lt;b: the source/);
  cxs.forEach((_, i) => assert.match(nested[i + 1]!, new RegExp(`>Anomaly ${i + 1}: `), `drawing ${i + 1}`));
});
