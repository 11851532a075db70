// Browser tests of the step-based tools on a TPU profile (JAX inference on a
// TPU v6e, 4 chips, no step markers): the overview shows XProf's TPU analysis
// (duty cycle 86.5 %) in TPU terms, and the input pipeline analyzer and pod
// viewer speak of TensorCores and infeed rather than GPU kernels.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const TPU_V6E = path.join(DATA, 'xspace/external/tpu_inference_2.xplane.pb');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

async function openTool(tool) {
  const opened = await openPage(env.browser, `${env.server.url}/#tool=${tool}`);
  await opened.page.setInputFiles('#open-files', TPU_V6E);
  await opened.page.locator(`#tool-${tool}`).waitFor({ timeout: 30_000 });
  return opened;
}

test('overview: TPU duty cycle and idle shares, in TPU terms', async () => {
  const { page, seen, close } = await openTool('overview_page');
  // XProf 2.24's overview of this file: duty cycle 86.5 %, device idle 13.4 %, host idle 100.0 %.
  assert.equal(await page.locator('#tpu-duty-cycle').textContent(), '86.5%');
  assert.equal(await page.locator('#tpu-idle').textContent(), '13.4%');
  assert.equal(await page.locator('#host-idle').textContent(), '100.0%');
  // The runtime recorded an MXU utilisation (0) and no HBM one.
  assert.equal(await page.locator('#mxu-utilization').textContent(), '0.0%');
  assert.equal(await page.locator('#hbm-utilization').count(), 0);
  const summary = await page.locator('#performance-summary').textContent();
  assert.match(summary, /TPU duty cycle/);
  assert.match(summary, /TensorCore compute/);
  assert.match(summary, /infeed/);
  // GPU terms are not offered for a TPU: no kernel launch row, no 16/32-bit precision block.
  assert.equal(await page.locator('#step-breakdown tr[data-category="kernel-launch"]').count(), 0);
  assert.equal(await page.locator('#precision').count(), 0);
  assert.equal(await page.locator('#env-device-type').textContent(), 'TPU v6 Lite');
  assert.match(await page.locator('#run-environment').textContent(), /TPU cores/);
  assert.match(await page.locator('#top-ops thead').textContent(), /bf16/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'tpu-overview.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('input pipeline and pod viewer: TensorCore and infeed wording', async () => {
  let { page, seen, close } = await openTool('input_pipeline_analyzer');
  assert.match(await page.locator('#device-side-title').textContent(), /TensorCore step time.*infeed/);
  assert.deepEqual(seen.errors, []);
  await close();

  ({ page, seen, close } = await openTool('pod_viewer'));
  // No TPU steps in this profile: the empty state says where TPU steps come from.
  assert.match(await page.locator('#no-pod-steps').textContent(), /TPU steps come from the TPU runtime/);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
