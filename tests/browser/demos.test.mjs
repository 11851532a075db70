// Browser tests of the demo menu: each demo opens from the menu on the
// Advisor, then shows real content in the tool its caption points to, says what to look at, and is fetched from the page's own
// origin (dist/demos/); a link `#demo=NAME` opens one; the single-file build
// opens a demo embedded in itself from disk. Writes each demo's first view,
// light and dark, to docs/screenshots/ (shown in the README).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPage, assertOwnOrigin, DIST, isFirefox } from './harness.mjs';
import { showOpenControls } from './open_menu.mjs';

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');

let env;

before(async () => {
  env = await launch();
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await env?.close();
});

/** Each demo: the tool its caption points to, and what it must show there (numbers or rows from the profile). */
const DEMOS = {
  cpu: ['overview_page', async (page) => {
    await page.locator('#tool-overview_page #step-time-graph[data-bars]').waitFor({ timeout: 60_000 });
    assert.ok(Number(await page.locator('#step-time-graph').getAttribute('data-bars')) > 0);
    assert.match(await page.locator('#verdict').textContent(), /\d/);
  }],
  'tf-gpu': ['overview_page', async (page) => {
    await page.locator('#tool-overview_page').waitFor({ timeout: 90_000 });
    assert.equal(await page.locator('#host').inputValue(), 'All hosts');
    // Two hosts of 8 GPUs each, counted together.
    await page.locator('#env-device-count').filter({ hasText: '16' }).waitFor({ timeout: 30_000 });
    const hosts = await page.$$eval('#host option', (o) => o.map((x) => x.textContent.trim()));
    assert.deepEqual(hosts, ['All hosts', '34.83.195.179_6003', '34.83.195.180_6003']);
  }],
  jax: ['roofline_model', async (page) => {
    await page.locator('#tool-roofline_model #roofline-chart[data-points]').waitFor({ timeout: 60_000 });
    assert.ok(Number(await page.locator('#roofline-chart').getAttribute('data-points')) > 0);
    assert.ok((await page.locator('#roofline-table tbody tr').count()) > 1);
  }],
  pytorch: ['stragglers', async (page) => {
    await page.locator('#tool-stragglers').waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('#host').inputValue(), 'All hosts');
    assert.match(await page.locator('#stragglers-verdict').textContent(), /^Potential straggler: rank 1 started/);
    assert.equal(await page.locator('#stragglers-table tbody tr[data-row]').count(), 2);
  }],
  'input-bound': ['input_pipeline_analyzer', async (page) => {
    await page.locator('#tool-input_pipeline_analyzer').waitFor({ timeout: 60_000 });
    assert.match(await page.locator('#verdict').textContent(), /HIGHLY input-bound because 92\.6%/);
    assert.ok((await page.locator('#input-ops tbody tr').count()) > 0);
  }],
};

/**
 * A demo opened: it is on the Advisor, with its findings (or the line that
 * there are none); then its caption's tool, chosen, shows what it must.
 * (The Advisor's own checks, links and themes are in advisor.test.mjs.)
 */
async function checkDemo(page, id) {
  await page.locator('#tool-advisor #advisor-basis').waitFor({ timeout: 90_000 });
  assert.equal(await page.locator('#tool').inputValue(), 'advisor');
  assert.ok((await page.locator('#advisor-findings > li.finding, #advisor-none').count()) > 0, `${id}: findings or none`);
  const [tool, check] = DEMOS[id];
  await page.selectOption('#tool', tool);
  await check(page);
}

/** The caption names the demo chosen in the menu, and says what to look at. */
async function checkCaption(page, id) {
  const title = await page.locator(`#demo-choice option[value="${id}"]`).textContent();
  const caption = page.locator(`#demo-caption[data-demo="${id}"]`);
  await caption.waitFor({ timeout: 60_000 });
  const text = await caption.textContent();
  assert.ok(text.startsWith(`Demo: ${title.trim()} — `), text);
  assert.match(text, /look at/);
}

test('the menu lists every demo, labelled, with the smallest chosen', async () => {
  const { page, close } = await openPage(env.browser, `${env.server.url}/`);
  await page.locator('#demo-choice').waitFor();
  const values = await page.$$eval('#demo-choice option', (o) => o.map((x) => x.value));
  assert.deepEqual(values.sort(), Object.keys(DEMOS).sort());
  assert.equal(await page.locator('#demo-choice').inputValue(), 'cpu');
  assert.equal(await page.locator('label[for="demo-choice"]').textContent(), 'Demo');
  // Keyboard: the list and its button are in the tab order.
  await page.focus('#demo-choice');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'open-demo');
  await close();
});

for (const id of Object.keys(DEMOS)) {
  test(`demo ${id}: opens from the menu on the Advisor, then its tool, with its caption, fetched from the origin`, async () => {
    const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`);
    await page.selectOption('#demo-choice', id);
    await page.click('#open-demo');
    await checkDemo(page, id);
    await checkCaption(page, id);
    assert.match(await page.evaluate(() => location.hash), new RegExp(`^#demo=${id}&`));
    // Fetched on demand from dist/demos/, nothing else.
    const fetched = seen.requests.filter((u) => u.includes('/demos/'));
    assert.ok(fetched.length > 0 && fetched.every((u) => u.startsWith(`${env.server.url}/demos/`)), fetched.join('\n'));
    assertOwnOrigin(seen, env.server.url);
    assert.deepEqual(seen.errors, []);
    // The README's pictures come from the Chromium run only (Firefox under
    // WebDriver BiDi cannot switch an open page to the dark system setting).
    if (!isFirefox) {
      await page.screenshot({ path: path.join(SCREENSHOTS, `demo-${id}-light.png`) });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(SCREENSHOTS, `demo-${id}-dark.png`) });
    }
    await close();
  });
}

test('the wasm no longer carries a profile: the first load fetches no demo', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`);
  await page.locator('#open-demo').waitFor();
  assert.deepEqual(seen.requests.filter((u) => u.includes('/demos/')), []);
  await close();
});

test('a link #demo=NAME opens that demo; plain #demo opens the smallest', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#demo=input-bound`);
  await checkDemo(page, 'input-bound');
  await checkCaption(page, 'input-bound');
  // The link's own selection wins over the demo's tool.
  await page.goto(`${env.server.url}/index.html#demo=jax&tool=hlo_stats`);
  await page.locator('#tool-hlo_stats').waitFor({ timeout: 60_000 });
  await checkCaption(page, 'jax');
  // Editing the hash to another demo opens it.
  await page.evaluate(() => { location.hash = '#demo=cpu'; });
  await checkCaption(page, 'cpu');
  await page.goto(`${env.server.url}/?again#demo`);
  await checkDemo(page, 'cpu');
  await checkCaption(page, 'cpu');
  assertOwnOrigin(seen, env.server.url);
  await close();
});

test('the single-file build opens demos embedded in itself, from disk', async () => {
  const html = fs.readFileSync(path.join(DIST, 'proflens.html'), 'utf8');
  assert.match(html, /<script type="application\/octet-stream" id="proflens-demo-sampled_rank-0\.json\.gz"/);
  const url = pathToFileURL(path.join(DIST, 'proflens.html')).href;
  const { page, seen, close } = await openPage(env.browser, url);
  for (const id of ['pytorch', 'jax']) {
    await showOpenControls(page);
    await page.selectOption('#demo-choice', id);
    await page.click('#open-demo');
    await checkDemo(page, id);
    await checkCaption(page, id);
  }
  const foreign = seen.requests.filter((u) => !(u.startsWith('file://') || u.startsWith('blob:') || u.startsWith('data:')));
  assert.deepEqual(foreign, []);
  assert.deepEqual(seen.requests.filter((u) => u.includes('/demos/')), []);
  assert.deepEqual(seen.csp, []);
  assert.deepEqual(seen.errors, []);
  await close();
});
