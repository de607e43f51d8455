/**
 * The HTML report in a real browser: headless Chromium (Debian's `chromium` package, driven by
 * playwright-core; never a downloaded browser). The page must load with nothing else to fetch,
 * show the verdict, and one laid-out SVG per anomaly.
 *
 * Needs Chromium and the shared histories (test/support/requirements.ts): skips locally with one
 * line when either is missing, fails under CI (which installs the package: `apt-get install -y chromium`).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkHistory } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';
import { htmlReport } from '../../src/render/index.ts';
import { DATA_DIR, needs, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const CHROMIUM = '/usr/bin/chromium';
const DATA = DATA_DIR;
const skip = needs(existsSync(CHROMIUM), `no browser at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`) || needsData();

async function report(dir: string, rel: string, name: string): Promise<{ url: string; anomalies: number }> {
  const { history } = await readHistory(join(DATA, rel));
  const r = checkHistory(history, { level: 'si', pruning: true, explain: true });
  const path = join(dir, name);
  writeFileSync(path, await htmlReport(r, { file: rel, format: 'text', notes: [] }));
  return { url: pathToFileURL(path).href, anomalies: r.anomalies.length };
}

test('the HTML report opens in headless Chromium: verdict, one SVG per anomaly, nothing fetched', { skip, timeout: 120_000 }, async () => {
  const { chromium } = await import('playwright-core');
  const dir = scratchDir('polysi-html-');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (req) => requested.push(req.url()));

    const bad = await report(dir, 'polysi/violations/yugabyte-causality.txt', 'yugabyte.html');
    assert.ok(bad.anomalies >= 2, 'the Yugabyte history has several distinct violations');
    const response = await page.goto(bad.url);
    assert.ok(response?.ok());
    assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'violation');
    assert.match(await page.textContent('#verdict') ?? '', /^SI: VIOLATION — \d+ anomalies found$/);
    assert.equal(await page.locator('section.anomaly').count(), bad.anomalies);
    for (let i = 1; i <= bad.anomalies; i++) {
      const section = page.locator(`#anomaly-${i}`);
      assert.equal(await section.locator('svg').count(), 1, `anomaly ${i}: one SVG`);
      assert.ok(await section.locator('svg g.node').count() >= 2, `anomaly ${i}: the SVG shows its transactions`);
      const box = await section.locator('svg').boundingBox();
      assert.ok(box !== null && box.width > 50 && box.height > 50, `anomaly ${i}: the SVG is laid out and visible`);
      assert.match(await section.locator('pre.explanation').textContent() ?? '', /a contradiction\./);
    }
    assert.match(await page.locator('#anomaly-1 h2').textContent() ?? '', /^Anomaly 1: G-single-process \(session guarantee violation\)/);

    const galera = await report(dir, 'polysi/violations/galera-lost-update.txt', 'galera.html');
    await page.goto(galera.url);
    assert.equal(await page.locator('section.anomaly').count(), 1);
    assert.equal(await page.getAttribute('#anomaly-1', 'data-class'), 'lost update');

    const valid = await report(dir, 'small/write-skew.txt', 'valid.html');
    await page.goto(valid.url);
    assert.equal(await page.getAttribute('#verdict', 'data-verdict'), 'valid');
    assert.equal(await page.locator('section.anomaly').count(), 0);

    assert.deepEqual(requested.filter((u) => !u.startsWith('file:')), [], 'the report fetched something');
    assert.equal(requested.length, 3, 'one request per page: the page itself');
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
