// Browser test of the Critical path tool on a one-step PyTorch trace
// (BERT-small on an H100, ProfilerStep#6 of 4,425 µs). HTA 0.5.0's
// critical_path_analysis does not run under current pandas, so there is no
// golden: the numbers checked are Proflens's (the same as `proflens tool …
// critical_path --format json`), and what must hold whatever they are — the
// breakdown adds up to the step, the segments tile it, the CSV has a row per
// segment.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, offeredTools, DATA, ARTIFACTS } from './harness.mjs';

const BERT_H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const num = (text) => Number(text.replace(/,/g, '').replace('−', '-'));

const column = (page, col) =>
  page.$$eval(`#critical-path-table tbody tr[data-row] td[data-col="${col}"]`, (cells) => cells.map((c) => c.textContent.trim()));

test('critical path of a PyTorch step: breakdown by kind, the path as a table, CSV', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=critical_path`);
  await page.setInputFiles('#open-files', BERT_H100);
  await page.locator('#tool-critical_path').waitFor({ timeout: 60_000 });
  assert.ok((await offeredTools(page)).includes('critical_path'));
  const summary = await page.locator('#critical-path-summary').textContent();
  const m = summary.match(/^ProfilerStep#6 lasts 4,425 µs; its critical path has ([\d,]+) segments\. HTA's length of the path .* is ([\d,]+) µs\.$/);
  assert.ok(m, summary);
  const segments = num(m[1]);
  // The breakdown: each kind's time, adding up to the step.
  const breakdown = await page.$$eval('#critical-path-breakdown tbody tr', (rows) =>
    Object.fromEntries(rows.map((r) => [r.dataset.kind, [...r.querySelectorAll('td')].map((c) => c.textContent.trim())])),
  );
  const us = Object.fromEntries(Object.entries(breakdown).map(([k, v]) => [k, num(v[0])]));
  assert.deepEqual(us, { cpu_op: 1999, cpu_gap: 2360, launch_delay: 7, kernel: 40, kernel_wait: 0, sync: 19 });
  assert.equal(Object.values(us).reduce((a, b) => a + b, 0), 4425);
  assert.equal(breakdown.cpu_op[1], '45.2%');
  const hta = Object.values(breakdown).reduce((a, v) => a + num(v[2]), 0);
  assert.equal(hta, num(m[2]));
  assert.equal(await page.locator('#critical-path-bar .cp-part').count(), 5);
  // The path, first page: each segment starts where the one before ends,
  // from the step's start.
  const starts = (await column(page, 'start')).map(num);
  const durations = (await column(page, 'duration')).map(num);
  assert.equal(starts[0], 0);
  for (let i = 1; i < starts.length; i++) assert.equal(starts[i], starts[i - 1] + durations[i - 1]);
  // Sorting by duration puts the longest segment first.
  await page.click('#critical-path-table th[data-col="duration"]');
  const sorted = (await column(page, 'duration')).map(num);
  assert.equal(sorted[0], Math.max(...durations, sorted[0]));
  assert.ok(sorted.every((d, i) => i === 0 || sorted[i - 1] >= d));
  // The filter keeps the segments whose kind or event names a kernel.
  await page.fill('#critical-path-filter', 'kernel');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#critical-path-table tbody tr[data-row]')].every((r) =>
      /kernel/i.test(r.querySelector('td[data-col="kind"]').textContent + r.querySelector('td[data-col="event"]').textContent),
    ),
  );
  assert.ok((await column(page, 'kind')).includes('Kernel'));
  // The CSV: a row per segment.
  await page.fill('#critical-path-filter', '');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-critical-path')]);
  assert.equal(download.suggestedFilename(), 'critical_path.csv');
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv.length, segments + 1);
  assert.match(csv[0], /^step,instance,segment,kind,edge,ts_us,dur_us,weight_us,event_name/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'critical_path.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

// A two-step DDP trace (ProfilerStep#4 and #5 of rank 0): the worker finds
// the path of the step shown alone, and the picker asks it for the other.
test('critical path: choosing another step asks for its path', async () => {
  const DDP = path.join(DATA, 'kineto/kineto-a100-ddp-nccl/nccl_data.json.gz');
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=critical_path`);
  await page.setInputFiles('#open-files', DDP);
  const summary = page.locator('#critical-path-summary');
  await summary.waitFor({ timeout: 60_000 });
  assert.match(await summary.textContent(), /^ProfilerStep#4 lasts 222,441 µs; its critical path has 6,161 segments\./);
  const steps = await page.$$eval('#critical-path-step option', (o) => o.map((x) => [x.textContent, x.selected]));
  assert.deepEqual(steps, [['ProfilerStep#4 (222,441 µs)', true], ['ProfilerStep#5 (219,726 µs)', false]]);
  await page.selectOption('#critical-path-step', '1');
  await page.waitForFunction(() => /^ProfilerStep#5 /.test(document.getElementById('critical-path-summary')?.textContent ?? ''));
  assert.match(await summary.textContent(), /^ProfilerStep#5 lasts 219,726 µs; its critical path has 6,147 segments\./);
  assert.equal(await page.$eval('#critical-path-step', (s) => s.value), '1');
  // The breakdown is step 5's: it adds up to that step.
  const us = await page.$$eval('#critical-path-breakdown tbody tr td[data-col="us"]', (c) =>
    c.map((x) => Number(x.textContent.replace(/,/g, ''))));
  assert.equal(us.reduce((a, b) => a + b, 0), 219726);
  // The CSV is the step shown.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-critical-path')]);
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv.length, 6147 + 1);
  assert.ok(csv.slice(1).every((row) => row.startsWith('5,1,')));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
