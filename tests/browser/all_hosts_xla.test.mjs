// Browser test of issue #14's all-hosts and no-XLA answers on the two-host
// TensorFlow BERT run (tf-gpu-multiworker-bert-xplane; its two workers'
// files are identical, so the one fixture is copied under both names):
// kernel stats of all hosts (the hosts' launches added up, or XProf's
// ALL_HOSTS rows with "One row per host", compared with the golden's
// occurrences and hosts' row count), the op profile of all hosts, and the
// XLA tools' plain "no XLA" messages instead of errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
const GOLDEN = path.join(DATA, 'goldens/tf-gpu-multiworker-bert-xplane/kernel_stats.ALL_HOSTS.json');
const HOSTS = ['34.83.195.179_6003', '34.83.195.180_6003'];

let env;
let dir;

before(async () => {
  env = await launch();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-all-hosts-'));
  const run = path.join(dir, 'plugins/profile/2020_06_09_12_00_00');
  fs.mkdirSync(run, { recursive: true });
  for (const host of HOSTS) fs.copyFileSync(NVIDIA_GPU, path.join(run, `${host}.xplane.pb`));
});

after(async () => {
  await env?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const column = (page, col) =>
  page.$$eval(`#kernel-stats tbody tr[data-row] td[data-col="${col}"]`, (c) => c.map((x) => x.textContent.trim()));

test('kernel stats of all hosts: added up by default, XProf rows per host on request', async () => {
  const golden = JSON.parse(fs.readFileSync(GOLDEN, 'utf8'));
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=kernel_stats`);
  await page.setInputFiles('#open-folder', dir);
  await page.locator('#kernel-stats tbody tr[data-row]').first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  // Merged: 15 kernels, each host's launches added up (the top kernel ran 194 times per host).
  assert.equal(await page.locator('#kernel-stats tbody tr[data-row]').count(), 15);
  assert.equal((await column(page, 'occurrences'))[0], '388');
  assert.ok((await column(page, 'host')).every((h) => h === 'all'));
  // XProf's rows: each host's kernels apart, the golden's 30 rows and counts.
  await page.locator('#kernels-per-host').check();
  await page.locator('#kernel-stats tbody tr[data-row]').nth(29).waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#kernel-stats tbody tr[data-row]').count(), 30);
  const occurrences = golden.rows.map((r) => r.c[10].v.toLocaleString('en-US'));
  assert.deepEqual(await column(page, 'occurrences'), occurrences);
  const hosts = await column(page, 'host');
  for (const host of HOSTS) assert.equal(hosts.filter((h) => h === host).length, 15, host);
  await page.screenshot({ path: path.join(ARTIFACTS, 'kernel-stats-all-hosts.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('XLA tools on a run without XLA say so, on all hosts and on one', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=op_profile`);
  await page.setInputFiles('#open-folder', dir);
  await page.locator('#tool-op_profile #no-xla-ops').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  assert.ok(await page.locator('#error').isHidden());
  await page.selectOption('#host', HOSTS[1]);
  await page.selectOption('#tool', 'hlo_stats');
  await page.locator('#tool-hlo_stats #no-hlo-ops').waitFor({ timeout: 30_000 });
  await page.selectOption('#tool', 'memory_viewer');
  await page.locator('#tool-memory_viewer').filter({ hasText: /records no XLA program/ }).waitFor({ timeout: 30_000 });
  assert.ok(await page.locator('#error').isHidden());
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
