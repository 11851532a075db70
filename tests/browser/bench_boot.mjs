// Page boot benchmark in headless Chromium (offline, as the browser tests):
//
//   node bench_boot.mjs DIST_DIR [LOADS]
//
// loads the app LOADS times (default 3, each in a fresh context, so nothing
// is cached) served from DIST_DIR over HTTP and as the single file
// DIST_DIR/proflens.html from file://, and measures, from navigation start,
// when the open-file control is usable (`#open-files` enabled, the boot
// message gone; seen by a MutationObserver in the page) and when the analysis worker's module has been compiled
// (`window.__proflensWorkerModuleAt`, set by loader.js). Prints JSON: each load
// and the medians, in milliseconds. A measurement, not a test: nothing is asserted.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [distArg, loadsArg] = process.argv.slice(2);
if (!distArg || !fs.existsSync(path.join(distArg, 'index.html'))) {
  console.error('usage: node bench_boot.mjs DIST_DIR [LOADS]   (DIST_DIR holds index.html)');
  process.exit(2);
}
const dist = path.resolve(distArg);
const loads = Number(loadsArg ?? 3);
process.env.PROFLENS_DIST = dist;
const { launch } = await import('./harness.mjs');

function median(values) {
  const sorted = values.filter((v) => v != null).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
}

async function once(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // Noted by the page itself when the DOM first changes to "usable", not when a poll sees it.
  await page.addInitScript(() => {
    const usable = () => {
      const input = document.getElementById('open-files');
      return input && !input.disabled && !document.getElementById('boot');
    };
    new MutationObserver((_, observer) => {
      if (usable()) {
        window.__bootInteractiveAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true, attributes: true });
  });
  await page.goto(url);
  const interactive = await page.waitForFunction(() => window.__bootInteractiveAt ?? null, null, { timeout: 60_000 });
  const workerModule = await page
    .waitForFunction(() => window.__proflensWorkerModuleAt ?? null, null, { timeout: 10_000 })
    .then((h) => h.jsonValue(), () => null);
  const result = { interactive_ms: Math.round(await interactive.jsonValue()), worker_module_ms: workerModule && Math.round(workerModule) };
  await context.close();
  return result;
}

const env = await launch();
try {
  const out = {};
  for (const [mode, url] of [['served', `${env.server.url}/`], ['file', pathToFileURL(path.join(dist, 'proflens.html')).href]]) {
    const runs = [];
    for (let i = 0; i < loads; i++) runs.push(await once(env.browser, url));
    out[mode] = {
      runs,
      median_interactive_ms: median(runs.map((r) => r.interactive_ms)),
      median_worker_module_ms: median(runs.map((r) => r.worker_module_ms)),
    };
  }
  console.log(JSON.stringify(out, null, 2));
} finally {
  await env.close();
}
