// Browser tests of the roofline model on a real JAX profile from an AMD
// MI300X (GEMMs): the device's peaks, the chart (points, roofs, pixels in the
// categories' colours), hovering and selecting a point, the table, the step
// and infeed controls, the CSV, and a CPU-only profile's empty state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const MI300X_GEMM = path.join(DATA, 'xspace/external/tw003.xplane.pb');
const GOLDEN = JSON.parse(fs.readFileSync(path.join(DATA, 'goldens/jax-mi300x-gemm-xplane/roofline_model.json'), 'utf8'));
const JAX_CPU = path.join(DATA, 'xspace/jax_mlp');
// chart::PALETTE[0]: the first category's colour (the program).
const BLUE = [0, 114, 178];

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

async function pixels(page, rgb) {
  return page.$eval('#roofline-chart', (canvas, rgb) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let matching = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) matching++;
    }
    return matching;
  }, rgb);
}

/** XProf's records of the whole profile with infeed/outfeed, as (operation, program id). */
function goldenTotal() {
  const ids = GOLDEN[0].cols.map((c) => c.id);
  return GOLDEN[0].rows
    .map((r) => Object.fromEntries(ids.map((id, i) => [id, r.c[i].v])))
    .filter((r) => r.step === 'Total' && r.include_infeed_outfeed);
}

test('roofline model: peaks, chart, hover, select a row, controls and CSV', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=roofline_model`);
  await page.setInputFiles('#open-files', MI300X_GEMM);
  await page.locator('#tool-roofline_model').waitFor({ timeout: 30_000 });

  // The device's peaks as XProf states them (p: 1.30744e+06 GFLOP/s, 2479.55 GiB/s, ridge 491.077).
  const peaks = page.locator('#roofline-peaks');
  assert.equal(await peaks.locator('[data-field="device"] dd').textContent(), GOLDEN[0].p.device_type);
  assert.match(await peaks.locator('[data-field="peak-flops"] dd').textContent(), /^1,307,44\d GFLOP\/s$/);
  assert.match(await peaks.locator('[data-field="peak-hbm"] dd').textContent(), /^2,479\.\d GiB\/s \(ridge point 491\.1 FLOP\/byte\)$/);
  assert.match(await peaks.locator('[data-field="peak-shm"] dd').textContent(), /^76,103\.\d GiB\/s/);
  // XProf's no-step warning.
  assert.match(await page.locator('#diagnostics').textContent(), /No step marker observed/);

  // The table: XProf's program and ops, in its order.
  const expected = goldenTotal();
  const ops = await page.$$eval('#roofline-table tbody tr[data-row] td[data-col="operation"]', (c) => c.map((x) => x.textContent));
  assert.deepEqual(ops, expected.map((r) => r.operation));
  const programs = await page.$$eval('#roofline-table tbody tr[data-row] td[data-col="program"]', (c) => c.map((x) => x.textContent));
  assert.deepEqual(programs.slice(1), expected.slice(1).map((r) => r.hlo_module_id));

  // The chart: one point per record with FLOPs and bytes (the program and the GEMM fusion), three roofs.
  const chart = page.locator('#roofline-chart');
  await page.locator('#roofline-chart[data-points]').waitFor();
  const plottable = expected.filter((r) => r.measured_flop_rate > 0 && r.operational_intensity > 0);
  assert.equal(Number(await chart.getAttribute('data-points')), plottable.length);
  assert.equal(await chart.getAttribute('data-roofs'), '3');
  assert.ok((await pixels(page, BLUE)) > 10, 'the program point is drawn in the first colour');
  const points = page.locator('.roofline-point');
  assert.equal(await points.count(), plottable.length);
  assert.match(await chart.getAttribute('aria-label'), /under 3 roofs/);
  assert.deepEqual(
    await page.$$eval('.legend.categories li', (l) => l.map((x) => x.dataset.item)).then((c) => c.slice(0, 1)),
    ['Program'],
  );

  // Hover shows the op; a click marks its row.
  const gemm = plottable.find((r) => r.category !== 'Program');
  const point = page.locator(`.roofline-point[data-name="${gemm.operation}"]`);
  await point.hover();
  const card = page.locator('#roofline-hover');
  await card.waitFor();
  assert.match(await card.textContent(), new RegExp(gemm.operation.replace(/\./g, '\\.')));
  assert.match(await card.textContent(), new RegExp(gemm.category));
  assert.match(await card.textContent(), new RegExp(gemm.bound_by));
  await page.screenshot({ path: path.join(ARTIFACTS, 'roofline-model.png'), fullPage: true });
  assert.equal(await page.locator('#roofline-table tr.selected').count(), 0);
  await point.click();
  const selected = page.locator('#roofline-table tr.selected');
  await selected.waitFor();
  assert.equal(await selected.locator('td[data-col="operation"]').textContent(), gemm.operation);
  assert.equal(await point.getAttribute('aria-pressed'), 'true');

  // Sorting by FLOP rate puts the GEMM first after a click on the heading.
  await page.locator('#roofline-table th[data-col="flop-rate"] button').click();
  const firstOp = await page.locator('#roofline-table tbody tr[data-row] td[data-col="operation"]').first().textContent();
  assert.equal(firstOp, gemm.operation);

  // One step choice (no steps: the whole profile); without infeed/outfeed the same ops (there are none).
  assert.deepEqual(await page.$$eval('#roofline-step option', (o) => o.map((x) => x.value)), ['Total']);
  await page.locator('#roofline-feeds').uncheck();
  await page.locator('#roofline-table tr.selected').waitFor({ state: 'detached' });
  assert.equal(await page.locator('#roofline-table tbody tr[data-row]').count(), expected.length);

  // The CSV: XProf's columns, both passes over the records.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-roofline')]);
  assert.equal(download.suggestedFilename(), 'roofline_model.csv');
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\r\n');
  assert.equal(csv[0], GOLDEN[0].cols.map((c) => c.label).join(','));
  assert.equal(csv.length, 1 + GOLDEN[0].rows.length);

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('roofline model: a CPU-only profile says there is no device', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=roofline_model`);
  await page.setInputFiles('#open-folder', JAX_CPU);
  await page.locator('#no-roofline').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#no-roofline').textContent(), /CPU only/);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
