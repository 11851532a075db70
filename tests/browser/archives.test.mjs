// Issue 46: a tar archive of traces, `ranks.tar.gz` (tests/data/tar,
// synthetic: the two ranks of collectives-synthetic packed by GNU tar),
// chosen with the file picker opens as one run with a host per member; and
// the two processes of one real capture (tests/data/gpu_h100/multi/p2) in
// two run folders, as a multi-host JAX job writes its hosts, are offered
// combined as the run they were.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { launch, openPage, assertOwnOrigin, DATA } from './harness.mjs';

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

test('a .tar.gz of two ranks opens as one run of two hosts', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=info`);
  await page.setInputFiles('#open-files', path.join(DATA, 'tar/ranks.tar.gz'));
  await page.locator('#host option[value="rank-1"]').waitFor({ state: 'attached', timeout: 30_000 });
  const runs = await page.$$eval('#run option', (o) => o.map((x) => x.textContent.trim()));
  assert.deepEqual(runs, ['ranks.tar.gz']);
  const hosts = await page.$$eval('#host option', (o) => o.map((x) => x.value));
  assert.deepEqual(hosts.filter((h) => h.startsWith('rank')), ['rank-0', 'rank-1']);
  assert.equal(hosts.length, 3, `all hosts and the two ranks: ${hosts}`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('runs captured together in two run folders are offered combined', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-combined-'));
  const from = path.join(DATA, 'gpu_h100/multi/p2/plugins/profile/2026_11_26_10_42_20');
  for (const [run, host] of [['2026_11_26_10_42_20', 'vm'], ['2026_11_26_10_42_21', 'vm_1760']]) {
    fs.mkdirSync(path.join(dir, 'plugins/profile', run), { recursive: true });
    const raw = zlib.gunzipSync(fs.readFileSync(path.join(from, `${host}.xplane.pb.gz`)));
    fs.writeFileSync(path.join(dir, 'plugins/profile', run, `${host}.xplane.pb`), raw);
  }
  try {
    const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=info`);
    await page.setInputFiles('#open-folder', dir);
    const combined = 'combined: 2026_11_26_10_42_20 + 2026_11_26_10_42_21';
    await page.locator(`#run option[value="${combined}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    await page.selectOption('#run', combined);
    await page.locator('#host option[value="vm_1760"]').waitFor({ state: 'attached', timeout: 30_000 });
    const hosts = await page.$$eval('#host option', (o) => o.map((x) => x.value));
    assert.deepEqual(hosts, ['All hosts', 'vm', 'vm_1760']);
    assertOwnOrigin(seen, env.server.url);
    assert.deepEqual(seen.errors, []);
    await close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
