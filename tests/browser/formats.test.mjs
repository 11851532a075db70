// Browser tests of the other formats: TensorBoard's legacy per-tool files
// and PyTorch/Kineto traces, opened like any profile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, offeredTools as offered, DATA, ARTIFACTS } from './harness.mjs';

const LEGACY_SET = path.join(DATA, 'legacy/tf-legacy-gpu-input-bound');
const FALCON_H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference/Falconsai_nsfw_image_detection__1016002.json.gz');
const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');
const TPU_OVERVIEW_JSON = path.join(DATA, 'legacy/xprof-golden-tpu-training/data_tpu-training_overview_page_tpu_training.json.gz');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const column = (page, table, col) =>
  page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));

test('a legacy TensorBoard set: overview, input pipeline and TensorFlow stats from their files', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-folder', LEGACY_SET);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#host').inputValue(), 'localhost');
  // The numbers the file holds: 11 steps averaging 1114.5 ms, 81.4% input.
  assert.equal(await page.locator('#avg-step-time').textContent(), '1,114.5 ms');
  assert.match(await page.locator('#verdict').textContent(), /HIGHLY input-bound because 81\.4%/);
  assert.equal(await page.locator('#env-device-type').textContent(), 'GPU');

  await page.selectOption('#tool', 'input_pipeline_analyzer');
  await page.locator('#tool-input_pipeline_analyzer').waitFor({ timeout: 30_000 });
  const ops = await column(page, 'input-ops', 'name');
  assert.equal(ops[0], 'Iterator::Prefetch::Generator');

  await page.selectOption('#tool', 'framework_op_stats');
  await page.locator('#tool-framework_op_stats').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#tool-framework_op_stats').textContent(), /IDLE/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'legacy-op-stats.png') });

  // Tools the set has no file for are disabled in the selector; asked for
  // anyway (a shared link), one says which tools the set has.
  assert.deepEqual(await offered(page), ['advisor', 'overview_page', 'input_pipeline_analyzer', 'framework_op_stats']);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();

  const linked = await openPage(env.browser, `${env.server.url}/#tool=kernel_stats`);
  await linked.page.setInputFiles('#open-folder', LEGACY_SET);
  await linked.page.locator('#error', { hasText: 'TensorBoard tool files for Overview' }).waitFor({ timeout: 30_000 });
  assert.deepEqual(linked.seen.errors, []);
  await linked.close();
});

test('a legacy tool JSON known only by its content opens in its tool', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', TPU_OVERVIEW_JSON);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#env-device-type').textContent(), /TPU/);
  // Its only tool stays enabled; asked for another, it names its tool.
  assert.deepEqual(await offered(page), ['advisor', 'overview_page']);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();

  const linked = await openPage(env.browser, `${env.server.url}/#tool=trace_viewer`);
  await linked.page.setInputFiles('#open-files', TPU_OVERVIEW_JSON);
  await linked.page.locator('#error', { hasText: 'choose the Overview tool' }).waitFor({ timeout: 30_000 });
  assert.deepEqual(linked.seen.errors, []);
  await linked.close();
});

/** HTA-independent facts about a Kineto trace (tests/data/kineto/<case>/goldens/facts.json). */
function facts(file) {
  const all = JSON.parse(fs.readFileSync(path.join(path.dirname(file), 'goldens/facts.json'), 'utf8'));
  return all.traces.find((t) => t.file === path.basename(file));
}

test('a PyTorch (Kineto) trace: steps broken down, kernels, operators, trace viewer', async () => {
  const expected = facts(FALCON_H100);
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', FALCON_H100);
  await page.locator('#tool-overview_page.pytorch').waitFor({ timeout: 30_000 });
  assert.deepEqual(await offered(page), [
    'advisor', 'overview_page', 'framework_op_stats', 'kernel_stats', 'kernel_launch_stats', 'kernel_sequences', 'modules',
    'idle_time_breakdown', 'queue_length', 'memory_bandwidth', 'critical_path', 'memory_profile', 'trace_viewer', 'info',
  ]);
  const stepNames = await page.$$eval('.pytorch-steps tbody .step', (c) => c.map((x) => x.textContent));
  assert.ok(stepNames.length >= 1 && stepNames.every((n) => n.startsWith('ProfilerStep#')), stepNames.join(','));
  assert.match(await page.locator('[data-field="gpu-utilization"]').textContent(), /^\d+\.\d%$/);
  // The step's roles add up to its time.
  const total = Number(await page.locator('.pytorch-steps tbody tr').first().locator('.total').textContent());
  const roles = await page.$$eval('.pytorch-steps tbody tr:first-child td[data-col]', (c) => c.map((x) => Number(x.textContent.replace(/,/g, ''))));
  assert.equal(roles.length, 7);
  assert.ok(Math.abs(roles.reduce((a, b) => a + b, 0) - total) < 0.01, `${roles} vs ${total}`);
  // Hovering the bar shows the step's card.
  const canvas = page.locator('canvas.step-chart');
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.55, box.y + box.height / 2);
  await page.locator('.step-card .step-name', { hasText: 'ProfilerStep#' }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'pytorch-overview.png'), fullPage: true });

  // Kernel stats: every launch of the trace, as facts.json counts them.
  await page.selectOption('#tool', 'kernel_stats');
  await page.locator('#tool-kernel_stats #kernel-stats').waitFor({ timeout: 30_000 });
  const counts = await page.$$eval('#kernel-stats tbody tr[data-row] td[data-col="occurrences"]', (c) => c.map((x) => Number(x.textContent.replace(/,/g, ''))));
  assert.equal(counts.reduce((a, b) => a + b, 0), expected.num_kernels);

  await page.selectOption('#tool', 'framework_op_stats');
  await page.locator('#tool-framework_op_stats.pytorch #operators').waitFor({ timeout: 30_000 });
  const ops = await column(page, 'operators', 'name');
  assert.ok(ops.some((o) => o.startsWith('aten::')), ops.slice(0, 5).join(','));
  await page.fill('#operator-filter', 'aten::addmm');
  assert.ok((await column(page, 'operators', 'name')).every((o) => o.includes('aten::addmm')));

  // The trace viewer: a kernel, linked to the runtime call that launched it.
  await page.selectOption('#tool', 'trace_viewer');
  await page.locator('#tool-trace_viewer').waitFor({ timeout: 30_000 });
  await page.fill('#trace-search', 'cutlass');
  await page.locator('#trace-search-count').filter({ hasText: /matches/ }).waitFor();
  await page.click('#trace-search-next');
  const details = page.locator('#trace-details');
  await details.locator('.event-name').filter({ hasText: 'cutlass' }).waitFor();
  await details.locator('.trace-links').filter({ hasText: /Launched by/ }).waitFor();
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('two ranks of one PyTorch job: each rank and the distributed view', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-folder', MULTI_RANK);
  await page.locator('#tool-overview_page.pytorch').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  assert.deepEqual(await offered(page), [
    'advisor', 'overview_page', 'framework_op_stats', 'kernel_stats', 'kernel_launch_stats', 'idle_time_breakdown', 'queue_length',
    'memory_bandwidth', 'stragglers', 'trace_viewer',
  ]);
  assert.deepEqual(await page.$$eval('#distributed-table tbody .rank', (c) => c.map((x) => x.textContent)), ['sampled_rank-0', 'sampled_rank-1']);
  // Communication overlapping computation per rank, as HTA finds it over all steps (within 1 point).
  const hta = JSON.parse(fs.readFileSync(path.join(MULTI_RANK, 'goldens/hta_comm_comp_overlap.include_last_step.json'), 'utf8'));
  const expected = JSON.stringify(hta).match(/"comp_comm_overlap_pctg":\s*[\d.]+/g).map((m) => Number(m.split(':')[1]));
  const overlap = await page.$$eval('#distributed-table td[data-col="overlap"]', (c) => c.map((x) => parseFloat(x.textContent)));
  assert.equal(overlap.length, expected.length);
  overlap.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) <= 1, `rank ${i}: ${v} vs HTA ${expected[i]}`));
  assert.equal(await page.locator('.pytorch-rank').count(), 2);
  await page.screenshot({ path: path.join(ARTIFACTS, 'pytorch-distributed.png'), fullPage: true });
  // One rank alone.
  await page.selectOption('#host', 'sampled_rank-1');
  await page.locator('#tool-overview_page.pytorch').waitFor({ timeout: 30_000 });
  await page.locator('#pytorch-distributed').waitFor({ state: 'detached' });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
