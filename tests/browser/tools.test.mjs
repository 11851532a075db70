// Browser tests of the analysis tools (Overview, Input pipeline analyzer,
// Framework op stats) on real profiles, checked against XProf 2.24's outputs
// for the same profiles (tests/data/goldens).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, sharedPage, showTool, assertOwnOrigin, DIST, DATA, ARTIFACTS } from './harness.mjs';

const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
const AMD_GPU = path.join(DATA, 'xspace/external/tw003.xplane.pb');
const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await inputBound.close();
  await amdGpu.close();
  await env?.close();
});

function golden(caseName, tool) {
  return JSON.parse(fs.readFileSync(path.join(DATA, 'goldens', caseName, `${tool}.json`), 'utf8'));
}

/** Opens `file` on a fresh page at `hash` (by default, one that asks for `tool`) and waits for the tool `tool` to show. */
async function openProfile(file, tool = 'overview_page', hash = `#tool=${tool}`) {
  const opened = await openPage(env.browser, `${env.server.url}/${hash}`);
  await opened.page.setInputFiles('#open-files', file);
  await opened.page.locator(`#tool-${tool}`).waitFor({ timeout: 30_000 });
  return opened;
}

/** The input-bound profile on its overview, opened once for the overview's test and the input pipeline's. */
const inputBound = sharedPage(() => openProfile(INPUT_BOUND));
/** The AMD GPU profile on its overview, opened once for its test and the tool selector's. */
const amdGpu = sharedPage(() => openProfile(AMD_GPU));

/** How many pixels of a canvas have exactly the colour `rgb` ([r, g, b]), and how many are not background. */
async function canvasPixels(page, selector, rgb = [0, 0, 0]) {
  return page.$eval(selector, (canvas, rgb) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let inked = 0;
    let matching = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 0 && (data[i] < 245 || data[i + 1] < 245 || data[i + 2] < 245)) inked++;
      if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) matching++;
    }
    return { inked, matching, total: data.length / 4 };
  }, rgb);
}

/** The legend's colour for a category, as [r, g, b]. */
async function legendColor(page, label) {
  const css = await page.locator('.step-graph .legend li', { hasText: label }).locator('.swatch')
    .evaluate((e) => getComputedStyle(e).backgroundColor);
  return css.match(/\d+/g).slice(0, 3).map(Number);
}

/** The text of one column of a sortable table, row by row. */
function column(page, table, col) {
  return page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));
}

function numbers(page, table, col) {
  return page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => Number(c.dataset.value)));
}

function isSorted(values, compare) {
  return values.every((v, i) => i === 0 || compare(values[i - 1], v) <= 0);
}

const byText = (a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

test('overview: verdict, step-time graph with hover card, top ops, run environment', async () => {
  const { page, seen } = await inputBound();
  await showTool(page, 'overview_page');
  assert.match(await page.locator('#tool').inputValue(), /^overview_page$/);
  assert.match(await page.evaluate(() => location.hash), /tool=overview_page/);

  assert.match(await page.locator('#verdict').textContent(), /HIGHLY input-bound/);
  // XProf's average step time for this profile, one decimal as XProf prints it.
  const xprofSteps = golden('input_bound', 'overview_page')[1].p;
  assert.equal(await page.locator('#avg-step-time').textContent(), `${xprofSteps.steptime_ms_average} ms`);
  const sd = parseFloat(await page.locator('#step-time-stats .sd').textContent());
  assert.ok(Math.abs(sd - Number(xprofSteps.steptime_ms_standard_deviation)) <= 0.05, `standard deviation ${sd}`);
  assert.match(await page.locator('#step-breakdown tr[data-category="input"] .avg').textContent(), /^102\.0 ms$/);
  assert.equal(await page.locator('#precision').count(), 0, 'no device, no precision');

  // The chart is drawn: the input colour covers much more of it than host compute, which is there too.
  const canvas = page.locator('#step-time-graph[data-bars]');
  await canvas.waitFor();
  assert.equal(await canvas.getAttribute('data-bars'), '10');
  const input = await canvasPixels(page, '#step-time-graph', await legendColor(page, 'Input'));
  const host = await canvasPixels(page, '#step-time-graph', await legendColor(page, 'Host compute'));
  assert.ok(input.inked > input.total * 0.1, `inked ${input.inked} of ${input.total}`);
  assert.ok(input.matching > 5 * host.matching && host.matching > 0, `input ${input.matching}, host compute ${host.matching}`);
  const legend = await page.$$eval('.step-graph .legend li', (items) => items.map((i) => i.textContent.trim()));
  assert.deepEqual(legend, ['Host compute', 'Input', 'All others']);

  // Hovering the third bar's slot shows that step's numbers.
  const box = await canvas.boundingBox();
  const left = Number(await canvas.getAttribute('data-plot-left'));
  const right = Number(await canvas.getAttribute('data-plot-right'));
  await page.mouse.move(box.x + left + ((right - left) * 2.5) / 10, box.y + box.height / 2);
  const card = page.locator('#step-tooltip');
  await card.waitFor();
  assert.equal(await card.locator('.step-name').textContent(), 'train 3');
  assert.match(await card.textContent(), /Input\s*[\d.]+ ms/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'overview-hover.png') });
  await page.mouse.move(box.x + left + ((right - left) * 8.5) / 10, box.y + box.height / 2);
  await page.locator('#step-tooltip .step-name', { hasText: 'train 9' }).waitFor();
  await page.mouse.move(0, 0);
  await card.waitFor({ state: 'detached' });

  // Top ops: host ops, as no device was profiled.
  assert.match(await page.locator('#top-ops-note').textContent(), /No device was profiled/);
  assert.equal(await page.locator('#top-ops tbody tr').count(), 10);
  assert.equal((await page.locator('#top-ops tbody tr .operation').first().textContent()), 'Iterator::Root::Prefetch::MapAndBatch::ParallelMapV2');
  assert.equal(await page.locator('#env-device-type').textContent(), 'CPU');
  assert.match(await page.locator('#env-hosts').textContent(), /1 \(vm\)/);
  // The overview's advice points to the Advisor, which has the fix.
  assert.match(await page.locator('#recommendation #advice').textContent(), /the Advisor shows the evidence and the fix/);
  assert.equal(await page.locator('#diagnostics').count(), 0);

  await page.screenshot({ path: path.join(ARTIFACTS, 'overview.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('input pipeline analyzer: verdict, statistics, sortable input-op table and its CSV', async () => {
  const { page, seen } = await inputBound();
  await page.selectOption('#tool', 'input_pipeline_analyzer');
  await page.locator('#tool-input_pipeline_analyzer').waitFor({ timeout: 30_000 });
  assert.match(await page.evaluate(() => location.hash), /tool=input_pipeline_analyzer/);
  assert.match(await page.locator('#verdict').textContent(), /HIGHLY input-bound because 92\.6%/);
  assert.ok((await canvasPixels(page, '#step-time-graph')).inked > 1000, 'step-time graph drawn');
  assert.match(await page.locator('#input-percent-stats .average').textContent(), /^\d+\.\d%$/);
  assert.ok((await canvasPixels(page, '#input-percent-graph')).inked > 500, 'input-share graph drawn');
  // The per-step shares are in the step table too, each over 80% here; its
  // rows are drawn when it is opened, all ten (no "Show all" below 200).
  await page.locator('#tool-input_pipeline_analyzer details.step-table > summary').click();
  await page.locator('#step-table td.input-share').first().waitFor();
  assert.equal(await page.locator('#step-table-all').count(), 0);
  const shares = await page.$$eval('#step-table td.input-share', (cells) => cells.map((c) => parseFloat(c.textContent)));
  assert.equal(shares.length, 10);
  assert.ok(shares.every((p) => p > 80 && p <= 100), shares.join(','));
  assert.match(await page.locator('#input-time tr[data-kind="preprocessing"]').textContent(), /3,787\.7 ms/);

  // The table as XProf has it: same ops, same order, same categories.
  const xprof = golden('input_bound', 'input_pipeline_analyzer')[2].rows.map((r) => r.c.map((c) => c.v));
  const names = await column(page, 'input-ops', 'name');
  assert.deepEqual(names, xprof.map((r) => r[0]));
  assert.equal(names[0], 'Iterator::Root::Prefetch::MapAndBatch::ParallelMapV2');
  assert.equal((await column(page, 'input-ops', 'category'))[0], 'Preprocessing');

  // Sort by count: largest first, then smallest first.
  const countHeader = page.locator('#input-ops th[data-col="count"]');
  await countHeader.locator('button').click();
  assert.equal(await countHeader.getAttribute('aria-sort'), 'descending');
  const down = await numbers(page, 'input-ops', 'count');
  assert.ok(isSorted(down, (a, b) => b - a), down.join(','));
  assert.notEqual((await column(page, 'input-ops', 'name'))[0], names[0], 'the order changed');
  await countHeader.locator('button').click();
  assert.equal(await countHeader.getAttribute('aria-sort'), 'ascending');
  const up = await numbers(page, 'input-ops', 'count');
  assert.ok(isSorted(up, (a, b) => a - b), up.join(','));
  assert.deepEqual([...up].sort((a, b) => a - b), up);
  // By name: alphabetical.
  await page.locator('#input-ops th[data-col="name"] button').click();
  assert.ok(isSorted(await column(page, 'input-ops', 'name'), byText));
  assert.equal(await countHeader.getAttribute('aria-sort'), 'none');

  // CSV export: a real download of the whole table.
  const { name, text } = await downloadText(page, '#export-input-ops');
  assert.equal(name, 'input_ops.csv');
  const lines = text.trim().split('\n');
  assert.equal(lines[0], 'input_op,count,total_ms,total_fraction,self_ms,self_fraction,category');
  assert.equal(lines.length, xprof.length + 1);
  assert.match(lines[1], /^Iterator::Root::Prefetch::MapAndBatch::ParallelMapV2,384,1329\.48\d*,0\.35\d*,1329\.48\d*,0\.35\d*,Preprocessing$/);

  await page.screenshot({ path: path.join(ARTIFACTS, 'input-pipeline.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('framework op stats: pies, IDLE toggle, filter, sort and CSV', async () => {
  // Opened straight on the tool through the URL hash.
  const { page, seen, close } = await openProfile(INPUT_BOUND, 'framework_op_stats', '#tool=framework_op_stats');
  const [withIdle, withoutIdle] = golden('input_bound', 'framework_op_stats').map((t) => t.rows.map((r) => r.c.map((c) => c.v)));
  await page.locator('#op-stats tbody tr[data-row]').first().waitFor();

  // Host pies only: this profile has no device.
  for (const id of ['pie-host-op', 'pie-host-type']) {
    assert.ok((await canvasPixels(page, `#${id}`)).inked > 1000, `${id} drawn`);
  }
  assert.equal(await page.locator('#pie-device-op, #pie-device-type').count(), 0);

  // IDLE is included at first, as in XProf; the toggle takes it out and back.
  const idleRows = () => page.locator('#op-stats td[data-col="operation"]', { hasText: /^IDLE$/ }).count();
  assert.ok(await page.locator('#include-idle').isChecked());
  assert.equal(await idleRows(), 1);
  assert.equal(await page.locator('#op-stats tbody tr[data-row]').count(), withIdle.length);
  assert.deepEqual(await column(page, 'op-stats', 'operation'), withIdle.map((r) => r[3]));
  await page.locator('#include-idle').uncheck();
  await page.waitForFunction(() => ![...document.querySelectorAll('#op-stats td[data-col="operation"]')].some((c) => c.textContent === 'IDLE'));
  assert.equal(await page.locator('#op-stats tbody tr[data-row]').count(), withoutIdle.length);
  assert.ok(!(await page.locator('#pie-host-type + ul').textContent()).includes('IDLE'));

  // CSV of what is shown (without IDLE).
  const { name, text } = await downloadText(page, '#export-op-stats');
  assert.equal(name, 'framework_op_stats.csv');
  const lines = text.split('\r\n').filter((l) => l);
  assert.match(lines[0], /^Rank,Host\/device,Operation Type,Operation Name,#Occurrences/);
  assert.equal(lines.length, withoutIdle.length + 1);
  assert.ok(!lines.some((l) => l.includes(',IDLE,')), 'no IDLE row in the CSV');

  await page.locator('#include-idle').check();
  await page.locator('#op-stats td[data-col="operation"]', { hasText: /^IDLE$/ }).waitFor();
  assert.equal(await idleRows(), 1);

  // Filter: every row left matches.
  await page.fill('#op-filter', 'Iterator');
  await page.waitForFunction(() => document.querySelectorAll('#op-stats tbody tr[data-row]').length < 20);
  const filtered = await page.$$eval('#op-stats tbody tr[data-row]', (rows) =>
    rows.map((r) => `${r.querySelector('[data-col="operation"]').textContent} ${r.querySelector('[data-col="type"]').textContent}`));
  assert.ok(filtered.length > 0);
  assert.ok(filtered.every((t) => t.toLowerCase().includes('iterator')), filtered.join('\n'));
  assert.match(await page.locator('#op-stats caption .row-count').textContent(), new RegExp(`^${filtered.length} of ${withIdle.length} rows$`));

  // Sort the filtered rows by average self time, largest first.
  await page.locator('#op-stats th[data-col="avg-self-time"] button').click();
  const avg = await numbers(page, 'op-stats', 'avg-self-time');
  assert.equal(avg.length, filtered.length);
  assert.ok(isSorted(avg, (a, b) => b - a), avg.join(','));
  await page.fill('#op-filter', 'no such op at all');
  await page.locator('#op-stats .empty-row').waitFor();
  await page.fill('#op-filter', '');
  await page.waitForFunction((n) => document.querySelectorAll('#op-stats tbody tr[data-row]').length === n, withIdle.length);

  await page.screenshot({ path: path.join(ARTIFACTS, 'framework-op-stats.png') });

  // Editing the hash switches the tool.
  await page.evaluate(() => { location.hash = location.hash.replace('tool=framework_op_stats', 'tool=overview_page'); });
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#tool').inputValue(), 'overview_page');

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a GPU profile without steps: no graph, the warning, the device described', async () => {
  const { page, seen } = await amdGpu();
  await showTool(page, 'overview_page');
  assert.match(await page.locator('#no-steps').textContent(), /No steps were found/);
  assert.equal(await page.locator('#step-time-graph').count(), 0);
  assert.match(await page.locator('#diagnostics').textContent(), /No step marker observed/);
  assert.match(await page.locator('#env-device-type').textContent(), /^AMD GPU/);
  assert.match(await page.locator('#env-cores').textContent(), /^\d+/);
  assert.match(await page.locator('#env-compute-capability').textContent(), /^\d+\.\d+$/);
  assert.equal(await page.locator('#precision').count(), 1);
  assert.match(await page.locator('#verdict').textContent(), /No step time measured/);
  await page.selectOption('#tool', 'input_pipeline_analyzer');
  await page.locator('#tool-input_pipeline_analyzer #no-steps').waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'no-steps.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('an NVIDIA GPU profile: the device described, a long op table shown a page at a time', async () => {
  const { page, seen, close } = await openProfile(NVIDIA_GPU);
  assert.equal(await page.locator('#env-cores').textContent(), '80');
  assert.equal(await page.locator('#env-compute-capability').textContent(), '7.0');
  assert.match(await page.locator('#precision-16').textContent(), /^\d+\.\d%$/);
  assert.equal(await page.locator('#top-ops-note').count(), 0, 'device ops, not host ops');

  await page.selectOption('#tool', 'framework_op_stats');
  await page.locator('#op-stats tbody tr[data-row]').first().waitFor({ timeout: 30_000 });
  const total = golden('tf-gpu-multiworker-bert-xplane', 'framework_op_stats.34.83.195.179_6003')[0].rows.length;
  assert.match(await page.locator('#op-stats caption .row-count').textContent(), new RegExp(`^${total} rows$`));
  assert.equal(await page.locator('#op-stats tbody tr[data-row]').count(), 100);
  const pager = page.locator('#op-stats-wrap .pager');
  assert.equal(await pager.locator('.range').textContent(), `Rows 1–100 of ${total}`);
  assert.ok(await pager.locator('.prev').isDisabled());
  await pager.locator('.next').click();
  await pager.locator('.range', { hasText: `Rows 101–200 of ${total}` }).waitFor();
  assert.equal((await column(page, 'op-stats', 'rank'))[0], '101');
  // A new order starts again on the first page.
  await page.locator('#op-stats th[data-col="occurrences"] button').click();
  await pager.locator('.range', { hasText: `Rows 1–100 of ${total}` }).waitFor();
  assert.ok(isSorted(await numbers(page, 'op-stats', 'occurrences'), (a, b) => b - a));
  assert.ok((await canvasPixels(page, '#pie-device-type')).inked > 1000, 'device pie drawn');
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('the single-file build draws the overview from disk', async () => {
  const url = pathToFileURL(path.join(DIST, 'proflens.html')).href;
  const { page, seen, close } = await openPage(env.browser, url);
  await page.click('#open-demo');
  // The demo opens on the Advisor; the overview is asked for.
  await page.locator('#tool-advisor').waitFor({ timeout: 60_000 });
  await page.selectOption('#tool', 'overview_page');
  await page.locator('#tool-overview_page #step-time-graph[data-bars]').waitFor({ timeout: 30_000 });
  assert.ok((await canvasPixels(page, '#step-time-graph')).inked > 1000);
  assert.ok((await page.locator('#verdict').textContent()).length > 20);
  const foreign = seen.requests.filter((u) => !(u.startsWith('file://') || u.startsWith('blob:') || u.startsWith('data:')));
  assert.deepEqual(foreign, []);
  assert.deepEqual(seen.csp, []);
  assert.deepEqual(seen.errors, []);
  await page.screenshot({ path: path.join(ARTIFACTS, 'single-file-overview.png'), fullPage: true });
  await close();
});

test('a run of two hosts opens as all hosts together, and the host selector narrows it', async () => {
  // The two workers of tf-gpu-multiworker-bert-xplane (identical files), as a logdir.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-two-hosts-'));
  const run = path.join(dir, 'plugins/profile/2020_06_09_12_00_00');
  fs.mkdirSync(run, { recursive: true });
  for (const host of ['34.83.195.179_6003', '34.83.195.180_6003']) {
    fs.copyFileSync(NVIDIA_GPU, path.join(run, `${host}.xplane.pb`));
  }
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-folder', dir);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  const hosts = await page.$$eval('#host option', (o) => o.map((x) => x.textContent.trim()));
  assert.deepEqual(hosts, ['All hosts', '34.83.195.179_6003', '34.83.195.180_6003']);
  // XProf's ALL_HOSTS overview counts the devices of both hosts: 16 GPUs.
  await page.locator('#env-device-count').filter({ hasText: '16' }).waitFor({ timeout: 30_000 });
  await page.selectOption('#host', '34.83.195.180_6003');
  await page.locator('#env-device-count').filter({ hasText: '8' }).waitFor({ timeout: 30_000 });
  assertOwnOrigin(seen, env.server.url);
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("the tool selector lists XProf's tools that are not built, disabled, with the reason", async () => {
  const { page, seen } = await amdGpu();
  const missing = await page.$$eval('#tool optgroup[label="XProf tools not built"] option', (options) =>
    options.map((o) => ({ value: o.value, disabled: o.disabled, title: o.title })));
  assert.deepEqual(
    missing.map((o) => o.value),
    ['perf_counters', 'utilization_viewer', 'kernel_utilization', 'inference_profile', 'smart_suggestion',
      'megascale_stats', 'hlo_op_profile'],
  );
  assert.ok(missing.every((o) => o.disabled && o.title.includes('XProf 2.24')), JSON.stringify(missing));
  assertOwnOrigin(seen, env.server.url);
});
