// Browser tests: the built app (dist/) in real headless Chromium or Firefox ESR (PROFLENS_BROWSER).
// Run by `cargo xtask test` after `cargo xtask dist`; PROFLENS_DIST points at dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage as open, assertOwnOrigin, DIST, DATA, ARTIFACTS } from './harness.mjs';
import { showOpenControls } from './open_menu.mjs';

const KERAS_DIR = path.join(DATA, 'xspace/keras_fit');
const KERAS_FILE = path.join(KERAS_DIR, 'train/plugins/profile/2026_11_22_09_04_23/vm.xplane.pb');

let env;
let server;

before(async () => {
  env = await launch();
  server = env.server;
});

after(async () => {
  await env?.close();
});

/** These tests look at Profile info; the app opens on the Advisor otherwise. */
const INFO = '#tool=info';

/** Opens the demo from the menu: it opens on the Advisor; then Profile info is chosen. */
async function openDemoOnInfo(page) {
  await showOpenControls(page);
  await page.click('#open-demo');
  await page.locator('#tool-advisor').waitFor({ timeout: 60_000 });
  await page.selectOption('#tool', 'info');
}

function openPage(url) {
  return open(env.browser, url);
}

function summary(caseName) {
  return JSON.parse(fs.readFileSync(path.join(DATA, 'xspace', caseName, 'xplane_summary.json'), 'utf8'));
}

/** Plane rows shown: [{name, lines, events}]. */
async function shownPlanes(page) {
  await page.locator('#planes tr[data-plane]').first().waitFor({ timeout: 30_000 });
  return page.$$eval('#planes tr[data-plane]', (rows) =>
    rows.map((r) => ({
      name: r.querySelector('.plane-name').textContent.trim(),
      lines: Number(r.querySelector('.lines').textContent.trim()),
      events: Number(r.querySelector('.events').dataset.value),
    })));
}

function expectedPlanes(caseName) {
  return summary(caseName).planes.map((p) => ({ name: p.name, lines: p.num_lines, events: p.num_events }));
}

test('uploading a profile shows its planes, lines and event counts', async () => {
  const { page, seen, close } = await openPage(`${server.url}/index.html${INFO}`);
  await page.setInputFiles('#open-files', KERAS_FILE);
  assert.deepEqual(await shownPlanes(page), expectedPlanes('keras_fit'));
  assert.equal(await page.locator('#total-events').textContent().then((t) => t.replace(/\D/g, '')), '5093');
  // Names from the file are text: the first line of /host:CPU is listed once expanded.
  await page.locator('#planes tr[data-plane]').first().click();
  const lineNames = await page.$$eval('table.lines tr[data-line]', (rows) => rows.map((r) => r.textContent));
  assert.equal(lineNames.length, 10);
  assert.ok(lineNames.some((t) => t.includes('tf_data_iterator_get_next')), lineNames.join('\n'));
  assert.match(await page.evaluate(() => location.hash), /tool=info/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'profile-info.png'), fullPage: true });
  assertOwnOrigin(seen, server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('the largest fixture decodes in the browser (measured, not timed)', async () => {
  const { page, seen, close } = await openPage(`${server.url}/${INFO}`);
  await page.setInputFiles('#open-files', path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb'));
  const planes = await shownPlanes(page);
  assert.equal(planes.find((p) => p.name === '/host:CPU').events, 15354);
  const decodeMs = Number(await page.locator('#decode-time').getAttribute('data-value'));
  const memory = Number(await page.locator('#worker-memory').getAttribute('data-value'));
  assert.ok(decodeMs > 0 && memory > 3_000_000, `decode ${decodeMs} ms, memory ${memory} bytes`);
  // A measurement for the record, not a pass/fail criterion.
  console.log(`measurement: 3.0 MB GPU profile decoded in ${decodeMs.toFixed(0)} ms; worker wasm memory ${(memory / 2 ** 20).toFixed(1)} MiB`);
  assertOwnOrigin(seen, server.url);
  await close();
});

test('a whole logdir folder opens with its run and host selectors', async () => {
  const { page, seen, close } = await openPage(`${server.url}/${INFO}`);
  await page.setInputFiles('#open-folder', KERAS_DIR);
  await page.locator('#planes tr[data-plane]').first().waitFor({ timeout: 30_000 });
  const runs = await page.$$eval('#run option', (o) => o.map((x) => x.textContent.trim()));
  assert.deepEqual(runs, ['2026_11_22_09_04_23']);
  const hosts = await page.$$eval('#host option', (o) => o.map((x) => x.textContent.trim()));
  assert.deepEqual(hosts, ['vm']);
  assert.match(await page.evaluate(() => location.hash), /run=2026_11_22_09_04_23/);
  // The TensorBoard summary file beside the profile is reported, not opened.
  assert.match(await page.locator('body').textContent(), /events\.out\.tfevents/);
  assertOwnOrigin(seen, server.url);
  await close();
});

test('the demo opens with no network', async () => {
  const { page, seen, close } = await openPage(`${server.url}/${INFO}`);
  await openDemoOnInfo(page);
  assert.deepEqual(await shownPlanes(page), expectedPlanes('custom_loop'));
  assertOwnOrigin(seen, server.url);
  await close();
});

test('bad files get a plain-words error, not a blank page', async () => {
  const cases = [
    ['truncated.xplane.pb', /truncated/],
    ['random.xplane.pb', /not an XSpace profile/],
    ['empty.xplane.pb', /empty/],
    ['bomb.xplane.pb.gz', /gzip bomb/],
  ];
  const { page, close } = await openPage(`${server.url}/${INFO}`);
  for (const [name, message] of cases) {
    await page.setInputFiles('#open-files', path.join(DATA, 'bad', name));
    await page.locator('#error').filter({ hasText: message }).waitFor({ timeout: 30_000 });
  }
  // Content decides, not the name: trace JSON named like an XSpace opens as a trace.
  await page.setInputFiles('#open-files', path.join(DATA, 'bad', 'trace.xplane.pb'));
  await page.locator('#planes tr[data-plane]').first().waitFor({ timeout: 30_000 });
  // The app still works afterwards.
  await openDemoOnInfo(page);
  assert.equal((await shownPlanes(page))[0].name, '/host:CPU');
  await close();
});

test('a long decode shows progress and can be cancelled', async () => {
  // Concatenated XSpace messages are one valid XSpace (repeated fields append):
  // 40 copies of the 3 MB GPU profile make a 120 MB profile that takes a while.
  const big = path.join(os.tmpdir(), `proflens-big-${process.pid}.xplane.pb`);
  const one = fs.readFileSync(path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb'));
  fs.writeFileSync(big, Buffer.concat(Array(40).fill(one)));
  const { page, close } = await openPage(`${server.url}/${INFO}`);
  await page.setInputFiles('#open-files', big);
  await page.locator('#progress').waitFor({ timeout: 10_000 });
  await page.click('#cancel');
  await page.locator('body').filter({ hasText: 'Cancelled' }).waitFor({ timeout: 10_000 });
  // A fresh worker serves the next file.
  await openDemoOnInfo(page);
  assert.equal((await shownPlanes(page))[0].events, 9587);
  fs.unlinkSync(big);
  await close();
});

test('the single-file build works opened from disk', async () => {
  const url = pathToFileURL(path.join(DIST, 'proflens.html')).href + INFO;
  const { page, seen, close } = await openPage(url);
  await openDemoOnInfo(page);
  assert.deepEqual(await shownPlanes(page), expectedPlanes('custom_loop'));
  const foreign = seen.requests.filter((u) => !(u.startsWith('file://') || u.startsWith('blob:') || u.startsWith('data:')));
  assert.deepEqual(foreign, []);
  assert.deepEqual(seen.csp, []);
  await page.screenshot({ path: path.join(ARTIFACTS, 'single-file.png'), fullPage: true });
  await close();
});
