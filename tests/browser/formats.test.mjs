// Browser tests of the other formats: TensorBoard's legacy per-tool files
// and PyTorch/Kineto traces, opened like any profile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const LEGACY_SET = path.join(DATA, 'legacy/tf-legacy-gpu-input-bound');
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

  // A tool the set has no file for says which tools it has.
  await page.selectOption('#tool', 'kernel_stats');
  await page.locator('#error', { hasText: 'TensorBoard tool files for Overview' }).waitFor({ timeout: 30_000 });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a legacy tool JSON known only by its content opens in its tool', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', TPU_OVERVIEW_JSON);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#env-device-type').textContent(), /TPU/);
  await page.selectOption('#tool', 'trace_viewer');
  await page.locator('#error', { hasText: 'choose the Overview tool' }).waitFor({ timeout: 30_000 });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
