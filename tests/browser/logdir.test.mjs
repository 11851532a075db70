// A Proflens page hosted beside a log directory lists its runs from the
// `proflens-index.json` that `proflens-collect index` writes (?logdir=URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA } from './harness.mjs';

const COLLECT = process.env.PROFLENS_COLLECT ?? path.resolve(DATA, '../../target/debug/proflens-collect');
const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');

let env;
let logdir;

before(async () => {
  // Two runs: one of two GPU workers, one of a CPU host.
  logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-logdir-'));
  const gpuRun = path.join(logdir, 'plugins/profile/2026_11_23_06_00_00');
  const cpuRun = path.join(logdir, 'plugins/profile/2026_11_23_07_00_00');
  fs.mkdirSync(gpuRun, { recursive: true });
  fs.mkdirSync(cpuRun, { recursive: true });
  fs.copyFileSync(NVIDIA_GPU, path.join(gpuRun, 'worker0.xplane.pb'));
  fs.copyFileSync(NVIDIA_GPU, path.join(gpuRun, 'worker1.xplane.pb'));
  fs.copyFileSync(INPUT_BOUND, path.join(cpuRun, 'vm.xplane.pb'));
  assert.ok(fs.existsSync(COLLECT), `proflens-collect is built (${COLLECT}); set PROFLENS_COLLECT`);
  execFileSync(COLLECT, ['index', logdir]);
  env = await launch({ logs: logdir });
});

after(async () => {
  await env?.close();
  if (logdir) fs.rmSync(logdir, { recursive: true, force: true });
});

test('?logdir= lists the served runs from the index and loads a host on demand', async () => {
  const index = JSON.parse(fs.readFileSync(path.join(logdir, 'proflens-index.json'), 'utf8'));
  assert.equal(index.runs.length, 2);
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/?logdir=/logs/#tool=overview_page`);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  const runs = await page.$$eval('#run option', (o) => o.map((x) => x.value));
  assert.deepEqual(runs.sort(), ['2026_11_23_06_00_00', '2026_11_23_07_00_00']);
  await page.selectOption('#run', '2026_11_23_06_00_00');
  await page.locator('#host option[value="worker1"]').waitFor({ state: 'attached', timeout: 30_000 });
  await page.selectOption('#host', 'worker1');
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  await page.selectOption('#tool', 'kernel_stats');
  await page.locator('#tool-kernel_stats table#kernel-stats tbody tr').first().waitFor({ timeout: 30_000 });
  // The profiles came from the log directory, on the page's own origin.
  assert.ok(seen.requests.some((u) => u.endsWith('/logs/proflens-index.json')));
  assert.ok(seen.requests.some((u) => u.endsWith('/logs/plugins/profile/2026_11_23_06_00_00/worker1.xplane.pb')));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('?logdir= on another site is refused with a message', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/?logdir=https://example.com/logs/`);
  await page.locator('#error', { hasText: 'on another site' }).waitFor({ timeout: 30_000 });
  assertOwnOrigin(seen, env.server.url);
  await close();
});

test('?logdir= without an index says how to make one', async () => {
  const { page, close } = await openPage(env.browser, `${env.server.url}/?logdir=/no-such-logdir/`);
  await page.locator('#error', { hasText: 'proflens-collect index' }).waitFor({ timeout: 30_000 });
  await close();
});
