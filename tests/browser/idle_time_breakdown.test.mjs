// Browser test of HTA's idle time breakdown: a PyTorch trace and a
// two-rank job opened in the page show HTA 0.5.0's numbers (the goldens in
// tests/data/kineto/<case>/goldens), with a chart, sorting, filter and CSV.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const FALCON_H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference/Falconsai_nsfw_image_detection__1016002.json.gz');
const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const golden = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** A number as the page writes it: separators, `places` decimals, "—" for HTA's NaN. */
const shown = (v, places) => (v === null ? '—'
  : v.toLocaleString('en-US', { minimumFractionDigits: places, maximumFractionDigits: places }));

/** The golden's rows as the table's cells, in HTA's order. */
function expectedRows(hta) {
  return hta.idle_time.map((t, i) => {
    const s = hta.idle_interval_stats[i];
    assert.deepEqual([s.rank, s.stream, s.idle_category], [t.rank, t.stream, t.idle_category]);
    return [
      String(t.rank), String(t.stream), t.idle_category, shown(t.idle_time, 0), shown(t.idle_time_ratio, 2),
      shown(s.count, 0), shown(s.mean, 2), shown(s.std, 2), shown(s.min, 2), shown(s['25%'], 2),
      shown(s['50%'], 2), shown(s['75%'], 2), shown(s.max, 2),
    ];
  });
}

const COLUMNS = ['rank', 'stream', 'category', 'idle-time', 'ratio', 'count', 'mean', 'std', 'min', 'p25', 'p50', 'p75', 'max'];

const tableRows = (page) => page.$$eval('#idle-intervals tbody tr[data-row]', (rows, cols) =>
  rows.map((r) => cols.map((c) => r.querySelector(`td[data-col="${c}"]`).textContent.trim())), COLUMNS);

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

async function inkedPixels(page, selector) {
  return page.$eval(selector, (canvas) => {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let inked = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 250 || data[i + 1] < 250 || data[i + 2] < 250) inked += 1;
    return inked;
  });
}

test('a PyTorch trace: HTA\'s idle time breakdown, chart, sorting, filter and CSV', async () => {
  const hta = golden(path.join(DATA, 'kineto/kineto-h100-hf-inference/goldens/hta_idle_time_breakdown.Falconsai_nsfw_image_detection__1016002.json'));
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=idle_time_breakdown`);
  await page.setInputFiles('#open-files', FALCON_H100);
  await page.locator('#tool-idle_time_breakdown #idle-intervals tbody tr[data-row]').first().waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#tool option[value="idle_time_breakdown"]').textContent(), 'Idle time breakdown');
  assert.equal(await page.locator('#tool-idle_time_breakdown-title').evaluate((h) => h.firstChild.textContent), 'Idle time breakdown');

  // Every row and number of HTA's golden, in its order: stream 7's host wait is 6,471 µs (ratio 1.0).
  const expected = expectedRows(hta);
  assert.deepEqual(await tableRows(page), expected);
  assert.deepEqual(expected[0].slice(0, 7), ['0', '7', 'host_wait', '6,471', '1.00', '147', '44.02']);
  assert.match(await page.locator('#tool-idle_time_breakdown .note').textContent(), /Iteration 6/);

  // The chart: one bar per stream, drawn.
  assert.equal(await page.locator('#idle-chart').getAttribute('data-bars'), '1');
  assert.ok((await inkedPixels(page, '#idle-chart')) > 1000, 'chart drawn');
  assert.deepEqual(await page.$$eval('#tool-idle_time_breakdown .legend li', (l) => l.map((x) => x.textContent.trim())),
    ['Host wait', 'Kernel wait', 'Other']);

  // Sorting by idle time: largest first, then smallest first.
  const header = page.locator('#idle-intervals th[data-col="idle-time"]');
  await header.locator('button').click();
  assert.equal(await header.getAttribute('aria-sort'), 'descending');
  assert.deepEqual((await tableRows(page)).map((r) => r[2]), ['host_wait', 'kernel_wait', 'other']);
  await header.locator('button').click();
  assert.deepEqual((await tableRows(page)).map((r) => r[2]), ['other', 'kernel_wait', 'host_wait']);

  // Filter by category.
  await page.fill('#idle-filter', 'kernel_wait');
  await page.waitForFunction(() => document.querySelectorAll('#idle-intervals tbody tr[data-row]').length === 1);
  assert.deepEqual((await tableRows(page))[0], expected[1]);
  await page.fill('#idle-filter', '');
  await page.screenshot({ path: path.join(ARTIFACTS, 'idle-time-breakdown.png'), fullPage: true });

  // CSV: the whole table, HTA's numbers.
  const { name, text } = await downloadText(page, '#export-idle');
  assert.equal(name, 'idle_time_breakdown.csv');
  const lines = text.trim().split('\n');
  assert.equal(lines[0], 'rank,stream,idle_category,idle_time_us,idle_time_ratio,count,mean_us,std_us,min_us,p25_us,p50_us,p75_us,max_us');
  assert.equal(lines.length, 1 + hta.idle_time.length);
  assert.equal(lines[1], '0,7,host_wait,6471,1,147,44.02,18.19,12,31,44,56,144');
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('two ranks of one PyTorch job: every rank\'s streams, as HTA gives them', async () => {
  const hta = golden(path.join(MULTI_RANK, 'goldens/hta_idle_time_breakdown.json'));
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=idle_time_breakdown`);
  await page.setInputFiles('#open-folder', MULTI_RANK);
  await page.locator('#tool-idle_time_breakdown #idle-intervals tbody tr[data-row]').first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  const expected = expectedRows(hta);
  assert.equal(expected.length, 23);
  assert.deepEqual(await tableRows(page), expected);
  // Five streams on each rank: ten bars.
  assert.equal(await page.locator('#idle-chart').getAttribute('data-bars'), '10');
  await page.fill('#idle-filter', 'rank 1');
  await page.waitForFunction(() => document.querySelectorAll('#idle-intervals tbody tr[data-row]').length === 11);
  assert.ok((await tableRows(page)).every((r) => r[0] === '1'));
  await page.fill('#idle-filter', '');
  await page.screenshot({ path: path.join(ARTIFACTS, 'idle-time-breakdown-ranks.png'), fullPage: true });

  // One rank alone.
  await page.selectOption('#host', 'sampled_rank-1');
  await page.waitForFunction(() => document.querySelectorAll('#idle-intervals tbody tr[data-row]').length === 11);
  assert.deepEqual(await tableRows(page), expected.filter((r) => r[0] === '1'));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
