// Browser tests of pictures (issue #19, item 3) and the charts' text
// alternatives (item 6): every chart's "Save PNG" / "Save SVG", the "Save
// CSV" of tables without an export of their own, and "Save report" — the
// tool page as one HTML file that opens from disk with no request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, sharedPage, showTool, assertOwnOrigin, DATA } from './harness.mjs';

const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');

let env;

/** The input-bound profile, opened once for the overview, its report, the op stats' pies and the trace viewer. */
const inputBound = sharedPage(async () => {
  const opened = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await opened.page.setInputFiles('#open-files', INPUT_BOUND);
  await opened.page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  return opened;
});

before(async () => {
  env = await launch();
});

after(async () => {
  await inputBound.close();
  await env?.close();
});

/** Clicks `selector` and returns the download: its suggested name and bytes. */
async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: file.suggestedFilename(), bytes: fs.readFileSync(await file.path()) };
}

/** A PNG's width and height from its IHDR chunk; fails unless the bytes are a PNG. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Parses `text` as SVG in the page: counts of its elements by name and its texts. */
function parseSvg(page, text) {
  return page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    const count = (name) => doc.getElementsByTagName(name).length;
    return {
      root: root.nodeName,
      namespace: root.namespaceURI,
      errors: count('parsererror'),
      rects: count('rect'),
      polygons: count('polygon'),
      polylines: count('polyline'),
      texts: [...doc.getElementsByTagName('text')].map((t) => t.textContent),
      width: Number(root.getAttribute('width')),
    };
  }, text);
}

/** Naive CSV split (the checked cells hold no quotes or commas inside quotes). */
const csvRows = (text) => text.trim().split('\n').map((line) => line.split(','));

/** The rows of the table `id` as the page shows them: each cell's text, spaces collapsed. */
const tableRows = (page, id) =>
  page.$$eval(`#${id} tr`, (trs) =>
    trs.map((tr) => [...tr.querySelectorAll(':scope > th, :scope > td')].map((c) => c.textContent.trim().replace(/\s+/g, ' '))));

test('overview page: a plotters chart saved as PNG and SVG, a table as CSV, its text alternative', async () => {
  const { page, seen } = await inputBound();
  await showTool(page, 'overview_page');
  await page.locator('#tool-overview_page #step-time-graph').waitFor({ timeout: 30_000 });
  const frame = '#tool-overview_page figure.chart-frame[data-chart="step-time"]';
  await page.waitForFunction(() => typeof document.querySelector('#step-time-graph')?.proflensSvg === 'string');

  // The canvas is named and points at the table with the same numbers.
  const canvas = page.locator('#step-time-graph');
  assert.equal(await canvas.getAttribute('role'), 'img');
  assert.match(await canvas.getAttribute('aria-label'), /Step-time graph/);
  assert.equal(await canvas.getAttribute('aria-describedby'), 'step-table');
  assert.equal(await page.locator('#step-table').count(), 1);

  const png = await download(page, `${frame} button.save-png`);
  assert.equal(png.name, 'proflens-overview_page-step-time.png');
  const size = pngSize(png.bytes);
  const shown = await canvas.evaluate((c) => ({ width: c.width, height: c.height }));
  assert.deepEqual(size, shown, 'the PNG is the canvas at its pixel size');
  assert.ok(png.bytes.length > 2000, `a drawn chart, not a blank one (${png.bytes.length} bytes)`);

  const svg = await download(page, `${frame} button.save-svg`);
  assert.equal(svg.name, 'proflens-overview_page-step-time.svg');
  const parsed = await parseSvg(page, svg.bytes.toString('utf8'));
  assert.equal(parsed.errors, 0, 'the SVG parses');
  assert.equal(parsed.root, 'svg');
  assert.equal(parsed.namespace, 'http://www.w3.org/2000/svg');
  assert.equal(parsed.width, shown.width);
  assert.ok(parsed.texts.includes('Step time (ms)'), 'the axis description is SVG text');
  // One bar segment at least per step, plus the background. The folded
  // step table draws its rows when opened.
  assert.equal(await page.locator('#step-table tbody tr').count(), 0, 'a folded step table has no rows yet');
  await page.locator('#tool-overview_page details.step-table > summary').click();
  await page.locator('#step-table tbody tr').first().waitFor();
  const steps = await page.locator('#step-table tbody tr').count();
  assert.ok(steps > 0);
  assert.ok(parsed.rects > steps, `${parsed.rects} rects for ${steps} steps`);
  const firstStep = await page.locator('#step-table tbody tr th').first().textContent();
  assert.ok(parsed.texts.includes(firstStep.trim()), 'step labels are on the axis');

  // The step breakdown has no export of its own: "Save CSV" writes its rows as shown.
  const csv = await download(page, 'button.save-csv[data-table="step-breakdown"]');
  assert.equal(csv.name, 'proflens-overview_page-step-breakdown.csv');
  const expected = await tableRows(page, 'step-breakdown');
  assert.ok(expected.length > 2);
  assert.deepEqual(csvRows(csv.bytes.toString('utf8')), expected);

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('framework op stats: each pie saved as PNG and SVG, with a collapsed data table of its slices', async () => {
  const { page, seen } = await inputBound();
  await showTool(page, 'framework_op_stats');
  await page.locator('#tool-framework_op_stats canvas.pie-chart').first().waitFor({ timeout: 30_000 });
  const frames = page.locator('#tool-framework_op_stats figure.chart-frame');
  const count = await frames.count();
  assert.ok(count >= 1, 'the pies are framed');
  const name = await frames.first().getAttribute('data-chart');
  const frame = `#tool-framework_op_stats figure.chart-frame[data-chart="${name}"]`;

  // The data table: collapsed, one row per legend item, named by the canvas.
  const details = page.locator(`${frame} details.chart-data`);
  assert.equal(await details.evaluate((d) => d.open), false);
  const legend = await page.locator(`${frame} .legend li`).count();
  assert.equal(await page.locator(`${frame} details.chart-data tbody tr`).count(), legend);
  assert.equal(await page.locator(`${frame} canvas`).getAttribute('aria-describedby'), `chart-data-${name}`);
  await details.locator('summary').click();
  assert.equal(await details.evaluate((d) => d.open), true);

  const png = await download(page, `${frame} button.save-png`);
  assert.equal(png.name, `proflens-framework_op_stats-${name}.png`);
  const size = pngSize(png.bytes);
  assert.ok(size.width > 50 && size.height > 50, JSON.stringify(size));
  const svg = await download(page, `${frame} button.save-svg`);
  const parsed = await parseSvg(page, svg.bytes.toString('utf8'));
  assert.equal(parsed.errors, 0);
  assert.ok(parsed.polygons >= 1, 'slices are polygons');
  assert.ok(parsed.polygons <= legend, `${parsed.polygons} slices for ${legend} legend items`);

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('queue length: an SVG chart saved as SVG (standalone) and as PNG through a canvas', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=queue_length`);
  await page.setInputFiles('#open-folder', MULTI_RANK);
  await page.locator('#tool-queue_length #queue-chart-0 svg').waitFor({ timeout: 60_000 });
  const frame = '#queue-chart-0 figure.chart-frame';
  const lines = await page.locator('#queue-chart-0 svg polyline').count();
  assert.ok(lines > 0);

  const svg = await download(page, `${frame} button.save-svg`);
  assert.equal(svg.name, 'proflens-queue_length-queue-chart-0.svg');
  const text = svg.bytes.toString('utf8');
  const parsed = await parseSvg(page, text);
  assert.equal(parsed.errors, 0);
  assert.equal(parsed.namespace, 'http://www.w3.org/2000/svg');
  assert.equal(parsed.polylines, lines, 'every series is in the file');
  assert.ok(parsed.width > 100);
  // Colours are written in, so the file needs no stylesheet.
  assert.match(text, /style="[^"]*stroke:\s*rgb\(/);

  const png = await download(page, `${frame} button.save-png`);
  assert.equal(png.name, 'proflens-queue_length-queue-chart-0.png');
  const size = pngSize(png.bytes);
  assert.ok(size.width >= parsed.width, `${size.width} px wide`);
  assert.ok(png.bytes.length > 2000, `${png.bytes.length} bytes`);

  // The data table lists the points, series by series.
  const rows = await page.locator(`${frame} details.chart-data tbody tr`).count();
  const points = await page.$$eval('#queue-chart-0 svg polyline', (ls) =>
    ls.reduce((n, l) => n + l.getAttribute('points').split(' ').length, 0));
  assert.ok(rows > 0 && rows <= Math.min(points, 500), `${rows} rows`);

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('save report: the overview page as one HTML file that opens from disk with no request', async () => {
  const { page, seen } = await inputBound();
  await showTool(page, 'overview_page');
  await page.locator('#tool-overview_page #step-time-graph').waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => typeof document.querySelector('#step-time-graph')?.proflensSvg === 'string');
  const host = await page.locator('#tool-overview_page h2 .subtitle').textContent();
  const title = (await page.locator('#tool-overview_page h2').textContent()).trim();
  const canvases = await page.locator('#tool-overview_page canvas').count();
  assert.ok(canvases >= 1);
  const topOps = await tableRows(page, 'top-ops');

  const report = await download(page, '#tool-overview_page button.save-report');
  assert.match(report.name, /^proflens-overview_page-[A-Za-z0-9._-]+\.html$/);
  const html = report.bytes.toString('utf8');
  assert.ok(!/<script/i.test(html), 'no scripts');
  assert.ok(!/<button/i.test(html), 'no buttons');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-report-')), report.name);
  fs.writeFileSync(file, html);

  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const opened = await context.newPage();
  const errors = [];
  opened.on('pageerror', (e) => errors.push(String(e)));
  const url = pathToFileURL(file).href;
  await opened.goto(url);
  await opened.waitForFunction(() => [...document.images].every((i) => i.complete));
  assert.deepEqual(requests.filter((r) => r !== url && !r.startsWith('data:')), [], 'no request but the file');
  assert.deepEqual(errors, []);

  assert.equal((await opened.locator('#tool-overview_page h2').textContent()).trim(), title);
  const header = await opened.locator('.report-header').textContent();
  assert.ok(header.includes(report.name));
  assert.ok(header.includes(host.split(' · ')[1].trim()), 'the host is in the header');
  assert.deepEqual(await tableRows(opened, 'top-ops'), topOps, 'the tables keep their rows');
  // A picture for every canvas, decoded.
  const images = await opened.$$eval('#tool-overview_page img', (imgs) =>
    imgs.map((i) => ({ src: i.src.slice(0, 22), width: i.naturalWidth, alt: i.alt })));
  assert.equal(images.length, canvases);
  for (const image of images) {
    assert.equal(image.src, 'data:image/png;base64,');
    assert.ok(image.width > 0, 'the picture decodes');
    assert.ok(image.alt.length > 0, 'the picture keeps the chart’s name');
  }
  assert.equal(await opened.locator('canvas, button, input, select').count(), 0);
  // The page's styles came along: headings are laid out as on the page.
  assert.equal(await opened.$eval('.tool h2 .subtitle', (e) => getComputedStyle(e).fontWeight), '400');
  await context.close();

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('trace viewer: "Save PNG" writes the timeline as it is on screen', async () => {
  const { page, seen } = await inputBound();
  await showTool(page, 'trace_viewer');
  await page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, { timeout: 20_000 });
  const png = await download(page, '#trace-save-png');
  assert.equal(png.name, 'proflens-trace_viewer-view.png');
  const shown = await page.$eval('#trace-canvas', (c) => ({ width: c.width, height: c.height }));
  assert.deepEqual(pngSize(png.bytes), shown);
  assert.ok(png.bytes.length > 5000, `${png.bytes.length} bytes`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});
