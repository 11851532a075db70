// Browser test of issue #18 item 6 ("beyond HTA") on the real PyTorch
// fixtures: the Modules view, the operator table grouped by input shape, a
// CUDA graph's kernels counted for their op, and AMD's matrix-core rule.
// HTA has no such analyses; the expected numbers come from the independent
// script (see tests/pytorch_modules.rs):
//   python3 tests/scripts/pytorch_facts.py tests/data/kineto/<case>/<trace>.json.gz
// Times are shown to 0.1 µs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const BERT = 'gaunernst_bert-small-uncased__1016001.json.gz';
const H100_BERT = path.join(DATA, 'kineto/kineto-h100-hf-inference', BERT);
const MI300X_BERT = path.join(DATA, 'kineto/kineto-mi300x-hf-inference', BERT);
const GRAPHS = path.join(DATA, 'kineto/kineto-trace-diff-a100-v100/test.json.gz');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const column = (page, table, col) =>
  page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));
// The module column untrimmed: its indentation (no-break spaces) is the tree.
const modules = (page) =>
  page.$$eval('#modules-table tbody tr[data-row] td[data-col="module"]', (cells) => cells.map((c) => c.textContent));
const number = (text) => Number(text.replace(/,/g, ''));

test('modules of BERT on an H100: the tree, its depth limit, and operators by input shape', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=modules`);
  await page.setInputFiles('#open-files', H100_BERT);
  await page.locator('#tool-modules #modules-table').waitFor({ timeout: 60_000 });
  assert.match(await page.locator('#modules-caption').textContent(), /^84 modules from 84 calls/);
  // The script: BertLMHeadModel_0 4216.941 µs on the host, 60 kernels of
  // 307.197 µs; BertModel_0 3910.787 µs, 56 kernels of 255.101 µs.
  const names = await modules(page);
  assert.equal(names[0], 'BertLMHeadModel_0');
  assert.equal(names[1], '\u00a0\u00a0\u00a0BertModel_0');
  assert.deepEqual((await column(page, 'modules-table', 'host-total')).slice(0, 2), ['4,216.9', '3,910.8']);
  assert.deepEqual((await column(page, 'modules-table', 'kernels')).slice(0, 2), ['60', '56']);
  assert.deepEqual((await column(page, 'modules-table', 'kernel-total')).slice(0, 2), ['307.2', '255.1']);
  await page.screenshot({ path: path.join(ARTIFACTS, 'modules.png'), fullPage: true });
  // Two levels: the model and BertModel_0 / its LM head.
  await page.selectOption('#modules-depth', '1');
  const shallow = await modules(page);
  assert.ok(shallow.length >= 2 && shallow.length < 84 && shallow[0] === 'BertLMHeadModel_0', shallow.join('|'));
  await page.fill('#modules-filter', 'bertmodel');
  assert.deepEqual(await modules(page), ['\u00a0\u00a0\u00a0BertModel_0']);

  // Operators: aten::view was called 34 times with [[1,141,512],[]].
  await page.selectOption('#tool', 'framework_op_stats');
  await page.locator('#tool-framework_op_stats.pytorch #operators').waitFor({ timeout: 30_000 });
  await page.check('#group-by-input-shape');
  await page.locator('#operators-by-shape').waitFor();
  await page.fill('#operator-filter', 'aten::view');
  const dims = await column(page, 'operators-by-shape', 'input-dims');
  const calls = await column(page, 'operators-by-shape', 'calls');
  assert.equal(calls[dims.indexOf('[[1,141,512],[]]')], '34');
  await page.uncheck('#group-by-input-shape');
  await page.locator('#operators-by-shape').waitFor({ state: 'detached' });
  assert.ok((await column(page, 'operators', 'name')).every((o) => o.includes('aten::view')));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a trace with CUDA graphs and no module events', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=modules`);
  await page.setInputFiles('#open-files', GRAPHS);
  await page.locator('#tool-modules #modules-message').waitFor({ timeout: 90_000 });
  assert.match(await page.locator('#modules-message').textContent(), /^This trace has no module events: profile with `with_stack=True`/);
  assert.equal(await page.locator('#modules-table').count(), 0);
  // 12 cudaGraphLaunch calls replay 4,464 kernels; those in the forward
  // pass (95,694 µs) belong to CompiledFunction, the op around the launch.
  await page.selectOption('#tool', 'framework_op_stats');
  await page.locator('#tool-framework_op_stats.pytorch #operators').waitFor({ timeout: 60_000 });
  await page.fill('#operator-filter', 'compiledfunction');
  const names = await column(page, 'operators', 'name');
  const self = await column(page, 'operators', 'device-self');
  assert.equal(self[names.indexOf('CompiledFunction')], '95,694.0');
  assert.equal(self[names.indexOf('CompiledFunctionBackward')], '171,432.0');
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('an MI300X trace: matrix-core kernels by AMD\'s rule', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=kernel_stats`);
  await page.setInputFiles('#open-files', MI300X_BERT);
  await page.locator('#tool-kernel_stats #kernel-stats').waitFor({ timeout: 60_000 });
  const uses = await column(page, 'kernel-stats', 'uses-tensorcore');
  const counts = (await column(page, 'kernel-stats', 'occurrences')).map(number);
  assert.equal(counts.reduce((a, b) => a + b, 0), 60);
  // XProf's rule: 30 of 60, the 26 MFMA tiles (`_MI16x16x1`) and the 4 `attn_fwd` attention kernels.
  assert.equal(counts.filter((_, i) => uses[i] === 'yes').reduce((a, b) => a + b, 0), 30);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
