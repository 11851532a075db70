// Shared set-up for the browser tests: the built app (dist/) served on
// 127.0.0.1, Debian's headless Chromium kept offline, and pages that record
// every request, console error and CSP violation.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DIST = process.env.PROFLENS_DIST ?? path.resolve(here, '../../dist');
export const DATA = path.resolve(here, '../data');
export const ARTIFACTS = path.resolve(here, 'artifacts');

/** Starts the server and the browser: `{server, browser, close}`. */
export async function launch(mounts = {}) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const server = await serveStatic(DIST, mounts);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // Any attempt to reach another host fails fast; the tests still assert none was made.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
  return {
    server,
    browser,
    close: async () => {
      await browser?.close();
      await server?.close();
    },
  };
}

/** A fresh page that records every request, console error and CSP violation. */
export async function openPage(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const seen = { requests: [], errors: [], csp: [] };
  context.on('request', (r) => seen.requests.push(r.url()));
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && seen.errors.push(m.text()));
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  await page.exposeFunction('__reportCsp', (v) => seen.csp.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__reportCsp(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  return { page, seen, close: () => context.close() };
}

/** Every request stayed on the page's own origin (or was a blob:/data: URL), and no CSP violation. */
export function assertOwnOrigin(seen, origin) {
  const foreign = seen.requests.filter((u) => !(u.startsWith(origin) || u.startsWith('blob:') || u.startsWith('data:')));
  assert.deepEqual(foreign, [], 'requests outside the origin');
  assert.deepEqual(seen.csp, [], 'CSP violations');
}

/** The tool selector's enabled options, once the worker has said which the chosen host has. */
export async function offeredTools(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('#tool > option')].some((o) => o.disabled));
  return page.$$eval('#tool > option', (options) => options.filter((o) => !o.disabled).map((o) => o.value));
}
