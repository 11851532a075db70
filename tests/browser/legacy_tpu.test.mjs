// Browser tests of the legacy TPU tool files: a Cloud TPU run's
// <host>.overview_page.json, .input_pipeline.json, .pod_viewer.json and
// <host>.trace, opened as a folder. The files are SYNTHETIC, in the TPU
// tools' shapes (tests/scripts/synthetic_tpu_tools.py); the
// numbers checked are read from the files here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, offeredTools as offered, DATA, ARTIFACTS } from './harness.mjs';

const SET = path.join(DATA, 'legacy/synthetic-tpu-tools');
const read = (name) => JSON.parse(fs.readFileSync(path.join(SET, name), 'utf8'));

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** The cells of column `id` of a DataTable in a TPU tool file. */
function cells(table, id) {
  const at = table.cols.findIndex((c) => c.id === id);
  return table.rows.map((r) => r.c[at].v);
}

test('a legacy TPU set: each step on the TPU, utilisation, pod tables and the .trace', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-folder', SET);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#host').inputValue(), 'localhost');
  assert.deepEqual(await offered(page), ['advisor', 'overview_page', 'input_pipeline_analyzer', 'pod_viewer', 'trace_viewer', 'info']);

  // Overview: the TensorCore column of every step is the file's, not 0 ms.
  const overview = read('localhost.overview_page.json');
  const steps = overview.find((t) => t.cols && t.cols.some((c) => c.id === 'stepnum'));
  const names = cells(steps, 'stepnum');
  const tc = cells(steps, 'tcComputeTimeMs');
  const bc = cells(steps, 'bcComputeTimeMs');
  await page.locator('#tpu-steps').waitFor();
  for (const [i, step] of names.entries()) {
    const row = page.locator(`#tpu-steps tbody tr[data-key="${step}"]`);
    assert.equal(Number(await row.locator('td[data-col="tc-compute"]').getAttribute('data-value')), tc[i]);
    assert.equal(Number(await row.locator('td[data-col="sc-compute"]').getAttribute('data-value')), bc[i]);
  }
  assert.match(await page.locator('#tpu-steps thead').textContent(), /BarnaCore compute/);
  const compute = Number(await page.locator('#step-breakdown tr[data-category="device-compute"] td.avg').getAttribute('data-value'));
  assert.equal(compute, Number(steps.p.tc_compute_ms_average));
  assert.ok(compute > 0);
  const mxu = await page.locator('#tpu-summary [data-figure="mxu"] dd').getAttribute('data-value');
  assert.equal(Number(mxu), parseFloat(overview[0].p.mxu_utilization_percent));
  assert.equal(await page.locator('#env-device-type').textContent(), 'TPU v2');
  await page.screenshot({ path: path.join(ARTIFACTS, 'legacy-tpu-overview.png'), fullPage: true });

  // Input pipeline: the first TPU tools' noninfeed / infeed columns.
  await page.selectOption('#tool', 'input_pipeline_analyzer');
  await page.locator('#tool-input_pipeline_analyzer').waitFor({ timeout: 30_000 });
  const input = read('localhost.input_pipeline.json')[0];
  const first = page.locator(`#tpu-steps tbody tr[data-key="${cells(input, 'stepnum')[0]}"]`);
  assert.equal(Number(await first.locator('td[data-col="tc-compute"]').getAttribute('data-value')), cells(input, 'noninfeedTimeMs')[0]);
  assert.equal(Number(await first.locator('td[data-col="tc-infeed"]').getAttribute('data-value')), cells(input, 'infeedTimeMs')[0]);

  // Pod viewer: the named per-core times and the all-reduce and channel tables.
  await page.selectOption('#tool', 'pod_viewer');
  await page.locator('#tool-pod_viewer').waitFor({ timeout: 30_000 });
  const pod = read('localhost.pod_viewer.json').podStatsSequence.podStatsMap[0];
  assert.equal(await page.locator('#tpu-all-reduce tbody tr').count(), pod.allReduceOpDb.length);
  assert.equal(await page.locator('#tpu-all-reduce tbody tr td[data-col="name"]').first().textContent(), pod.allReduceOpDb[0].name);
  assert.equal(await page.locator('#tpu-channels tbody tr').count(), pod.channelDb.length);
  assert.equal(await page.locator('#tpu-core-stats tbody tr').count(), Object.keys(pod.podStatsPerCore).length);

  // The trace viewer: the .trace's devices and events.
  await page.selectOption('#tool', 'trace_viewer');
  await page.locator('#tool-trace_viewer').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#trace-layout').getAttribute('data-events'), '6');
  await page.fill('#trace-search', 'fusion.12');
  await page.locator('#trace-search-count').filter({ hasText: /match/ }).waitFor();
  await page.click('#trace-search-next');
  await page.locator('#trace-details .event-name').filter({ hasText: 'fusion.12' }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'legacy-tpu-trace.png') });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
