// The run's timeline (src/render/timeline.ts) and its place in the HTML report: one lane per
// session, bars merged within a pixel so a large history stays small, a band per fault (an
// unhealed one to the right edge), the counterexample's txns outlined; no times, no timeline.
// In headless Chromium: the section is laid out and visible with its bands and marked txns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, type History } from '../../src/history/model.ts';
import { renderTimelineSvg } from '../../src/render/timeline.ts';
import { htmlReport } from '../../src/render/html.ts';
import { checkHistory } from '../../src/check/index.ts';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

/**
 * A lost update (T1 and T2 both read x=init and write it) between two sessions, in the middle of
 * a run of `filler` txns per session, with a kill fault over the lost update and an unhealed pause.
 */
function lostUpdateRun(filler: number, withTimes = true): History {
  const b = new HistoryBuilder('<run>');
  let v = 100;
  for (const s of ['0', '1']) {
    const sid = b.session(s);
    for (let i = 0; i < filler; i++) {
      const t = b.beginTxn(sid, `${s}.${i}`);
      b.write(t, `k${s}`, v++);
      if (withTimes) b.setTimes(t, i * 10, i * 10 + 8);
    }
    const t = b.beginTxn(sid, `${s}.lost`);
    b.read(t, 'x', null);
    b.write(t, 'x', s === '0' ? 1 : 2);
    if (withTimes) b.setTimes(t, filler * 10 + 1, filler * 10 + 20);
    const a = b.beginTxn(sid, `${s}.aborted`, TXN_ABORTED);
    b.write(a, `k${s}`, v++);
    if (withTimes) b.setTimes(a, filler * 10 + 25, filler * 10 + 30);
  }
  if (withTimes) {
    b.fault('kill', 'n1', filler * 10, filler * 10 + 22);
    b.fault('pause', 'n2', filler * 10 + 26, NaN);
  }
  return b.build();
}

const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;

/**
 * What a user would find wrong in a run with faults (issue 24's leftovers): a session that
 * moves from n1 to n2 after a partition, two faults 1 ms apart near the right edge (their
 * labels must not overlap or leave the drawing), a highlighted txn that ends last (its label
 * must stay inside), an Elle-style txn whose end was never recorded (NaN), and a session with
 * no times at all.
 */
function faultyRun(): { h: History; last: number; first: number } {
  const b = new HistoryBuilder('<run>');
  const n1 = b.node('n1'), n2 = b.node('n2');
  let v = 1;
  let last = -1, first = -1;
  for (const s of ['0', '1', '2']) {
    const sid = b.session(s);
    for (let i = 0; i < 40; i++) {
      const t = b.beginTxn(sid, `${s}.${i}`);
      b.write(t, `k${s}`, v++);
      b.setTimes(t, i * 25, i * 25 + 20);
      b.setNode(t, s === '0' && i >= 20 ? n2 : s === '1' ? n2 : n1);
      if (s === '2' && i === 39) last = t;
      if (s === '0' && i === 0) first = t;
    }
  }
  const lost = b.beginTxn(b.session('3'), '3.0', 2);
  b.write(lost, 'k3', v++);
  b.setTimes(lost, 500, NaN);
  b.beginTxn(b.session('4'), '4.0'); // no times
  b.fault('partition', 'n1', 480, 520);
  b.fault('stall', 'n2', 960, 985);
  b.fault('kill', 'n1', 986, 990);
  return { h: b.build(), last, first };
}

test('timeline: a move to another node is marked, labels carry anomaly numbers, nothing is NaN, the unit follows the history', () => {
  const { h, last, first } = faultyRun();
  const svg = renderTimelineSvg(h, new Map([[last, [2]], [first, [1, 2]]]))!;
  assert.doesNotMatch(svg, /NaN/, 'an end never recorded poisons no coordinate');
  assert.equal(count(svg, /<g class="move" data-node="n2"/g), 1, 'session 0 moved to n2 once');
  assert.match(svg, /session 0 moved from n1 to n2 at 500 ms \(0\.20\)/);
  assert.match(svg, />0\.0 on n1 \(#1, #2\)</);
  assert.match(svg, />2\.39 on n1 \(#2\)</);
  assert.match(svg, />0 \(n1\)</, 'a lane names the node its session started on');
  assert.match(svg, /no transaction with times in this session/);
  assert.equal(count(svg, /<g class="fault"/g), 3);
  assert.match(svg, /<g class="legend">.*stall \(fault\)/);
  assert.match(svg, />500 ms</);
  // Elle's nanoseconds: the same history read as ns spans 1 µs.
  assert.match(renderTimelineSvg(h, new Set(), { unitMs: 1e-6 })!, />500 ns</);
});

test('timeline: lanes, merged bars, fault bands, highlighted txns', () => {
  const h = lostUpdateRun(5000);
  const lost = [h.sessionTxnStart[1]! - 2, h.sessionTxnStart[2]! - 2];
  const svg = renderTimelineSvg(h, new Set(lost))!;
  assert.ok(svg.startsWith('<svg'));
  assert.equal(count(svg, /<g class="fault"/g), 2);
  assert.match(svg, /data-kind="kill" data-node="n1"/);
  assert.match(svg, /pause n2: [0-9.]+ → … ms \(never healed\)/);
  assert.equal(count(svg, /<g class="txn highlight"/g), 2);
  assert.match(svg, /data-txn="0\.lost"/);
  assert.match(svg, /data-txn="1\.lost"/);
  // 10,004 txns, but back-to-back committed bars within a pixel are one rect per lane and outcome run.
  const bars = count(svg, /<rect class="txn /g);
  assert.ok(bars >= 4 && bars <= 20, `${bars} bars`);
  assert.equal(count(svg, /<rect class="txn aborted"/g), 2);
});

test('timeline: none without times; the HTML report has it only with a History that has times', async () => {
  assert.equal(renderTimelineSvg(lostUpdateRun(3, false), new Set()), null);
  const h = lostUpdateRun(3);
  const r = checkHistory(h, { level: 'si', pruning: true, explain: true });
  assert.equal(r.verdict, 'violation');
  const src = { file: 'run.jsonl', format: 'jsonl', notes: [] };
  const withTimeline = await htmlReport(r, src, h);
  assert.match(withTimeline, /<section class="timeline" id="timeline">/);
  // The counterexample's two writers are the ones outlined.
  assert.match(withTimeline, /data-txn="0\.lost"/);
  assert.match(withTimeline, /data-txn="1\.lost"/);
  assert.doesNotMatch(await htmlReport(r, src), /id="timeline"/);
  assert.doesNotMatch(await htmlReport(r, src, lostUpdateRun(3, false)), /id="timeline"/);
});

const CHROMIUM = '/usr/bin/chromium';

test('timeline in headless Chromium: laid out, bands and marked txns visible', {
  skip: needs(existsSync(CHROMIUM), `no browser at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`), timeout: 120_000,
}, async () => {
  const h = lostUpdateRun(200);
  const r = checkHistory(h, { level: 'si', pruning: true, explain: true });
  const dir = scratchDir('polysi-timeline-');
  const path = join(dir, 'report.html');
  writeFileSync(path, await htmlReport(r, { file: 'run.jsonl', format: 'jsonl', notes: [] }, h));
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(path).href);
    const svg = page.locator('#timeline svg');
    const box = await svg.boundingBox();
    assert.ok(box !== null && box.width > 500 && box.height > 40, `timeline laid out: ${JSON.stringify(box)}`);
    assert.equal(await page.locator('#timeline g.fault').count(), 2);
    for (const g of await page.locator('#timeline g.fault rect').all()) {
      const b = await g.boundingBox();
      assert.ok(b !== null && b.width >= 2 && b.height > 20, 'a fault band spans the lanes');
    }
    const marked = page.locator('#timeline g.txn.highlight rect');
    assert.equal(await marked.count(), 2);
    for (const m of await marked.all()) {
      const b = await m.boundingBox();
      assert.ok(b !== null && b.width >= 3 && b.x >= box!.x && b.x + b.width <= box!.x + box!.width + 1, 'a marked txn is inside the plot');
    }
    // The timeline comes before the anomalies.
    const order = await page.evaluate(() => [...document.querySelectorAll('section')].map((s) => s.id));
    assert.ok(order.indexOf('timeline') < order.indexOf('anomaly-1'), order.join(','));
  } finally {
    await browser.close();
  }
});

test('timeline in headless Chromium: no label leaves the drawing or overlaps another', {
  skip: needs(existsSync(CHROMIUM), `no browser at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`), timeout: 120_000,
}, async () => {
  const { h, last, first } = faultyRun();
  const dir = scratchDir('polysi-timeline-');
  const path = join(dir, 'timeline.html');
  writeFileSync(path, `<!DOCTYPE html><html><body>${renderTimelineSvg(h, new Map([[last, [1]], [first, [1]]]))}</body></html>`);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 600 } });
    await page.goto(pathToFileURL(path).href);
    // A string, not a function: tsx's helpers (__name) do not exist in the page.
    type Box = { x: number; y: number; w: number; h: number; text: string };
    const { svg, labels } = await page.evaluate(`(() => {
      function box(e) { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height, text: e.textContent }; }
      return { svg: box(document.querySelector('svg')),
        labels: [...document.querySelectorAll('svg g.fault text, svg g.txn.highlight text, svg g.move text')].map(box) };
    })()`) as { svg: Box; labels: Box[] };
    assert.ok(labels.length >= 5, `fault and txn labels drawn: ${labels.map((l) => l.text).join(', ')}`);
    for (const l of labels) assert.ok(l.x >= svg.x && l.x + l.w <= svg.x + svg.w + 0.5, `"${l.text}" inside the drawing`);
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i]!, b = labels[j]!;
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        assert.ok(!overlap, `"${a.text}" and "${b.text}" overlap`);
      }
    }
  } finally {
    await browser.close();
  }
});
