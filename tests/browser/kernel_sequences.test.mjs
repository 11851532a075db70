// Browser test of the Kernel sequences tool on rank 0 of the two-rank
// PyTorch job (tests/data/kineto/kineto-multirank-sampled/sampled_rank-0.json.gz),
// against the counts of the independent Python script in the header of
// tests/kernel_sequences.rs (not Proflens's output): four sequences, their
// counts, GPU µs and share of the trace's 302,241 µs of GPU time, sorting
// and the CSV.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const RANK_0 = path.join(DATA, 'kineto/kineto-multirank-sampled/sampled_rank-0.json.gz');

// The script's output: count, GPU µs, CPU µs, operator, number of kernels.
const EXPECTED = [
  [2, 303, 232, 'aten::repeat_interleave', 4],
  [2, 49, 483, 'aten::binary_cross_entropy_with_logits', 3],
  [1, 71, 18502, 'aten::_foreach_add_', 6],
  [1, 49, 117093, 'aten::_foreach_mul_', 7],
];
const GPU_TIME_US = 302241;

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const column = (page, col) =>
  page.$$eval(`#kernel-sequences-table tbody tr[data-row] td[data-col="${col}"]`, (cells) =>
    cells.map((c) => c.textContent.trim()),
  );

async function downloadText(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: fs.readFileSync(await download.path(), 'utf8') };
}

test('kernel sequences of one rank: counts, GPU time and share as counted by hand, sorting, CSV', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=kernel_sequences`);
  await page.setInputFiles('#open-files', RANK_0);
  await page.locator('#tool-kernel-sequences #kernel-sequences-table').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#tool').inputValue(), 'kernel_sequences');
  assert.deepEqual(await column(page, 'operator'), EXPECTED.map((r) => r[3]));
  assert.deepEqual(await column(page, 'count'), EXPECTED.map((r) => String(r[0])));
  assert.deepEqual(await column(page, 'gpu-total'), EXPECTED.map((r) => r[1].toLocaleString('en-US')));
  assert.deepEqual(await column(page, 'cpu-total'), EXPECTED.map((r) => r[2].toLocaleString('en-US')));
  assert.deepEqual(await column(page, 'kernels'), EXPECTED.map((r) => String(r[4])));
  assert.deepEqual(await column(page, 'gpu-mean'), EXPECTED.map((r) => (r[1] / r[0]).toFixed(1)));
  // 303 of 302,241 µs is 0.1 %; the others under 0.05 % read "<0.1%".
  assert.deepEqual(await column(page, 'share'), ['0.1%', '<0.1%', '<0.1%', '<0.1%']);
  // The sequence is a numbered list of its kernels, one per line.
  const first = await page.$eval(
    '#kernel-sequences-table tbody tr[data-row] td[data-col="sequence"]',
    (c) => c.textContent,
  );
  const lines = first.split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[0], /^1\. void at_cuda_detail::cub::DeviceScanInitKernel</);
  assert.equal(lines[2], '3. void compute_cuda_kernel<long>(long*, long*, long*, long, long)');
  const summary = await page.locator('#kernel-sequences-summary').textContent();
  assert.match(summary, /^4 sequences of 3 or more kernels, from 6 calls of the 492 outermost aten:: calls/);
  assert.ok(summary.includes(`(472 of ${GPU_TIME_US.toLocaleString('en-US')} µs)`), summary);

  await page.screenshot({ path: path.join(ARTIFACTS, 'kernel_sequences.png'), fullPage: true });

  // Sorting by CPU time, largest first.
  await page.click('#kernel-sequences-table th[data-col="cpu-total"] button');
  assert.deepEqual(await column(page, 'operator'), [
    'aten::_foreach_mul_', 'aten::_foreach_add_', 'aten::binary_cross_entropy_with_logits', 'aten::repeat_interleave',
  ]);
  // Filtering by a kernel's name.
  await page.fill('#kernel-sequences-filter', 'compute_cuda_kernel');
  assert.deepEqual(await column(page, 'operator'), ['aten::repeat_interleave']);
  await page.fill('#kernel-sequences-filter', '');

  const csv = await downloadText(page, '#export-kernel-sequences');
  assert.equal(csv.name, 'kernel_sequences.csv');
  const lines2 = csv.text.trim().split('\n');
  assert.equal(lines2[0], 'rank,operator,kernels,num_kernels,count,gpu_total_us,gpu_mean_us,gpu_share,cpu_total_us');
  assert.equal(lines2.length, 1 + EXPECTED.length);
  assert.match(lines2[1], /^1,aten::repeat_interleave,".*",4,2,303,151\.5,0\.00100\d*,232$/);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
