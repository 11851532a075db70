// Browser tests of the recent list on the start screen: a file opened
// through the file input is listed by name after a reload (no reopen: the
// page cannot read it again without the user); a demo reopens in one click;
// the list can be cleared. Kept in the browser's localStorage, nothing sent.
// On Chromium, files picked through the browser's picker keep their File
// System Access handles in IndexedDB and reopen in one click after a reload.
// Playwright cannot drive the native picker: there a real handle from the
// origin-private file system stands in for the user's choice (the picker
// function is replaced, the handle, IndexedDB and permission are real).
// Dropped folders' handles are not tested (no real drop of a folder here).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA } from './harness.mjs';
import { showOpenControls } from './open_menu.mjs';

const KERAS_FILE = path.join(DATA, 'xspace/keras_fit/train/plugins/profile/2026_11_22_09_04_23/vm.xplane.pb');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** A full load of the start screen (a new query, so not a mere hash change). */
async function startScreen(page, n) {
  // Files reopened from the list open on the overview, which these tests wait for.
  await page.goto(`${env.server.url}/index.html?load=${n}#tool=overview_page`);
  await page.locator('#open-demo').waitFor();
}

const items = (page) => page.$$eval('#recent li', (li) => li.map((x) => x.textContent.trim()));

test('an opened file is listed after a reload, by name only', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  assert.equal(await page.locator('#recent').count(), 0, 'nothing opened yet, no list');
  await page.setInputFiles('#open-files', KERAS_FILE);
  await page.locator('#tool-overview_page').waitFor({ timeout: 60_000 });
  await startScreen(page, 1);
  const listed = await items(page);
  assert.equal(listed.length, 1);
  assert.match(listed[0], /^vm\.xplane\.pb — recently opened, just now \(open it again to analyse it\)$/);
  assert.equal(await page.locator('#recent li button').count(), 0);
  // Names only: the stored list holds no file contents.
  const stored = await page.evaluate(() => localStorage.getItem('proflens.recent'));
  assert.ok(stored.length < 200, stored);
  assertOwnOrigin(seen, env.server.url);
  await close();
});

test('a demo reopens from the list in one click, newest first; the list clears', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', KERAS_FILE);
  await page.locator('#tool-overview_page').waitFor({ timeout: 60_000 });
  await showOpenControls(page);
  await page.selectOption('#demo-choice', 'jax');
  await page.click('#open-demo');
  // A demo opens on the Advisor, whatever tool was chosen.
  await page.locator('#tool-advisor #advisor-basis').waitFor({ timeout: 60_000 });
  await startScreen(page, 1);
  const listed = await items(page);
  assert.equal(listed.length, 2);
  assert.match(listed[1], /^vm\.xplane\.pb/);
  const title = (await page.locator('#demo-choice option[value="jax"]').textContent()).trim();
  const demo = page.locator('#recent li[data-demo="jax"]');
  assert.ok((await demo.textContent()).startsWith(`${title} — demo, just now`));
  const again = demo.locator('button');
  assert.equal(await again.getAttribute('aria-label'), `Open the demo ${title} again`);
  await again.click();
  await page.locator('#tool-advisor #advisor-basis').waitFor({ timeout: 60_000 });
  await page.selectOption('#tool', 'roofline_model');
  await page.locator('#tool-roofline_model #roofline-chart[data-points]').waitFor({ timeout: 60_000 });
  await page.locator('#demo-caption[data-demo="jax"]').waitFor();
  // Reopened: first in the list now.
  await startScreen(page, 2);
  assert.match((await items(page))[0], new RegExp(`^${title.replace(/[()]/g, '\\$&')} — demo`));
  await page.click('#recent-clear');
  assert.equal(await page.locator('#recent').count(), 0);
  await startScreen(page, 3);
  assert.equal(await page.locator('#recent').count(), 0);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('Chromium: files picked with the browser picker reopen from the list after a reload', async (t) => {
  if (env.browser.browserType().name() !== 'chromium') {
    t.skip('the File System Access pickers and handles are Chromium-only');
    return;
  }
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.locator('#open-demo').waitFor();
  assert.equal(await page.evaluate(() => window.proflensRecentHandles.supported), true);
  const b64 = fs.readFileSync(KERAS_FILE).toString('base64');
  await page.evaluate(async (data) => {
    const root = await navigator.storage.getDirectory();
    const handle = await root.getFileHandle('vm.xplane.pb', { create: true });
    const out = await handle.createWritable();
    await out.write(Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
    await out.close();
    window.showOpenFilePicker = async () => [handle];
  }, b64);
  await page.click('label[for="open-files"]');
  await page.locator('#tool-overview_page').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'vm');
  await startScreen(page, 1);
  const kept = page.locator('#recent li[data-kept="true"]');
  assert.match(await kept.textContent(), /^vm\.xplane\.pb — just now/);
  await kept.locator('button').click();
  await page.locator('#tool-overview_page').waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('#host').inputValue(), 'vm');
  // Cleared: the list and the kept handles.
  await startScreen(page, 2);
  await page.click('#recent-clear');
  await page.waitForFunction(() => new Promise((resolve) => {
    const open = indexedDB.open('proflens-recent');
    open.onsuccess = () => {
      const all = open.result.transaction('handles').objectStore('handles').count();
      all.onsuccess = () => { open.result.close(); resolve(all.result === 0); };
    };
  }));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
