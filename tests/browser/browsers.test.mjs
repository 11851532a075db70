// The harness itself, in whichever browser PROFLENS_BROWSER names: it is that
// browser, it is offline, a chosen folder reaches the page with the paths a
// folder picker gives, downloads are the page's bytes, and a dark context is
// dark. The Firefox stand-ins (firefox_*.mjs) are checked here, in the browser
// they stand in for, against what the file system and Chromium say.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, BROWSER, isFirefox, DATA } from './harness.mjs';

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

test('the suite runs in the browser PROFLENS_BROWSER names, offline', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`);
  const agent = await page.evaluate(() => navigator.userAgent);
  assert.match(agent, isFirefox ? /Firefox\/\d+/ : /Chrome\/\d+/, `${BROWSER}: ${agent}`);
  assertOwnOrigin(seen, env.server.url);
  // Another host cannot be reached, and the attempt is seen by assertOwnOrigin.
  await assert.rejects(page.goto('http://example.com/', { timeout: 15_000 }));
  assert.throws(() => assertOwnOrigin(seen, env.server.url), /requests outside the origin/);
  await close();
});

test('a chosen folder reaches the page as every file in it, with the picker\'s relative paths', async () => {
  const folder = path.join(DATA, 'xspace/keras_fit');
  const expected = fs.readdirSync(folder, { recursive: true })
    .filter((rel) => fs.statSync(path.join(folder, rel)).isFile())
    .map((rel) => ['keras_fit', ...rel.split(path.sep)].join('/'))
    .sort();
  assert.ok(expected.length >= 2, expected.join(', '));
  const { page, close } = await openPage(env.browser, `${env.server.url}/#tool=info`);
  await page.locator('#open-folder').waitFor({ state: 'attached' });
  // Seen on the way down, before the app's own handler reads and clears the input.
  await page.evaluate(() => document.addEventListener('change', (e) => {
    if (e.target.id === 'open-folder') window.__picked = [...e.target.files].map((f) => [f.webkitRelativePath, f.size]);
  }, true));
  await page.setInputFiles('#open-folder', folder);
  const picked = await page.waitForFunction(() => window.__picked).then((h) => h.jsonValue());
  assert.deepEqual(picked.map(([name]) => name).sort(), expected);
  for (const [name, size] of picked) {
    assert.equal(size, fs.statSync(path.join(folder, ...name.split('/').slice(1))).size, name);
  }
  // The app reads it as a log directory: the run's host is offered.
  await page.locator('#host option', { hasText: 'vm' }).first().waitFor({ state: 'attached', timeout: 30_000 });
  await close();
});

test('a download is the bytes and the name the page gave', async () => {
  const { page, close } = await openPage(env.browser, `${env.server.url}/`);
  const text = 'name,value\nΣ "quoted",1\n';
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate((body) => {
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([body], { type: 'text/csv' }));
      link.download = 'harness check.csv';
      document.body.append(link);
      link.click();
      link.remove();
    }, text),
  ]);
  assert.equal(download.suggestedFilename(), 'harness check.csv');
  assert.equal(fs.readFileSync(await download.path(), 'utf8'), text);
  await close();
});

test('a context opened dark is dark, and light otherwise', async () => {
  const dark = await openPage(env.browser, `${env.server.url}/`, { colorScheme: 'dark' });
  const plain = await openPage(env.browser, `${env.server.url}/`);
  const prefersDark = (page) => page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches);
  assert.equal(await prefersDark(dark.page), true);
  assert.equal(await prefersDark(plain.page), false);
  assertOwnOrigin(dark.seen, env.server.url);
  await dark.close();
  await plain.close();
});
