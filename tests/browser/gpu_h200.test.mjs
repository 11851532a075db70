// The CUPTI XSpace recorded on a real H200 by `proflens-collect run`
// (tests/data/gpu_h200): opened in the page, kernel stats list every kernel
// CUPTI reported (counted in the raw records the same process dumped) and
// the cuBLAS GEMMs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA } from './harness.mjs';

const CUPTI = path.join(DATA, 'gpu_h200/torch_cupti');
const XSPACE = path.join(CUPTI, 'plugins/profile/2026_11_26_05_03_02/vm.xplane.pb');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** Kernel records (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10) in the dump: entries `R len bytes` / `S ptr len bytes`. */
function rawKernelCount() {
  const b = fs.readFileSync(path.join(CUPTI, 'cupti_records.bin'));
  let at = 0;
  let kernels = 0;
  while (at < b.length) {
    if (b[at] === 0x52) {
      const len = b.readUInt32LE(at + 1);
      if (b.readUInt32LE(at + 5) === 10) kernels++;
      at += 5 + len;
    } else {
      at += 13 + b.readUInt32LE(at + 9);
    }
  }
  return kernels;
}

test('the CUPTI XSpace of an H200 shows its kernels in kernel stats', async () => {
  const expected = rawKernelCount();
  assert.ok(expected > 0);
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=kernel_stats`);
  await page.setInputFiles('#open-files', XSPACE);
  await page.locator('#tool-kernel_stats #kernel-stats').waitFor({ timeout: 30_000 });
  const counts = await page.$$eval('#kernel-stats tbody tr[data-row] td[data-col="occurrences"]', (c) => c.map((x) => Number(x.textContent.replace(/,/g, ''))));
  assert.equal(counts.reduce((a, b) => a + b, 0), expected);
  const names = await page.$$eval('#kernel-stats tbody tr[data-row] td[data-col="kernel"]', (c) => c.map((x) => x.textContent));
  assert.ok(names.some((n) => n.includes('gemm')), names.slice(0, 5).join(','));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
