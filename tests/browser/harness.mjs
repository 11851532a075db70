// Shared set-up for the browser tests: the built app (dist/) served on
// 127.0.0.1, a headless browser kept offline (Debian's Chromium, or Firefox ESR
// when PROFLENS_BROWSER=firefox), and pages that record every request, console
// error and CSP violation.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, firefox } from 'playwright-core';
import { serveStatic } from './serve.mjs';
import { letFirefoxPickFolders } from './firefox_folder.mjs';
import { reportFirefoxBlobDownloads } from './firefox_downloads.mjs';
import { honourColorScheme, CONTENT_SCHEME_PREF } from './firefox_color_scheme.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DIST = process.env.PROFLENS_DIST ?? path.resolve(here, '../../dist');
export const DATA = path.resolve(here, '../data');

/** The browser the suite runs in: `chromium` (default) or `firefox` (Firefox ESR over WebDriver BiDi). */
export const BROWSER = process.env.PROFLENS_BROWSER ?? 'chromium';
if (!['chromium', 'firefox'].includes(BROWSER)) throw new Error(`PROFLENS_BROWSER must be chromium or firefox, not ${BROWSER}`);
/** For `test(..., { skip: isFirefox && 'reason' })` on the few tests that need a Chromium-only API. */
export const isFirefox = BROWSER === 'firefox';
/** Screenshots and other outputs; Firefox's go in a subfolder so both runs keep theirs. */
export const ARTIFACTS = path.resolve(here, isFirefox ? 'artifacts/firefox' : 'artifacts');

/** Starts the server and the browser: `{server, browser, close}`. */
export async function launch(mounts = {}) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const server = await serveStatic(DIST, mounts);
  const browser = isFirefox ? await launchFirefox() : await launchChromium();
  return {
    server,
    browser,
    close: async () => {
      await browser?.close();
      await server?.close();
    },
  };
}

function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // Any attempt to reach another host fails fast; the tests still assert none was made.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}

/** Stock Firefox ESR driven over WebDriver BiDi (no geckodriver, no patched build). */
async function launchFirefox() {
  reportFirefoxBlobDownloads();
  // Light unless a context asks for dark, as headless Chromium.
  const browser = await startFirefox({ [CONTENT_SCHEME_PREF]: 1 });
  honourColorScheme(browser, startFirefox);
  return browser;
}

function startFirefox(prefs) {
  return firefox.launch({
    executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr',
    channel: 'moz-firefox',
    headless: true,
    firefoxUserPrefs: { ...FIREFOX_OFFLINE_PREFS, ...prefs },
  });
}

/**
 * Keeps Firefox off the network, like Chromium's --host-resolver-rules: every
 * connection except to 127.0.0.1 goes to a proxy on a closed port and fails
 * fast, and the background services that phone home are off.
 */
const FIREFOX_OFFLINE_PREFS = {
  'network.proxy.type': 1,
  'network.proxy.http': '127.0.0.1',
  'network.proxy.http_port': 9,
  'network.proxy.ssl': '127.0.0.1',
  'network.proxy.ssl_port': 9,
  'network.proxy.socks': '127.0.0.1',
  'network.proxy.socks_port': 9,
  'network.proxy.socks_remote_dns': true,
  'network.proxy.no_proxies_on': '127.0.0.1',
  'network.proxy.allow_hijacking_localhost': false,
  'network.trr.mode': 5,
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.predictor.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'app.update.enabled': false,
  'app.update.auto': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.google.updateURL': '',
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'services.settings.server': 'http://127.0.0.1:9/',
  'extensions.blocklist.enabled': false,
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'browser.ping-centre.telemetry': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  // Playwright loosens this for its own tests; a user's Firefox gives each
  // file:// document its own origin, and the single-file build must work so.
  'security.fileuri.strict_origin_policy': true,
};

/**
 * A fresh page that records every request, console error and CSP violation.
 * `options` go to the new context (e.g. `{ colorScheme: 'dark' }`, which Firefox honours only here, not through `page.emulateMedia`);
 * `init`, a function, runs in the page before its scripts.
 */
export async function openPage(browser, url, options = {}, init = null) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, ...options });
  const seen = { requests: [], errors: [], csp: [] };
  context.on('request', (r) => seen.requests.push(r.url()));
  const page = await context.newPage();
  if (isFirefox) letFirefoxPickFolders(page);
  page.on('console', (m) => m.type() === 'error' && seen.errors.push(m.text()));
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  await page.exposeFunction('__reportCsp', (v) => seen.csp.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__reportCsp(`${e.violatedDirective} ${e.blockedURI}`));
  });
  // A script of the caller's that runs before the page's own (the benchmark's recorder).
  if (init) await page.addInitScript(init);
  await page.goto(url);
  return { page, seen, close: () => context.close() };
}

/**
 * One page for the tests of a file that each look at the same profile: the
 * first call of the returned function runs `open()` (which opens the page and
 * the profile and waits for its first view, resolving to what `openPage`
 * returns), later calls get the same page, so the file boots the app and
 * decodes the profile once, not once per test. Each test then shows its own
 * tool with `showTool`; nothing a test checks depends on another's having run
 * (each also passes alone). `close()` (in `after`) closes the page.
 */
export function sharedPage(open) {
  let opened = null;
  const get = () => (opened ??= open());
  get.close = async () => {
    const done = await opened?.catch(() => null);
    await done?.close();
  };
  return get;
}

/** Shows `tool` on `page` (chosen in the tool selector unless it is on screen) and waits for its view. */
export async function showTool(page, tool, timeout = 30_000) {
  if ((await page.locator('#tool').inputValue()) !== tool) await page.selectOption('#tool', tool);
  await page.locator(`#tool-${tool}`).waitFor({ timeout });
}

/**
 * Opens `files` (a path, or paths of one run's hosts) on a new page at `hash`, on the trace
 * viewer, and waits for its first frame with events.
 */
export async function openTrace(env, files, hash = '#tool=trace_viewer') {
  const opened = await openPage(env.browser, `${env.server.url}/${hash}`);
  await opened.page.setInputFiles('#open-files', files);
  await opened.page.locator('#tool-trace_viewer').waitFor({ timeout: 60_000 });
  await opened.page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, { timeout: 60_000 });
  return opened;
}

/** Every request stayed on the page's own origin (or was a blob:/data: URL), and no CSP violation. */
export function assertOwnOrigin(seen, origin) {
  const foreign = seen.requests.filter((u) => !(u.startsWith(origin) || u.startsWith('blob:') || u.startsWith('data:')));
  assert.deepEqual(foreign, [], 'requests outside the origin');
  assert.deepEqual(seen.csp, [], 'CSP violations');
}

/** The tool selector's options of the app's tools (and the trace diff), in groups: not XProf's tools that are not built. */
export const TOOL_OPTIONS = '#tool option:not(optgroup[label="XProf tools not built"] > option)';

/** The app's tool ids in the registry's order (crates/app/src/tool_names.rs: `tool("id", "Label")`). */
const REGISTRY_ORDER = [...fs.readFileSync(path.resolve(here, '../../crates/app/src/tool_names.rs'), 'utf8')
  .matchAll(/\btool\("([a-z0-9_]+)",/g)].map((m) => m[1]);

/**
 * The tool selector's enabled options, once the worker has said which the chosen host has, in the
 * registry's order (the selector lists them by group), the trace diff last.
 */
export async function offeredTools(page) {
  await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((o) => o.disabled), TOOL_OPTIONS);
  const offered = await page.$$eval(TOOL_OPTIONS, (options) => options.filter((o) => !o.disabled).map((o) => o.value));
  const at = (id) => (REGISTRY_ORDER.includes(id) ? REGISTRY_ORDER.indexOf(id) : REGISTRY_ORDER.length);
  return offered.sort((a, b) => at(a) - at(b));
}
