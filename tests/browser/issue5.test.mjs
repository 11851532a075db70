// Browser tests of GPU kernel stats, the memory profile, the pod viewer and
// the tf.data bottleneck analysis on real profiles.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, offeredTools, DATA, ARTIFACTS } from './harness.mjs';

const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
const KERAS_FIT = path.join(DATA, 'xspace/keras_fit/train/plugins/profile/2026_11_22_09_04_23/vm.xplane.pb');
const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
const CUSTOM_LOOP = path.join(DATA, 'xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** Opens `file` on a fresh page at `hash` and waits for the tool `tool` to show. */
async function openProfile(file, tool, hash = `#tool=${tool}`) {
  const opened = await openPage(env.browser, `${env.server.url}/${hash}`);
  await opened.page.setInputFiles('#open-files', file);
  await opened.page.locator(`#tool-${tool}`).waitFor({ timeout: 30_000 });
  return opened;
}

/** How many pixels of a canvas are not background. */
async function inkedPixels(page, selector) {
  return page.$eval(selector, (canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let inked = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 0 && (data[i] < 245 || data[i + 1] < 245 || data[i + 2] < 245)) inked++;
    }
    return inked;
  });
}

function column(page, table, col) {
  return page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));
}

function numbers(page, table, col) {
  return page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => Number(c.dataset.value)));
}

const isSorted = (values, compare) => values.every((v, i) => i === 0 || compare(values[i - 1], v) <= 0);

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

/** Moves the pointer over a canvas at a fraction of its plot's width, half way down. */
async function hoverPlot(page, canvasSelector, fraction) {
  const canvas = page.locator(canvasSelector);
  const box = await canvas.boundingBox();
  const left = Number(await canvas.getAttribute('data-plot-left'));
  const right = Number(await canvas.getAttribute('data-plot-right'));
  await page.mouse.move(box.x + left + (right - left) * fraction, box.y + box.height / 2);
}

test('GPU kernel stats: pie, table, sort, filter and CSV', async () => {
  const { page, seen, close } = await openProfile(NVIDIA_GPU, 'kernel_stats');
  assert.equal(await page.locator('#tool').inputValue(), 'kernel_stats');
  assert.equal(await page.locator('#tool option[value="kernel_stats"]').textContent(), 'GPU kernel stats');
  await page.locator('#kernel-stats tbody tr[data-row]').first().waitFor();

  assert.ok((await inkedPixels(page, '#kernel-pie')) > 1000, 'pie drawn');
  // One slice per kernel (its launch shapes and ops together), ten at most and the rest as Other.
  const legend = await page.$$eval('.kernel-pie .legend li', (items) => items.map((i) => i.textContent.trim()));
  const kernels = new Set(await page.$$eval('#kernel-stats td[data-col="kernel"]', (c) => c.map((x) => x.title)));
  assert.equal(legend.length, kernels.size <= 11 ? kernels.size : 11, legend.join('\n'));
  assert.match(legend[0], /^FillPhiloxRandomKernelLaunch<.* 7,908\.3 µs · 26\.6%$/);

  // 15 kernel–op rows, ranked by total time.
  assert.equal(await page.locator('#kernel-stats tbody tr[data-row]').count(), 15);
  assert.match(await page.locator('#kernel-stats caption .row-count').textContent(), /^15 rows$/);
  assert.deepEqual(await column(page, 'kernel-stats', 'rank'), Array.from({ length: 15 }, (_, i) => String(i + 1)));
  // Names are shortened for display; the whole name is the hover text.
  const first = page.locator('#kernel-stats tbody tr[data-row] td[data-col="kernel"]').first();
  const full = await first.getAttribute('title');
  const shown = (await first.textContent()).trim();
  assert.match(full, /^void tensorflow::functor::FillPhiloxRandomKernelLaunch<.*>\(.*\)$/);
  assert.ok(shown.length < full.length, shown);
  assert.equal(shown, 'FillPhiloxRandomKernelLaunch<UniformDistribution<PhiloxRandom, half> >');
  const totals = await numbers(page, 'kernel-stats', 'total');
  assert.ok(isSorted(totals, (a, b) => b - a), totals.join(','));

  // Sort by total duration: smallest first on the second click.
  const header = page.locator('#kernel-stats th[data-col="total"]');
  await header.locator('button').click();
  assert.equal(await header.getAttribute('aria-sort'), 'descending');
  assert.ok(isSorted(await numbers(page, 'kernel-stats', 'total'), (a, b) => b - a));
  await header.locator('button').click();
  assert.equal(await header.getAttribute('aria-sort'), 'ascending');
  const up = await numbers(page, 'kernel-stats', 'total');
  assert.ok(isSorted(up, (a, b) => a - b), up.join(','));
  assert.deepEqual(up, [...totals].reverse());

  // Filter (full kernel names and op names): every row left matches.
  const kept = async () => page.$$eval('#kernel-stats tbody tr[data-row]', (rows) => rows.map((r) =>
    `${r.querySelector('[data-col="kernel"]').title} ${r.querySelector('[data-col="op"]').textContent}`));
  await page.fill('#kernel-filter', 'Eigen');
  // Every kernel of this profile is Eigen's or takes Eigen types.
  const eigen = await kept();
  assert.equal(eigen.length, 15);
  assert.ok(eigen.every((t) => t.toLowerCase().includes('eigen')), eigen.join('\n'));
  await page.fill('#kernel-filter', 'eigenmetakernel');
  await page.locator('#kernel-stats caption .row-count', { hasText: /^14 of 15 rows$/ }).waitFor();
  const meta = await kept();
  assert.equal(meta.length, 14);
  assert.ok(meta.every((t) => t.includes('Eigen::internal::EigenMetaKernel')), meta.join('\n'));
  await page.fill('#kernel-filter', 'no such kernel');
  await page.locator('#kernel-stats .empty-row').waitFor();
  await page.fill('#kernel-filter', 'Eigen');
  await page.$eval('#tool-kernel_stats .table-scroll', (e) => { e.scrollLeft = 0; });
  await page.screenshot({ path: path.join(ARTIFACTS, 'kernel-stats.png'), fullPage: true });
  await page.fill('#kernel-filter', '');
  await page.waitForFunction(() => document.querySelectorAll('#kernel-stats tbody tr[data-row]').length === 15);

  // CSV export: the whole table, as the analysis writes it.
  const { name, text } = await downloadText(page, '#export-kernels');
  assert.equal(name, 'kernel_stats.csv');
  const lines = text.trim().split('\n');
  assert.equal(lines.length, 16);
  assert.match(lines[0], /^rank,kernel_name,registers_per_thread,shmem_bytes,block_dim,grid_dim,occupancy_pct,/);
  assert.ok(lines[1].startsWith(`1,"${full.replaceAll('"', '""')}",`), lines[1].slice(0, 200));

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('memory profile: allocator, summary, timeline with hover card, breakdown at the peak', async () => {
  const { page, seen, close } = await openProfile(KERAS_FIT, 'memory_profile');
  assert.equal(await page.locator('#memory-id').inputValue(), 'mklcpu');
  assert.deepEqual(await page.$$eval('#memory-id option', (o) => o.map((x) => x.value)), ['mklcpu']);

  const peak = page.locator('#memory-peak-heap');
  assert.equal(await peak.getAttribute('data-value'), '16777216');
  assert.match(await peak.textContent(), /^16\.0 MiB \(16,777,216 bytes\)$/);
  assert.equal(await page.locator('#memory-allocations').textContent(), '36');
  assert.equal(await page.locator('#memory-deallocations').textContent(), '36');
  assert.match(await page.locator('#memory-peak').textContent(), /^16\.0 MiB at [\d,.]+ ms$/);
  assert.match(await page.locator('#memory-capacity').textContent(), /GiB$/);

  // The timeline is drawn (72 events), and hovering it shows the event under the pointer.
  const canvas = page.locator('#memory-timeline[data-plot-left]');
  await canvas.waitFor();
  assert.equal(await canvas.getAttribute('data-points'), '72');
  assert.ok((await inkedPixels(page, '#memory-timeline')) > 2000, 'timeline drawn');
  await hoverPlot(page, '#memory-timeline', 0.5);
  const card = page.locator('#memory-tooltip');
  await card.waitFor();
  const text = await card.textContent();
  assert.match(text, /Event\s*(allocation|deallocation)/);
  assert.match(text, /Memory in use\s*[\d.,]+ (B|KiB|MiB)/);
  assert.match(text, /Requested size/);
  assert.match(text, /Shape/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'memory-profile.png'), fullPage: true });
  await page.mouse.move(0, 0);
  await card.waitFor({ state: 'detached' });

  // The breakdown at the peak, filtered by op name.
  assert.deepEqual(await column(page, 'memory-breakdown', 'op'), ['unused preallocated device memory']);
  assert.deepEqual(await column(page, 'memory-breakdown', 'allocation-size'), ['16.0 MiB']);
  await page.fill('#memory-filter', 'no such op');
  await page.locator('#memory-breakdown .empty-row').waitFor();
  await page.fill('#memory-filter', 'UNUSED');
  await page.locator('#memory-breakdown tbody tr[data-row]').waitFor();

  // Free memory (24 GiB here) is off at first; shown, the axis grows to GiB.
  assert.ok(!(await page.locator('#memory-show-free').isChecked()));
  await page.locator('#memory-show-free').check();
  await page.locator('.legend li', { hasText: 'Free memory' }).waitFor();

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('tf.data bottleneck analysis over all hosts: the most input-bound host first, a host selector', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-tfdata-'));
  const run = path.join(dir, 'plugins/profile/2026_11_22_09_04_29');
  fs.mkdirSync(run, { recursive: true });
  fs.copyFileSync(CUSTOM_LOOP, path.join(run, 'calm.xplane.pb'));
  fs.copyFileSync(INPUT_BOUND, path.join(run, 'busy.xplane.pb'));
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=tf_data_bottleneck_analysis`);
  await page.setInputFiles('#open-folder', dir);
  await page.locator('#tool-tf_data_bottleneck_analysis').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  assert.match(await page.locator('#tfdata-verdict').textContent(), /\(host busy\)/);
  const hosts = await column(page, 'tfdata-pipelines', 'host');
  assert.equal(hosts[0], 'busy');
  assert.ok(hosts.includes('calm'), hosts.join(','));
  assert.deepEqual(await page.$$eval('#tfdata-host option', (o) => o.map((x) => x.textContent)), ['busy', 'calm']);
  await page.locator('svg#tfdata-graph[aria-label*=" on busy:"]').waitFor();
  await page.selectOption('#tfdata-host', 'calm');
  await page.locator('svg#tfdata-graph[aria-label*=" on calm:"]').waitFor();
  const pipelines = await page.$$eval('#tfdata-pipeline option', (o) => o.map((x) => x.textContent));
  assert.equal(pipelines.length, hosts.filter((h) => h === 'calm').length);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('pod viewer: two hosts, a bar per worker for the chosen step, hover card', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-pod-'));
  const run = path.join(dir, 'plugins/profile/2020_06_09_12_00_00');
  fs.mkdirSync(run, { recursive: true });
  const hosts = ['34.83.195.179_6003', '34.83.195.180_6003'];
  for (const host of hosts) fs.copyFileSync(NVIDIA_GPU, path.join(run, `${host}.xplane.pb`));
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=pod_viewer`);
  await page.setInputFiles('#open-folder', dir);
  await page.locator('#tool-pod_viewer').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');

  const canvas = page.locator('#pod-chart[data-bars]');
  await canvas.waitFor();
  assert.equal(await canvas.getAttribute('data-bars'), '2');
  assert.equal(await page.locator('#pod-step').inputValue(), '0');
  assert.match(await page.locator('#pod-step-name').textContent(), /^0 \(1 of 1\)$/);
  assert.ok((await inkedPixels(page, '#pod-chart')) > 2000, 'bars drawn');
  const legend = await page.$$eval('#tool-pod_viewer .legend li', (items) => items.map((i) => i.textContent.trim()));
  assert.deepEqual(legend, ['Device compute', 'All others']);
  assert.deepEqual(await page.$$eval('#pod-table tbody .worker', (c) => c.map((x) => x.textContent)), hosts);
  assert.deepEqual(await page.$$eval('#pod-table tbody .total', (c) => c.map((x) => x.textContent)), ['21.310', '21.310']);

  // Hovering the second bar shows its worker's numbers.
  await hoverPlot(page, '#pod-chart', 0.75);
  const card = page.locator('#pod-tooltip');
  await card.waitFor();
  assert.equal(await card.locator('.worker-name').textContent(), hosts[1]);
  assert.match(await card.textContent(), /Device compute\s*14\.9 ms/);
  assert.match(await card.textContent(), /Bottleneck: Device compute/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'pod-viewer.png'), fullPage: true });
  await hoverPlot(page, '#pod-chart', 0.25);
  await page.locator('#pod-tooltip .worker-name', { hasText: hosts[0] }).waitFor();

  // One host: one bar.
  await page.selectOption('#host', hosts[0]);
  await page.locator('#pod-chart[data-bars="1"]').waitFor({ timeout: 30_000 });

  // On "All hosts" only the tools that combine hosts are enabled.
  await page.selectOption('#host', 'All hosts');
  await page.locator('#pod-chart[data-bars="2"]').waitFor({ timeout: 30_000 });
  assert.deepEqual(await offeredTools(page), [
    'advisor', 'overview_page', 'input_pipeline_analyzer', 'framework_op_stats', 'kernel_stats', 'pod_viewer',
    'tf_data_bottleneck_analysis', 'trace_viewer', 'op_profile',
  ]);

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('tf.data bottleneck analysis: verdict, pipelines, graph with the bottleneck', async () => {
  const { page, seen, close } = await openProfile(INPUT_BOUND, 'tf_data_bottleneck_analysis');
  assert.equal(await page.locator('#tool option[value="tf_data_bottleneck_analysis"]').textContent(), 'tf.data bottleneck analysis');
  const verdict = await page.locator('#tfdata-summary #tfdata-verdict').textContent();
  assert.match(verdict, /slower than 50 µs/);
  assert.match(await page.locator('#tfdata-suggestion').textContent(), /ParallelMapV2 is too slow: raise num_parallel_calls/);

  // The pipelines table.
  assert.deepEqual(await column(page, 'tfdata-pipelines', 'pipeline'), ['Host:0']);
  assert.deepEqual(await column(page, 'tfdata-pipelines', 'calls'), ['12']);
  assert.deepEqual(await column(page, 'tfdata-pipelines', 'slow-calls'), ['12']);
  assert.deepEqual(await column(page, 'tfdata-pipelines', 'max'), ['115,323.1']);
  assert.deepEqual(await column(page, 'tfdata-pipelines', 'bottleneck'), ['ParallelMapV2']);
  assert.equal(await page.locator('#tfdata-pipeline option').count(), 1);

  // The graph: nine iterators, the critical path in bold, the bottleneck outlined.
  const graph = page.locator('svg#tfdata-graph');
  await graph.waitFor();
  const box = await graph.boundingBox();
  assert.ok(box.width > 400 && box.height > 400, JSON.stringify(box));
  assert.equal(await page.locator('#tfdata-graph g.node').count(), 9);
  assert.equal(await page.locator('#tfdata-graph g.node.blocking').count(), 5);
  assert.equal(await page.locator('#tfdata-graph path.edge').count(), 8);
  assert.equal(await page.locator('#tfdata-graph path.edge.blocking').count(), 4);
  const bottleneck = page.locator('#tfdata-graph .bottleneck');
  assert.equal(await bottleneck.count(), 1);
  assert.equal(await bottleneck.getAttribute('data-name'), 'ParallelMapV2');
  assert.equal(await bottleneck.locator('text.name').textContent(), 'ParallelMapV2');
  assert.match(await bottleneck.locator('title').textContent(), /^Iterator::Root::Prefetch::MapAndBatch::ParallelMapV2\n/);
  assert.equal(await bottleneck.locator('rect').evaluate((r) => getComputedStyle(r).stroke), 'rgb(198, 40, 40)');
  const names = await page.$$eval('#tfdata-graph g.node text.name', (t) => t.map((x) => x.textContent));
  assert.ok(names.includes('Range (input [3])'), names.join(','));
  assert.match(await page.locator('#tfdata-names').textContent(), /right to left/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'tf-data.png'), fullPage: true });

  // The rank selector: the pipeline's ten slowest calls, each with its own graph.
  const ranks = await page.$$eval('#tfdata-rank option', (o) => o.map((x) => x.textContent));
  assert.equal(ranks.length, 10);
  assert.match(ranks[0], /^#1 — 115,323\.1/);
  await page.selectOption('#tfdata-rank', '2');
  await page.locator('svg#tfdata-graph[aria-label^="Iterators of call #3 "]').waitFor();
  assert.match(await page.locator('#tfdata-bottleneck').textContent(), /call #3 of the pipeline took 107,271\.9/);
  assert.equal(await page.locator('#tfdata-graph .bottleneck').getAttribute('data-name'), 'ParallelMapV2');

  // A CPU-only profile has no GPU kernels, and says so.
  await page.selectOption('#tool', 'kernel_stats');
  await page.locator('#tool-kernel_stats #no-kernels').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#no-kernels').textContent(), /CPU-only: no GPU kernels were recorded/);

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
