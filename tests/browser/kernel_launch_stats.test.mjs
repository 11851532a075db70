// Browser tests of Kernel launch stats (HTA 0.5.0's get_cuda_kernel_launch_stats)
// on PyTorch traces: the counts and statistics of HTA's goldens
// (tests/data/kineto/<case>/goldens/hta_cuda_kernel_launch_stats*.json), the
// scatter, the outliers table (sorting, filter, CSV) and the notes on what
// HTA leaves out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, offeredTools as offered, DATA, ARTIFACTS } from './harness.mjs';

const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');
const H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference');
const BERT_H100 = path.join(H100, 'gaunernst_bert-small-uncased__1016001.json.gz');
const BERT_MI300X = path.join(DATA, 'kineto/kineto-mi300x-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz');
// The scatter's colours (chart::PALETTE[0] and [5]).
const BLUE = [0, 114, 178];
const ORANGE = [213, 94, 0];

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

function golden(dir, name) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'goldens', name), 'utf8'));
}

const count = (n) => n.toLocaleString('en-US');

/** HTA's launches of one rank as rows, and its outliers (runtime over 50 µs or delay over 100 µs). */
function launchesOf(rank) {
  const c = rank.columns;
  const rows = c.correlation.map((id, i) => ({ id, cpu: c.cpu_duration[i], gpu: c.gpu_duration[i], delay: c.launch_delay[i] }));
  return { rows, outliers: rows.filter((r) => r.cpu > 50 || r.delay > 100) };
}

async function canvasPixels(page, selector, rgb) {
  return page.$eval(selector, (canvas, rgb) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let matching = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) matching++;
    }
    return matching;
  }, rgb);
}

function numbers(page, col) {
  return page.$$eval(`#launch-outliers tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => Number(c.dataset.value)));
}

function texts(page, col) {
  return page.$$eval(`#launch-outliers tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));
}

const descending = (values) => values.every((v, i) => i === 0 || values[i - 1] >= v);

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

/** The page shows `hta`'s numbers for the rank on screen. */
async function checkRank(page, key, hta) {
  const rank = hta.per_rank[key];
  const s = rank.summary;
  const shown = page.locator(`.launch-rank[data-rank="${key}"]`);
  await shown.waitFor({ timeout: 30_000 });
  const field = (f) => shown.locator(`#launch-summary [data-field="${f}"] dd`).textContent();
  assert.equal(await field('num-launches'), count(s.num_launches));
  assert.match(await field('gpu-shorter'), new RegExp(`^${count(s.gpu_shorter_than_cpu)} \\(`));
  assert.match(await field('runtime-outliers'), new RegExp(`^${count(s.cpu_runtime_outliers)} \\(`));
  assert.match(await field('delay-outliers'), new RegExp(`^${count(s.launch_delay_outliers)} \\(`));
  // Every statistic to the last bit (the mean as HTA's golden rounds it, to 3 decimals).
  for (const [row, column] of [['cpu', 'cpu_duration'], ['gpu', 'gpu_duration'], ['delay', 'launch_delay']]) {
    const cells = await shown.locator(`#launch-stats tr[data-row="${row}"] td`).evaluateAll(
      (tds) => Object.fromEntries(tds.map((td) => [td.dataset.col, Number(td.dataset.value)])));
    for (const stat of ['sum', 'p50', 'p95', 'max']) {
      assert.equal(cells[stat], s[column][stat], `rank ${key} ${column} ${stat}`);
    }
    assert.ok(Math.abs(cells.mean - s[column].mean) <= 0.0005, `rank ${key} ${column} mean ${cells.mean}`);
  }

  // The scatter: one point per launch, outliers in orange over the rest in blue.
  const canvas = shown.locator('#launch-scatter[data-marks]');
  await canvas.waitFor();
  assert.equal(Number(await canvas.getAttribute('data-points')), s.num_launches);
  assert.ok(Number(await canvas.getAttribute('data-marks')) > 50, 'distinct marks');
  assert.ok(await canvasPixels(page, '#launch-scatter', BLUE) > 100, 'blue points');
  assert.ok(await canvasPixels(page, '#launch-scatter', ORANGE) > 100, 'orange outliers');

  // The outliers: HTA's, longest delay first.
  const { outliers } = launchesOf(rank);
  assert.equal(await shown.locator('#launch-outliers .row-count').textContent(), `${count(outliers.length)} rows`);
  const delays = await numbers(page, 'delay');
  assert.equal(delays.length, Math.min(100, outliers.length));
  assert.ok(descending(delays), 'sorted by delay');
  assert.equal(delays[0], Math.max(...outliers.map((o) => o.delay)));
  return outliers;
}

test('two ranks: HTA\'s counts and statistics per rank, the scatter, the outliers sorted, filtered and exported', async () => {
  const hta = golden(MULTI_RANK, 'hta_cuda_kernel_launch_stats.json');
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=kernel_launch_stats`);
  await page.setInputFiles('#open-folder', MULTI_RANK);
  await page.locator('#tool-kernel_launch_stats #launch-ranks').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  assert.equal(await page.locator('#tool option[value="kernel_launch_stats"]').textContent(), 'Kernel launch stats');
  assert.ok((await offered(page)).includes('kernel_launch_stats'));
  // Every rank side by side.
  const perRank = await page.$$eval('#launch-ranks tbody tr', (rows) => rows.map((r) => ({
    rank: r.dataset.rank,
    launches: r.querySelector('[data-col="launches"]').textContent,
    runtime: r.querySelector('[data-col="runtime-outliers"]').textContent,
    delay: r.querySelector('[data-col="delay-outliers"]').textContent,
  })));
  assert.deepEqual(perRank, Object.entries(hta.per_rank).map(([rank, { summary: s }]) => ({
    rank, launches: count(s.num_launches), runtime: count(s.cpu_runtime_outliers), delay: count(s.launch_delay_outliers),
  })));
  assert.match(await page.locator('#launch-dropped-step').textContent(), /ProfilerStep#552/);

  await checkRank(page, '0', hta);
  await page.screenshot({ path: path.join(ARTIFACTS, 'kernel-launch-stats.png'), fullPage: true });
  await page.selectOption('#launch-rank', '1');
  const outliers = await checkRank(page, '1', hta);

  // Sorting by the CPU call, largest first, then smallest first.
  await page.click('#launch-outliers th[data-col="cpu"] button');
  const cpu = await numbers(page, 'cpu');
  assert.ok(descending(cpu), 'sorted by CPU duration');
  assert.equal(cpu[0], Math.max(...outliers.map((o) => o.cpu)));
  await page.click('#launch-outliers th[data-col="cpu"] button');
  assert.equal((await numbers(page, 'cpu'))[0], Math.min(...outliers.map((o) => o.cpu)));

  // Filtering by runtime call.
  const call = (await texts(page, 'runtime'))[0];
  await page.fill('#launch-filter', call);
  const calls = await texts(page, 'runtime');
  assert.ok(calls.length > 0 && calls.every((c) => c === call), calls.slice(0, 3).join(','));
  await page.fill('#launch-filter', 'no such kernel anywhere');
  await page.locator('#launch-outliers .empty-row').waitFor();
  await page.fill('#launch-filter', '');

  // The CSV: every outlier of the rank, with HTA's numbers.
  const csv = await downloadText(page, '#export-launch-outliers');
  assert.equal(csv.name, 'kernel_launch_outliers.csv');
  const lines = csv.text.trim().split(/\r\n/);
  assert.equal(lines[0], 'rank,host,correlation,runtime_call,gpu_event,cpu_duration_us,gpu_duration_us,launch_delay_us,outlier');
  assert.equal(lines.length, outliers.length + 1);
  const byId = new Map(outliers.map((o) => [String(o.id), o]));
  for (const line of lines.slice(1, 50)) {
    const fields = line.split(',');
    const id = fields[2];
    const [cpuUs, gpuUs, delayUs] = fields.slice(-4, -1).map(Number);
    assert.deepEqual([cpuUs, gpuUs, delayUs], [byId.get(id).cpu, byId.get(id).gpu, byId.get(id).delay], line);
    assert.equal(fields[0], '1');
  }
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('one trace: the driver launches HTA leaves out; a ROCm trace has none it counts', async () => {
  const hta = golden(H100, 'hta_cuda_kernel_launch_stats.gaunernst_bert-small-uncased__1016001.json');
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=kernel_launch_stats`);
  await page.setInputFiles('#open-files', BERT_H100);
  await page.locator('#tool-kernel_launch_stats #launch-summary').waitFor({ timeout: 30_000 });
  assert.ok((await offered(page)).includes('kernel_launch_stats'));
  assert.equal(await page.locator('#launch-rank').count(), 0, 'one rank, no selector');
  assert.equal(await page.locator('[data-field="num-launches"] dd').textContent(), count(hta.per_rank['0'].summary.num_launches));
  assert.match(await page.locator('#launch-uncounted').textContent(), /22 × cuLaunchKernel/);
  assert.equal(await page.locator('#launch-dropped-step').count(), 0, 'one step: nothing dropped');
  // No outlier in this trace.
  await page.locator('#launch-outliers .empty-row').waitFor();
  assert.match(await page.locator('#launch-outliers .row-count').textContent(), /^0 rows$/);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();

  const rocm = await openPage(env.browser, `${env.server.url}/#tool=kernel_launch_stats`);
  await rocm.page.setInputFiles('#open-files', BERT_MI300X);
  await rocm.page.locator('#tool-kernel_launch_stats #no-launches').waitFor({ timeout: 30_000 });
  assert.match(await rocm.page.locator('#launch-uncounted').textContent(), /hipLaunchKernel/);
  assert.equal(await rocm.page.locator('#launch-scatter').count(), 0);
  assert.deepEqual(rocm.seen.errors, []);
  await rocm.close();
});
