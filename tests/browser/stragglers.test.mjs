// Browser test of the Stragglers tool on the two-rank PyTorch job, against
// HTA 0.5.0's get_potential_stragglers golden (tests/data/kineto/
// kineto-multirank-sampled/goldens): the rank named, and each rank's start
// of the metric kernel in µs (whole µs, exact).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, offeredTools, DATA, ARTIFACTS } from './harness.mjs';

const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const column = (page, col) =>
  page.$$eval(`#stragglers-table tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));

test('stragglers of a two-rank job: the late rank and its kernel, as HTA finds them', async () => {
  const golden = JSON.parse(fs.readFileSync(path.join(MULTI_RANK, 'goldens/hta_potential_stragglers.json'), 'utf8'));
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=stragglers`);
  await page.setInputFiles('#open-folder', MULTI_RANK);
  await page.locator('#tool-stragglers').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  const [late] = golden.potential_stragglers;
  assert.match(await page.locator('#stragglers-verdict').textContent(), new RegExp(`^Potential straggler: rank ${late} started`));
  const rows = golden.candidate_metric.rows;
  assert.equal(await page.locator('#stragglers-kernel').textContent(), `${rows[0].name} (stream ${rows[0].stream})`);
  assert.deepEqual(await column(page, 'rank'), rows.map((r) => String(r.rank)));
  assert.deepEqual(await column(page, 'start'), rows.map((r) => r.ts.toLocaleString('en-US')));
  assert.deepEqual(await column(page, 'straggler'), rows.map((r) => (r.rank === late ? 'yes' : 'no')));
  await page.screenshot({ path: path.join(ARTIFACTS, 'stragglers.png'), fullPage: true });
  // One rank alone has no stragglers: the tool is not offered there, and
  // the page says why rather than showing an empty table.
  await page.selectOption('#host', 'sampled_rank-0');
  await page.locator('#error').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#error').textContent(), /compares the ranks of one PyTorch job/);
  assert.ok(!(await offeredTools(page)).includes('stragglers'));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
