// Browser tests of compare mode: two profiles opened (at once, or one and
// then another added), a baseline chosen, and each kind of comparison shown:
// the overview's step times, change and verdict; a keyed table with new and
// gone rows, sorting, filter and CSV; a host compared with itself; the URL
// hash that reopens a comparison; and PyTorch traces (the trace diff).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS, isFirefox } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const DOCS_IMAGES = path.resolve(here, '../../docs/images');
const CUSTOM_LOOP = path.join(DATA, 'xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb');
const CUSTOM_LOOP_XLA = path.join(DATA, 'xspace/custom_loop_xla/plugins/profile/2026_11_22_09_04_39/vm.xplane.pb');
const MI300X = path.join(DATA, 'xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb');
const CONTROL = path.join(DATA, 'kineto/kineto-trace-diff-a100-v100/control.json.gz');
const TEST = path.join(DATA, 'kineto/kineto-trace-diff-a100-v100/test.json.gz');
// Loose files are named after the file; a second file of the same name by its size too.
const kib = (file) => `${(fs.statSync(file).size / 1024).toFixed(1)} KiB`;
const LOOSE = 'vm.xplane.pb';
const ADDED = `vm.xplane.pb (${kib(CUSTOM_LOOP_XLA)})`;

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** The value of the baseline option for `run` / `host` (names encoded as the page does). */
const pick = (run, host) => `${encodeURIComponent(run)}&${encodeURIComponent(host)}`
  .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Waits for a comparison of `tool` to be on screen. */
async function comparison(page, tool) {
  await page.locator(`#tool-compare[data-tool="${tool}"]`).waitFor({ timeout: 60_000 });
}

const column = (page, table, col) =>
  page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));
const numbers = (page, table, col) =>
  page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => Number(c.dataset.value)));
const isSorted = (values, cmp) => values.every((v, i) => i === 0 || cmp(values[i - 1], v) <= 0);

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

test('one profile, then another added: overview and op-table comparisons, swap, leave, the URL', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', CUSTOM_LOOP);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  // Added files join the open ones under a run name of their own; they become the baseline.
  await page.setInputFiles('#add-files', CUSTOM_LOOP_XLA);
  await comparison(page, 'overview_page');
  assert.deepEqual(await page.$$eval('#run option', (o) => o.map((x) => x.value)), [LOOSE, ADDED]);
  assert.equal(await page.locator('#compare-base').inputValue(), pick(ADDED, 'vm'));
  assert.equal(await page.locator('#run').inputValue(), LOOSE);
  assert.ok((await page.locator('#compare-base').textContent()).includes(`${ADDED} / vm`));

  // Both step times, the change (absolute and relative) and the verdict.
  const base = Number(await page.locator('#step-base').getAttribute('data-value'));
  const candidate = Number(await page.locator('#step-candidate').getAttribute('data-value'));
  const delta = Number(await page.locator('#step-delta').getAttribute('data-value'));
  assert.ok(base > 0 && candidate > 0);
  assert.ok(Math.abs(candidate - base - delta) < 1e-9);
  assert.match(await page.locator('#step-delta').textContent(), /ms \([+-]?\d+\.\d%\)/);
  assert.ok((await page.locator('#compare-verdict').textContent()).length > 20);
  // Both sides say which file they are.
  assert.ok((await page.locator('#side-base dd').first().textContent()).includes(`${ADDED} / vm`));
  assert.ok((await page.locator('#side-candidate dd').first().textContent()).includes(`${LOOSE} / vm`));
  // The breakdown: a drawn chart and a table with the step time first.
  assert.ok(await page.$eval('#compare-breakdown canvas', (c) => c.width > 0));
  const metrics = await page.$$eval('#compare-figures tbody tr', (rows) => rows.map((r) => r.dataset.metric));
  assert.equal(metrics[0], 'Step time');
  assert.ok(metrics.length > 1);
  let hash = await page.evaluate(() => location.hash);
  assert.ok(hash.includes(`run=${LOOSE}&host=vm&tool=overview_page&base_run=${encodeURIComponent(ADDED).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}&base_host=vm`), hash);

  // Framework op stats: XLA's ops are new, TensorFlow's own kernels gone.
  await page.selectOption('#tool', 'framework_op_stats');
  await comparison(page, 'framework_op_stats');
  assert.ok(await page.locator('#compare-table tr.status-new').count() > 0, 'new rows');
  assert.ok(await page.locator('#compare-table tr.status-gone').count() > 0, 'gone rows');
  assert.match(await page.locator('#compare-table tr.status-new td[data-col="status"]').first().textContent(), /new/);
  // Largest change first, by size.
  const deltas = await numbers(page, 'compare-table', 'delta');
  assert.ok(isSorted(deltas.map(Math.abs), (a, b) => b - a), 'sorted by |change|');
  await page.click('#compare-table th[data-col="delta"] button');
  assert.ok(isSorted(await numbers(page, 'compare-table', 'delta'), (a, b) => b - a), 'sorted by change, largest first');
  await page.click('#compare-table th[data-col="key-2"] button');
  const names = await column(page, 'compare-table', 'key-2');
  assert.ok(isSorted(names, (a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), 'en')) || names.length > 0);
  await page.fill('#compare-filter', 'matmul');
  await page.waitForFunction(() => document.querySelectorAll('#compare-table tbody tr[data-row]').length > 0);
  const filtered = await page.$$eval('#compare-table tbody tr[data-row]', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td[data-col^="key-"]')].map((c) => c.textContent).join(' ')));
  assert.ok(filtered.every((k) => k.toLowerCase().includes('matmul')), 'the filter keeps matching rows');
  const csv = await downloadText(page, '#export-compare');
  assert.equal(csv.name, 'compare.csv');
  assert.match(csv.text.split('\n')[0], /^Side,Type,Operation,status,base_count,candidate_count,base_us,candidate_us,delta_us,delta_pct,share_of_change_pct/);
  assert.match(csv.text, /\nDevice,|\nHost,/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'compare-table.png'), fullPage: false });

  // Tools without a comparison say which tools compare.
  await page.selectOption('#tool', 'trace_viewer');
  await page.locator('#not-comparable', { hasText: 'Framework op stats' }).waitFor();
  await page.selectOption('#tool', 'framework_op_stats');
  await comparison(page, 'framework_op_stats');

  // The link reopens the comparison once the same files are opened again.
  hash = await page.evaluate(() => location.hash);
  assert.ok(hash.includes('tool=framework_op_stats&base_run=vm.xplane.pb%20%28'), hash);
  await page.reload();
  await page.setInputFiles('#open-files', CUSTOM_LOOP);
  await page.locator('#tool-framework_op_stats').waitFor({ timeout: 30_000 });
  await page.setInputFiles('#add-files', CUSTOM_LOOP_XLA);
  await comparison(page, 'framework_op_stats');
  assert.equal(await page.evaluate(() => location.hash), hash);

  // Swap: the baseline becomes the candidate.
  await page.click('#compare-swap');
  await comparison(page, 'framework_op_stats');
  assert.equal(await page.locator('#run').inputValue(), ADDED);
  assert.equal(await page.locator('#compare-base').inputValue(), pick(LOOSE, 'vm'));
  assert.ok((await page.locator('#side-candidate dd').first().textContent()).includes(`${ADDED} / vm`));

  // Leaving compare mode shows the tool's own view again.
  await page.click('#compare-leave');
  await page.locator('#tool-framework_op_stats').waitFor({ timeout: 30_000 });
  assert.doesNotMatch(await page.evaluate(() => location.hash), /base_run/);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a host compared with itself shows no change', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', CUSTOM_LOOP);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  await page.selectOption('#compare-base', pick(LOOSE, 'vm'));
  await comparison(page, 'overview_page');
  assert.equal(Number(await page.locator('#step-delta').getAttribute('data-value')), 0);
  assert.match(await page.locator('#step-delta').textContent(), /^0\.00 ms \(0\.0%\)$/);
  const changes = await page.$$eval('#compare-figures td.delta', (c) => c.map((x) => Number(x.dataset.value)));
  assert.ok(changes.length > 0 && changes.every((d) => d === 0));
  await page.selectOption('#tool', 'framework_op_stats');
  await comparison(page, 'framework_op_stats');
  assert.equal(await page.locator('#compare-table tr.status-new, #compare-table tr.status-gone').count(), 0);
  assert.ok((await numbers(page, 'compare-table', 'delta')).every((d) => d === 0));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('three files opened at once: the op-profile tree, a side without XLA, memory figures', async () => {
  const three = 'vm.xplane.pb + 2 more';
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#run=${encodeURIComponent(three)}&host=vm&tool=op_profile`);
  await page.setInputFiles('#open-files', [CUSTOM_LOOP_XLA, CUSTOM_LOOP, MI300X]);
  await page.locator('#tool-op_profile').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#run').inputValue(), three);
  // Two are vm.xplane.pb: hosts of one run, kept apart; "All hosts" is a side too.
  const mi300x = 'chi-mi300x-013.ord.vultr.cpe.ice.amd.com';
  assert.deepEqual(await page.$$eval('#host option', (o) => o.map((x) => x.value)), ['All hosts', mi300x, 'vm', 'vm (2)']);
  assert.equal(await page.locator(`#compare-base option[value="${pick(three, 'All hosts')}"]`).count(), 1);
  // A side without XLA has XProf's empty op profile (as both CPU-only sides here): nothing to compare, said so.
  await page.selectOption('#compare-base', pick(three, 'vm (2)'));
  await page.locator('#compare-notes', { hasText: 'Neither side has XLA ops in its op profile' }).waitFor({ timeout: 60_000 });
  await page.selectOption('#compare-base', pick(three, mi300x));
  await comparison(page, 'op_profile');
  assert.match(await page.locator('#compare-differences').textContent(), /Device: baseline/);
  // Categories show at first, largest change first; a category opens to its ops.
  const categories = page.locator('#compare-tree > details > details');
  assert.ok(await categories.count() > 0);
  const changes = await page.$$eval('#compare-tree > details > details > summary .delta', (c) => c.map((x) => Number(x.dataset.value)));
  assert.ok(isSorted(changes.map(Math.abs), (a, b) => b - a), 'largest change first');
  assert.equal(await categories.first().locator('.tree-leaf, details').count(), 0, 'ops are drawn when opened');
  await categories.first().locator('summary').click();
  await categories.first().locator('.tree-leaf, details').first().waitFor();
  await page.locator('#compare-tree').screenshot({ path: path.join(ARTIFACTS, 'compare-tree.png') });
  const csv = await downloadText(page, '#export-compare');
  assert.match(csv.text, /^path,status,base_count,candidate_count,base_us,candidate_us,delta_us/);

  await page.selectOption('#tool', 'memory_profile');
  await page.locator('#tool-compare[data-tool="memory_profile"], #error:not([hidden])').first().waitFor({ timeout: 60_000 });
  if (await page.locator('#tool-compare[data-tool="memory_profile"]').count()) {
    assert.ok(await page.locator('#compare-figures tbody tr, #no-figures').count() > 0);
  }
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('two PyTorch traces opened at once: overview, operators and the trace diff', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', [CONTROL, TEST]);
  await page.locator('#tool-overview_page, #tool-pytorch_overview').first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#run').inputValue(), 'control.json.gz + 1 more');
  // Two loose files are two hosts of one run.
  assert.deepEqual(await page.$$eval('#host option', (o) => o.map((x) => x.value)), ['All hosts', 'control', 'test']);
  await page.selectOption('#host', 'test');
  await page.selectOption('#compare-base', pick('control.json.gz + 1 more', 'control'));
  await comparison(page, 'overview_page');
  assert.ok(Number(await page.locator('#step-base').getAttribute('data-value')) > 0);
  assert.ok(Number(await page.locator('#step-candidate').getAttribute('data-value')) > 0);
  assert.match(await page.locator('#side-base dd').textContent(), /PyTorch trace/);
  assert.match(await page.locator('#compare-differences').textContent(), /Device: baseline .*A100.*, candidate .*V100/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'compare.png'), fullPage: true });
  // The README's picture: the selectors with the comparison below (from the Chromium run only).
  if (!isFirefox) {
    fs.mkdirSync(DOCS_IMAGES, { recursive: true });
    await page.screenshot({ path: path.join(DOCS_IMAGES, 'compare.png') });
  }

  // PyTorch operators, keyed by name.
  await page.selectOption('#tool', 'framework_op_stats');
  await comparison(page, 'framework_op_stats');
  assert.deepEqual(await page.$$eval('#compare-table thead th[data-col^="key-"]', (h) => h.map((x) => x.textContent.trim())), ['Operator']);

  // The trace diff is offered for two PyTorch traces.
  await page.locator('#tool option[value="trace_diff"]').waitFor({ state: 'attached' });
  await page.selectOption('#tool', 'trace_diff');
  await comparison(page, 'trace_diff');
  await page.fill('#trace-diff-filter', 'cudaMemcpyAsync');
  const rows = await page.$$eval('#trace-diff tbody tr[data-row]', (rows) => rows.map((r) => ({
    name: r.querySelector('td[data-col="name"]').textContent,
    diff: Number(r.querySelector('td[data-col="diff_counts"]').dataset.value),
    perIteration: Number(r.querySelector('td[data-col="diff_counts_per_iteration"]').dataset.value),
    change: r.querySelector('td[data-col="counts_change_categories"]').textContent,
  })));
  const memcpy = rows.find((r) => r.name === 'cudaMemcpyAsync');
  assert.ok(memcpy, 'cudaMemcpyAsync is listed');
  // Every iteration of each side (six each): 4,584 more calls, 764 per iteration as HTA's golden for one.
  assert.equal(memcpy.diff, 4584);
  assert.equal(memcpy.perIteration, 764);
  assert.equal(memcpy.change, '+');
  assert.match(await page.locator('#trace-diff-iterations').textContent(), /6 iterations/);
  await page.click('#trace-diff th[data-col="diff_duration"] button');
  const csv = await downloadText(page, '#export-compare');
  assert.equal(csv.name, 'trace_diff.csv');
  assert.match(csv.text, /^name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories\n/);
  assert.match(csv.text, /\ncudaMemcpyAsync,\d+,[\d.]+,\d+,[\d.]+,4584,/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'compare-trace-diff.png') });
  assert.match(await page.evaluate(() => location.hash), /tool=trace_diff&base_run=control\.json\.gz%20%2B%201%20more&base_host=control/);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a PyTorch trace compared with an XSpace says what differs', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', CUSTOM_LOOP);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  await page.setInputFiles('#add-files', CONTROL);
  await comparison(page, 'overview_page');
  const differences = await page.locator('#compare-differences').textContent();
  assert.match(differences, /Profile: baseline PyTorch trace, candidate XSpace/);
  assert.equal(await page.locator('#tool option[value="trace_diff"]').count(), 0, 'no trace diff for an XSpace');
  await page.selectOption('#tool', 'kernel_stats');
  await page.locator('#tool-compare[data-tool="kernel_stats"], #error:not([hidden])').first().waitFor({ timeout: 60_000 });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
