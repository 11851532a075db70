// Browser test of "All hosts" in the trace viewer (issue #17, item 1): the
// two-host TensorFlow BERT run (tf-gpu-multiworker-bert-xplane; its two
// workers' files are identical, so the one fixture is copied under both
// names) and the two ranks of a PyTorch job (kineto-multirank-sampled), each
// opened as a folder. Checked through the page's DOM and the
// `window.__proflensTrace` hook: every host's sections are in the layout,
// boxes are drawn for each host's tracks, the host list filters and folds
// hosts, and the stragglers table names the late host per step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
const BERT_HOSTS = ['34.83.195.179_6003', '34.83.195.180_6003'];
const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');
const RANKS = ['sampled_rank-0', 'sampled_rank-1'];

let env;
let dir;

before(async () => {
  env = await launch();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-trace-hosts-'));
  const run = path.join(dir, 'plugins/profile/2020_06_09_12_00_00');
  fs.mkdirSync(run, { recursive: true });
  for (const host of BERT_HOSTS) fs.copyFileSync(NVIDIA_GPU, path.join(run, `${host}.xplane.pb`));
});

after(async () => {
  await env?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Opens a folder in the trace viewer on all hosts; waits for the first frame. */
async function openRun(folder) {
  const opened = await openPage(env.browser, `${env.server.url}/#tool=trace_viewer`);
  const { page } = opened;
  await page.setInputFiles('#open-folder', folder);
  await page.locator('#tool-trace_viewer').waitFor({ timeout: 90_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  await page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, { timeout: 60_000 });
  // The host list is a drop-down of the toolbar row, closed at first.
  assert.equal(await page.locator('#trace-hosts').evaluate((d) => d.open), false);
  await page.locator('#trace-hosts > summary').click();
  return opened;
}

/** Each host of the list: name, its first track id and track count. */
const hostSpans = (page) =>
  page.$$eval('#trace-hosts li[data-host]', (items) =>
    items.map((li) => ({
      name: li.dataset.host,
      first: Number(li.dataset.firstTrack),
      tracks: Number(li.dataset.tracks),
      hidden: li.hidden,
    })),
  );

/** Waits until boxes of one of `host`'s tracks are on screen. */
async function boxesOf(page, host) {
  await page.waitForFunction(
    ({ first, tracks }) =>
      window.__proflensTrace.state().boxTracks.some((t) => t >= first && t < first + tracks),
    host,
    { timeout: 60_000 },
  );
}

async function checkRun(page, names, filter, artifact) {
  const hosts = await hostSpans(page);
  assert.deepEqual(hosts.map((h) => h.name), names);
  assert.ok(hosts.every((h) => h.tracks > 0));
  assert.equal(hosts[1].first, hosts[0].first + hosts[0].tracks);
  // Boxes for the first host's tracks; fold it in the host list, and the second's come on screen.
  await boxesOf(page, hosts[0]);
  await page.locator(`#trace-hosts li[data-host="${names[0]}"] input[type=checkbox]`).uncheck();
  const folded = await page.evaluate(() => window.__proflensTrace.state().collapsed);
  assert.ok(folded.length > 0, 'the first host folded');
  await boxesOf(page, hosts[1]);
  assert.match(await page.locator('#trace-hosts-count').textContent(), /^1 of 2 hosts open$/);
  // The filter (a part of the first host's name) narrows the list to it; "Open only these" opens just those.
  await page.locator('#trace-host-filter').fill(filter);
  await page.waitForFunction(() => document.querySelectorAll('#trace-hosts li[data-host]:not([hidden])').length === 1);
  assert.deepEqual((await hostSpans(page)).filter((h) => !h.hidden).map((h) => h.name), [names[0]]);
  await page.locator('#trace-hosts-only').click();
  await boxesOf(page, hosts[0]);
  assert.ok(await page.locator(`#trace-hosts li[data-host="${names[1]}"] input`).evaluate((i) => !i.checked));
  // Stragglers: a row per step run by both hosts, naming one of them.
  const rows = page.locator('#trace-stragglers tbody tr[data-row]');
  assert.ok((await rows.count()) > 0);
  const last = await page.$$eval('#trace-stragglers td[data-col="host"]', (c) => c.map((x) => x.textContent));
  assert.ok(last.every((h) => names.includes(h)), last.join());
  await page.screenshot({ path: path.join(ARTIFACTS, artifact), fullPage: true });
  // Measured, not asserted: the worker's last window of boxes and the frames' median draw time.
  const timing = await page.evaluate(() => {
    const h = window.__proflensTrace;
    const frames = [...h.frames].sort((a, b) => a - b);
    return { windowMs: h.lastWindowMs, windows: h.windows, frameMedianMs: frames[frames.length >> 1] };
  });
  console.log(`# ${artifact}: ${JSON.stringify(timing)}`);
  return { hosts, rows };
}

test('two-host BERT run: one timeline of both hosts, host list, stragglers', async () => {
  const { page, seen, close } = await openRun(dir);
  const { rows } = await checkRun(page, BERT_HOSTS, '.179_', 'trace-all-hosts-bert.png');
  // Identical hosts: no step lags behind.
  const lags = await page.$$eval('#trace-stragglers td[data-col="lag_first"]', (c) => c.map((x) => x.dataset.ps));
  assert.equal(lags.length, await rows.count());
  assert.ok(lags.every((l) => l === '0'), lags.join());
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('two PyTorch ranks: aligned clocks, rank 1 late on step 552, flags on the timeline', async () => {
  const { page, seen, close } = await openRun(MULTI_RANK);
  await checkRun(page, RANKS, 'rank-0', 'trace-all-ranks.png');
  // ProfilerStep#552 in the files (epoch µs): rank 1 ends 8,496 µs after rank 0.
  const row = page.locator('#trace-stragglers tbody tr[data-row]').filter({ hasText: 'ProfilerStep#552' });
  assert.equal(await row.locator('td[data-col="host"]').textContent(), 'sampled_rank-1');
  assert.equal(await row.locator('td[data-col="lag_first"]').getAttribute('data-ps'), '8496000000');
  // Its row shows the step's end: the view narrows to it, and its flag is drawn.
  // Only rank 1 open: its first section header (where the flag goes) is near the top.
  await page.locator('#trace-host-filter').fill('rank-1');
  await page.locator('#trace-hosts-only').click();
  await row.locator('button').click();
  await page.waitForFunction(() => window.__proflensTrace.state().flags > 0, null, { timeout: 20_000 });
  const { start, end } = await page.evaluate(() => window.__proflensTrace.state());
  const endPs = Number(await row.locator('td[data-col="end"]').getAttribute('data-ps'));
  assert.ok(start < endPs && endPs < end, `${start} < ${endPs} < ${end}`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

// Synthetic pair of ranks (tests/data/collectives-synthetic/README.md: no real
// fixture has two ranks whose collectives carry ids).
test('cross-host flow: a collective links to the same collective on the other rank', async () => {
  const { page, seen, close } = await openRun(path.join(DATA, 'collectives-synthetic'));
  const hosts = await hostSpans(page);
  assert.deepEqual(hosts.map((h) => h.name), ['rank-0', 'rank-1']);
  await page.locator('#trace-search').fill('record_param_comms');
  await page.locator('#trace-search').press('Enter');
  // Step through the matches to one of rank 0's (its all-reduces have a peer on rank 1).
  const selected = () => page.evaluate(() => window.__proflensTrace.state().selected);
  await page.waitForFunction(() => window.__proflensTrace.state().selected != null);
  for (let i = 0; i < 5 && (await selected()).track >= hosts[1].first; i++) {
    const before = JSON.stringify(await selected());
    await page.locator('#trace-search-next').click();
    await page.waitForFunction((b) => JSON.stringify(window.__proflensTrace.state().selected) !== b, before);
  }
  assert.ok((await selected()).track < hosts[1].first, 'a match of rank 0 selected');
  const link = page.locator('#trace-details .trace-links li').filter({ hasText: 'Same collective on' });
  await link.waitFor({ timeout: 30_000 });
  assert.match(await link.textContent(), /rank-1 \(“allreduce 0” #[01]\)/);
  await link.locator('button').click();
  await page.waitForFunction((first) => window.__proflensTrace.state().selected?.track >= first, hosts[1].first);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('five hosts: the fifth starts folded, and opening it draws its boxes', async () => {
  const five = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-trace-five-'));
  const run = path.join(five, 'plugins/profile/2020_06_09_12_00_00');
  fs.mkdirSync(run, { recursive: true });
  const names = ['host-a', 'host-b', 'host-c', 'host-d', 'host-e'];
  for (const host of names) fs.copyFileSync(NVIDIA_GPU, path.join(run, `${host}.xplane.pb`));
  try {
    const { page, seen, close } = await openRun(five);
    const hosts = await hostSpans(page);
    assert.deepEqual(hosts.map((h) => h.name), names);
    assert.match(await page.locator('#trace-hosts-count').textContent(), /^4 of 5 hosts open$/);
    const boxes = await page.evaluate(() => window.__proflensTrace.state().boxTracks);
    assert.ok(!boxes.some((t) => t >= hosts[4].first), 'no boxes drawn for the folded host');
    await page.locator('#trace-host-filter').fill('host-e');
    await page.locator('#trace-hosts-only').click();
    await boxesOf(page, hosts[4]);
    assertOwnOrigin(seen, env.server.url);
    assert.deepEqual(seen.errors, []);
    await close();
  } finally {
    fs.rmSync(five, { recursive: true, force: true });
  }
});
