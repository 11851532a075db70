// Browser test of the links from analyses to the trace viewer (issue #18:
// outliers "linked to the trace viewer", the critical path "highlighted in
// the trace viewer"): a critical-path segment's "Show" and a kernel launch
// outlier's "Show" open the trace viewer with that event selected (its name
// in the details pane, matching the row) and zoomed to; the URL then names
// the event (`event=plane.line.index`), and opening that URL selects it again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const BERT_H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz');
const NCCL = path.join(DATA, 'kineto/kineto-a100-ddp-nccl/nccl_data.json.gz');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/// Waits for the trace viewer to show an event selected, and returns its
/// name in the details pane, the view's span (ps) and the selection.
async function selectedInTrace(page) {
  await page.locator('#tool-trace_viewer').waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => window.__proflensTrace?.state?.().selected != null, null, { timeout: 30_000 });
  const name = (await page.locator('#trace-details .event-name').first().textContent({ timeout: 30_000 })).trim();
  const state = await page.evaluate(() => window.__proflensTrace.state());
  return { name, state };
}

test('a critical-path kernel segment opens the trace viewer on its event', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=critical_path`);
  await page.setInputFiles('#open-files', BERT_H100);
  await page.locator('#tool-critical_path').waitFor({ timeout: 60_000 });
  await page.fill('#critical-path-filter', 'kernel');
  const row = page.locator('#critical-path-table tbody tr[data-row]').filter({
    has: page.locator('td[data-col="kind"]', { hasText: /^Kernel$/ }),
  }).first();
  const event = (await row.locator('td[data-col="event"]').textContent()).trim();
  assert.ok(event.length > 0);
  await row.locator('button.show-in-trace').click();
  const { name, state } = await selectedInTrace(page);
  assert.equal(name, event);
  // Zoomed in: the view spans far less than the step (4,425 µs).
  assert.ok(state.end - state.start < 4_425e6, `${state.start}–${state.end}`);
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /tool=trace_viewer/);
  const at = hash.match(/&event=(\d+\.\d+\.\d+)$/);
  assert.ok(at, hash);
  await page.screenshot({ path: path.join(ARTIFACTS, 'trace_links_critical_path.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a kernel launch outlier opens the trace viewer on its GPU event; the URL reopens it', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=kernel_launch_stats`);
  await page.setInputFiles('#open-files', NCCL);
  await page.locator('#tool-kernel_launch_stats').waitFor({ timeout: 60_000 });
  const row = page.locator('#launch-outliers tbody tr[data-row]').first();
  await row.waitFor({ timeout: 30_000 });
  const full = await row.locator('td[data-col="name"]').getAttribute('title');
  assert.ok(full && full.length > 0);
  await row.locator('button.show-in-trace').click();
  const { name, state } = await selectedInTrace(page);
  assert.equal(name, full);
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /tool=trace_viewer.*&event=\d+\.\d+\.\d+$/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'trace_links_launch_outlier.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();

  // The same URL, with the file opened again, selects the same event.
  const again = await openPage(env.browser, `${env.server.url}/${hash}`);
  await again.page.setInputFiles('#open-files', NCCL);
  const reopened = await selectedInTrace(again.page);
  assert.equal(reopened.name, full);
  assert.deepEqual(reopened.state.selected, state.selected);
  assert.deepEqual(again.seen.errors, []);
  await again.close();
});
