// Browser tests of the HTA trace counters: queue length and memory
// bandwidth over the two ranks of a PyTorch job, checked against
// HolisticTraceAnalysis 0.5.0's goldens (exact on this fixture; see
// tests/hta_counters_parity.rs), their charts, sorting and CSV.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, sharedPage, showTool, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');
const BERT_H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz');

let env;

/** The two ranks, opened once for both counters: queue length asked for in the URL, memory bandwidth chosen. */
const ranks = sharedPage(async () => {
  const opened = await openPage(env.browser, `${env.server.url}/#tool=queue_length`);
  await opened.page.setInputFiles('#open-folder', MULTI_RANK);
  await opened.page.locator('#tool-queue_length').waitFor({ timeout: 60_000 });
  return opened;
});

before(async () => {
  env = await launch();
});

after(async () => {
  await ranks.close();
  await env?.close();
});

const golden = (dir, file) => JSON.parse(fs.readFileSync(path.join(dir, 'goldens', file), 'utf8')).rows;

const column = (page, table, col) =>
  page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));

const numbers = async (page, table, col) => (await column(page, table, col)).map((t) => Number(t.replace(/,/g, '')));

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

/** Shown figures (4 decimals, or 4 significant digits below 0.01) against HTA's. */
function assertClose(shown, hta, what) {
  assert.equal(shown.length, hta.length, what);
  shown.forEach((v, i) => {
    const tolerance = Math.max(Math.abs(hta[i]) * 1e-3, 5e-5);
    assert.ok(Math.abs(v - hta[i]) <= tolerance, `${what} row ${i}: shown ${v}, HTA ${hta[i]}`);
  });
}

test('queue length of two ranks: HTA summary per stream, a chart per rank, sorting and CSV', async () => {
  const { page, seen } = await ranks();
  await showTool(page, 'queue_length', 60_000);
  await page.locator('#tool-queue_length #queue-length').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  assert.equal(await page.locator('#tool option[value="queue_length"]').textContent(), 'Queue length');
  const hta = golden(MULTI_RANK, 'hta_queue_length_summary.json');
  assert.deepEqual(await numbers(page, 'queue-length', 'rank'), hta.map((r) => r.rank));
  assert.deepEqual(await numbers(page, 'queue-length', 'stream'), hta.map((r) => r.stream));
  assert.deepEqual(await numbers(page, 'queue-length', 'count'), hta.map((r) => r.count));
  for (const [col, key] of [['mean', 'mean'], ['std', 'std'], ['p25', '25%'], ['p50', '50%'], ['p75', '75%'], ['max', 'max']]) {
    assertClose(await numbers(page, 'queue-length', col), hta.map((r) => r[key]), col);
  }
  // One step line per stream in each rank's chart.
  assert.equal(await page.locator('#queue-chart-0 polyline').count(), 5);
  assert.equal(await page.locator('#queue-chart-1 polyline').count(), 5);
  assert.equal(await page.locator('#queue-chart-0 polyline[data-series="stream 7"]').count(), 1);
  await page.screenshot({ path: path.join(ARTIFACTS, 'queue-length.png'), fullPage: true });
  // Sorted by the longest queue, largest first: stream 7 (76, then 75).
  await page.click('#queue-length th[data-col="max"] button');
  assert.deepEqual((await numbers(page, 'queue-length', 'max')).slice(0, 2), [76, 75]);
  const csv = await downloadText(page, '#export-queue-length');
  assert.equal(csv.name, 'queue_length.csv');
  const lines = csv.text.trim().split('\n');
  assert.equal(lines[0], 'rank,stream,count,mean,std,min,25%,50%,75%,max');
  assert.equal(lines.length, hta.length + 1);
  assert.equal(Number(lines[1].split(',')[3]), hta[0].mean);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('memory bandwidth of two ranks: HTA summary per kind and a chart per rank', async () => {
  const { page, seen } = await ranks();
  await showTool(page, 'memory_bandwidth', 60_000);
  await page.locator('#tool-memory_bandwidth #memory-bandwidth').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#tool option[value="memory_bandwidth"]').textContent(), 'Memory bandwidth');
  const hta = golden(MULTI_RANK, 'hta_memory_bandwidth_summary.json');
  assert.deepEqual(await numbers(page, 'memory-bandwidth', 'rank'), hta.map((r) => r.rank));
  assert.deepEqual(await column(page, 'memory-bandwidth', 'name'), hta.map((r) => r.name));
  assert.deepEqual(await numbers(page, 'memory-bandwidth', 'count'), hta.map((r) => r.count));
  for (const [col, key] of [['mean', 'mean'], ['min', 'min'], ['p50', '50%'], ['max', 'max']]) {
    assertClose(await numbers(page, 'memory-bandwidth', col), hta.map((r) => r[key]), col);
  }
  assert.equal(await page.locator('#bandwidth-chart-0 polyline').count(), 4);
  assert.equal(await page.locator('#bandwidth-chart-1 polyline[data-series="Memcpy HtoD"]').count(), 1);
  await page.screenshot({ path: path.join(ARTIFACTS, 'memory-bandwidth.png'), fullPage: true });
  const csv = await downloadText(page, '#export-memory-bandwidth');
  assert.equal(csv.name, 'memory_bandwidth.csv');
  assert.match(csv.text, /^rank,name,count,mean,std,min,25%,50%,75%,max\n0,Memcpy DtoD,4,/);
  await page.fill('#bandwidth-filter', 'dtod');
  assert.deepEqual(await column(page, 'memory-bandwidth', 'name'), ['Memcpy DtoD', 'Memcpy DtoD']);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('one trace: a single copy has no standard deviation', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=memory_bandwidth`);
  await page.setInputFiles('#open-files', BERT_H100);
  await page.locator('#tool-memory_bandwidth #memory-bandwidth').waitFor({ timeout: 60_000 });
  const hta = golden(path.dirname(BERT_H100), 'hta_memory_bandwidth_summary.gaunernst_bert-small-uncased__1016001.json');
  assert.deepEqual(await column(page, 'memory-bandwidth', 'name'), hta.map((r) => r.name));
  assert.deepEqual(await numbers(page, 'memory-bandwidth', 'count'), hta.map((r) => r.count));
  assertClose(await numbers(page, 'memory-bandwidth', 'mean'), hta.map((r) => r.mean), 'mean');
  // HTA's std is null (NaN) for one sample.
  assert.equal(hta[0].std, null);
  assert.deepEqual(await column(page, 'memory-bandwidth', 'std'), ['—']);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
