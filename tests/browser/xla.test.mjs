// Browser tests of the XLA tools — op profile, HLO op stats and memory
// viewer — on a real JAX profile from an AMD MI300X (a 3-D convolution).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, sharedPage, showTool, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const MI300X_CONV = path.join(DATA, 'xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb');

let env;

/** The profile, opened once for the three tools: the first asked for in the URL, the others chosen. */
const profile = sharedPage(async () => {
  const opened = await openPage(env.browser, `${env.server.url}/#tool=op_profile`);
  await opened.page.setInputFiles('#open-files', MI300X_CONV);
  await opened.page.locator('#tool-op_profile').waitFor({ timeout: 30_000 });
  return opened;
});

before(async () => {
  env = await launch();
});

after(async () => {
  await profile.close();
  await env?.close();
});

/** The profile's page showing `tool`. */
async function openTool(tool) {
  const opened = await profile();
  await showTool(opened.page, tool);
  return opened;
}

const rowNames = (page) => page.$$eval('#op-profile-tree .op-row[role="treeitem"]', (r) => r.map((x) => x.dataset.name));

test('op profile: expand the tree, limit it, keep the top 90% and read an op card', async () => {
  const { page, seen } = await openTool('op_profile');
  // Root open: IDLE and the program below it, longest first.
  assert.deepEqual(await rowNames(page), ['by_program', 'IDLE', 'jit_forward_3d_conv(15)']);
  assert.match(await page.locator('.op-row[data-name="by_program"] .op-name').textContent(), /All XLA ops/);
  const program = page.locator('.op-row[data-name="jit_forward_3d_conv(15)"]');
  assert.equal(await program.getAttribute('aria-expanded'), 'false');
  await program.click();
  assert.equal(await program.getAttribute('aria-expanded'), 'true');
  const categories = await rowNames(page);
  assert.ok(categories.includes('input fusion') && categories.includes('custom-call'), categories.join(','));
  // The program's share of the time has a bar as wide as its percentage.
  const share = await program.locator('.op-value').textContent();
  const width = await program.locator('.op-bar').evaluate((b) => b.style.width);
  assert.equal(parseFloat(width).toFixed(1), parseFloat(share).toFixed(1));

  await page.locator('.op-row[data-name="custom-call"]').click();
  const conv = page.locator('.op-row[data-name="cudnn-conv.1.0"]');
  await conv.waitFor();
  // FLOPS utilisation is coloured on the red→green scale.
  assert.match(await conv.locator('.op-flops').evaluate((e) => getComputedStyle(e).color), /^rgb\(/);
  await conv.hover();
  const card = page.locator('#op-detail');
  await card.locator('.op-detail-name', { hasText: 'cudnn-conv.1.0' }).waitFor();
  assert.equal(await card.locator('.op-category').textContent(), 'custom-call');
  assert.match(await card.locator('.op-expression').textContent(), /custom_call_target="__cudnn\$convForward"/);
  assert.equal(await card.locator('.op-layout').textContent(), 'bf012_oi012->bf012');
  assert.equal(await card.locator('.op-padding').textContent(), '1_1x1_1x1_1');
  await page.screenshot({ path: path.join(ARTIFACTS, 'op-profile.png'), fullPage: true });

  // The slider: one op per node hides the rest behind a "more" row.
  const before = (await rowNames(page)).length;
  await page.locator('#op-profile-shown').fill('1');
  await page.locator('#op-profile-tree .op-more').first().waitFor();
  assert.ok((await rowNames(page)).length < before);
  await page.locator('#op-profile-shown').fill('100');
  // Excluding idle time removes the IDLE node.
  await page.locator('#op-profile-idle').uncheck();
  assert.ok(!(await rowNames(page)).includes('IDLE'));
  // The top-90% toggle keeps the categories that make up 90% of the program: not the small loop fusion.
  assert.ok((await rowNames(page)).includes('loop fusion'));
  await page.locator('#op-profile-top90').check();
  const top = await rowNames(page);
  assert.ok(!top.includes('loop fusion'), top.join(','));
  assert.ok(top.includes('input fusion') && top.includes('custom-call'), top.join(','));
  // Grouping by category changes the first level.
  await page.selectOption('#op-profile-group', 'category');
  const byCategory = await rowNames(page);
  assert.ok(byCategory.includes('input fusion') && !byCategory.includes('jit_forward_3d_conv(15)'), byCategory.join(','));

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('HLO op stats: sorted by self time, filter, sort, expression on hover and CSV', async () => {
  const { page, seen } = await openTool('hlo_stats');
  const col = (c) => page.$$eval(`#hlo-stats tbody tr[data-row] td[data-col="${c}"]`, (x) => x.map((e) => e.textContent.trim()));
  const ops = await col('op');
  assert.equal(ops[0], 'input_transpose_fusion');
  assert.ok(ops.includes('cudnn-conv.1.0'));
  const title = await page.locator('#hlo-stats tbody tr[data-row] td[data-col="op"]').first().getAttribute('title');
  assert.match(title, /^%input_transpose_fusion = bf16\[55862,5120\]/);
  await page.fill('#hlo-filter', 'custom-call');
  assert.deepEqual(await col('op'), ['cudnn-conv.1.0']);
  await page.fill('#hlo-filter', '');
  await page.click('#hlo-stats th[data-col="occurrences"] button');
  const counts = (await col('occurrences')).map((v) => Number(v.replace(/,/g, '')));
  assert.ok(counts.every((v, i) => i === 0 || counts[i - 1] >= v), counts.join(','));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-hlo-stats')]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  assert.equal(download.suggestedFilename(), 'hlo_stats.csv');
  assert.match(csv, /^Rank,Program id,HLO op category,HLO op name,/);
  for (const op of ops) assert.ok(csv.includes(`,${op},`), op);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});

test('memory viewer: module selector, peak, chart with hover card, largest buffers', async () => {
  const { page, seen } = await openTool('memory_viewer');
  const modules = await page.$$eval('#memory-viewer-module option', (o) => o.map((x) => x.value));
  assert.ok(modules.includes('jit_forward_3d_conv(15)'), modules.join(','));
  assert.equal(await page.locator('#memory-viewer-module').inputValue(), 'jit_forward_3d_conv(15)');
  assert.equal(await page.locator('#memory-viewer-facts [data-field="peak"]').textContent(), '1,104.49 MiB');
  // XProf's peak is reached by the convolution: the point after it.
  assert.equal(await page.locator('#memory-viewer-facts [data-field="peak-at"]').textContent(), '3 (after cudnn-conv.1.0)');
  const canvas = page.locator('#memory-viewer-chart');
  await canvas.waitFor();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  const card = page.locator('#memory-viewer-tooltip');
  await card.waitFor();
  assert.match(await card.textContent(), /Program point \d+/);
  assert.match(await card.locator('[data-field="live"]').textContent(), / MiB$/);
  const sizes = await page.$$eval('#memory-viewer-buffers tbody tr[data-row] td[data-col="size"]', (c) => c.map((x) => Number(x.textContent.replace(/,/g, ''))));
  assert.ok(sizes.length > 0 && sizes.every((v, i) => i === 0 || sizes[i - 1] >= v), sizes.join(','));
  await page.screenshot({ path: path.join(ARTIFACTS, 'memory-viewer.png'), fullPage: true });
  // Another module comes from the worker on request.
  const other = modules.find((m) => m !== 'jit_forward_3d_conv(15)');
  await page.selectOption('#memory-viewer-module', other);
  await page.locator('#memory-viewer-summary-title', { hasText: other.replace(/\(\d+\)$/, '') }).waitFor({ timeout: 30_000 });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
});
