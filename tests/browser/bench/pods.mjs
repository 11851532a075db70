// The pod benchmark (not a test: nothing here asserts on time):
//
//   node bench/pods.mjs DIST_DIR RUN_FOLDER [--workers 1,2] [--timeout-min 30] [--query '&renew_after_mb=0']
//
// For each workers count (the page's `?workers=N`; 1 is the one-worker
// path), in a fresh browser: the run's folder chosen through the folder
// input → the All-hosts overview shown, then the pod viewer and the
// framework op stats chosen and shown (ms from the choice, read in the
// page); the renderer processes' peak memory (VmHWM: the page and all its
// workers live in one renderer) before the folder is chosen (the page idle,
// its warm-up ended), after the overview and at the end, and the largest
// resident sum sampled every 250 ms; the largest wasm memory an extra worker
// reported after a host; and how many Web Workers the page started. Prints
// JSON lines.
import path from 'node:path';

const args = process.argv.slice(2);
const positional = [];
let workersList = [1, 2];
let timeoutMs = 30 * 60_000;
// More of the page's URL parameters (`&renew_after_mb=N`: pool.rs).
let query = '';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--workers') workersList = args[++i].split(',').map(Number);
  else if (args[i] === '--timeout-min') timeoutMs = Number(args[++i]) * 60_000;
  else if (args[i] === '--query') query = args[++i];
  else positional.push(args[i]);
}
if (positional.length !== 2) {
  console.error('usage: node bench/pods.mjs DIST_DIR RUN_FOLDER [--workers 1,2] [--timeout-min 30] [--query STR]');
  process.exit(2);
}
process.env.PROFLENS_DIST = path.resolve(positional[0]);
const folder = path.resolve(positional[1]);
const { launch, openPage } = await import('../harness.mjs');
const { memoryOf, rendererPids } = await import('./procs.mjs');

/** Before the page's scripts: when a file input or the tool selector changed. */
function recorder() {
  window.__pods = { chosenAt: null, toolChosenAt: null, workers: 0, extraWorkerPeak: 0 };
  document.addEventListener('change', (e) => {
    const t = e.target;
    if (t instanceof HTMLInputElement && t.type === 'file' && window.__pods.chosenAt == null) window.__pods.chosenAt = performance.now();
    if (t instanceof HTMLSelectElement && t.id === 'tool') window.__pods.toolChosenAt = performance.now();
  }, true);
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...a) {
      super(...a);
      window.__pods.workers += 1;
      this.addEventListener('message', (e) => {
        if (e.data?.kind === 'summary') {
          window.__pods.extraWorkerPeak = Math.max(window.__pods.extraWorkerPeak, Number(e.data.wasm_memory_bytes ?? 0));
        }
      });
    }
  };
}

async function shown(page, tool) {
  await page.locator(`#tool-${tool}, #error:not([hidden])`).first().waitFor({ timeout: timeoutMs });
  const error = (await page.locator('#error').isVisible()) ? await page.locator('#error').innerText() : null;
  return { at: await page.evaluate(() => performance.now()), error };
}

for (const workers of workersList) {
  const env = await launch();
  let maxRss = 0;
  const sampler = setInterval(() => {
    const rss = rendererPids().map(memoryOf).filter(Boolean).reduce((s, m) => s + m.rss, 0);
    maxRss = Math.max(maxRss, rss);
  }, 250);
  const result = { workers, folder };
  try {
    const { page, close } = await openPage(env.browser, `${env.server.url}/?workers=${workers}${query}#tool=overview_page`, {}, recorder);
    await page.waitForFunction(() => window.__proflensWarmUp != null, null, { timeout: 60_000 });
    result.renderer_idle_peak_bytes = Math.max(...rendererPids().map(memoryOf).filter(Boolean).map((m) => m.peak));
    await page.setInputFiles('#open-folder', folder);
    const overview = await shown(page, 'overview_page');
    const chosenAt = await page.evaluate(() => window.__pods.chosenAt);
    result.overview_ms = Math.round(overview.at - chosenAt);
    result.overview_error = overview.error;
    result.renderer_peak_after_overview_bytes = Math.max(...rendererPids().map(memoryOf).filter(Boolean).map((m) => m.peak));
    for (const tool of ['pod_viewer', 'framework_op_stats']) {
      await page.selectOption('#tool', tool);
      const view = await shown(page, tool);
      const toolAt = await page.evaluate(() => window.__pods.toolChosenAt);
      result[`${tool}_ms`] = Math.round(view.at - toolAt);
      if (view.error) result[`${tool}_error`] = view.error;
    }
    // The loader's warm-up worker included (it ends at boot).
    result.web_workers_started = await page.evaluate(() => window.__pods.workers);
    result.extra_worker_peak_wasm_bytes = await page.evaluate(() => window.__pods.extraWorkerPeak);
    result.renderer_peak_bytes = Math.max(...rendererPids().map(memoryOf).filter(Boolean).map((m) => m.peak));
    result.renderer_max_rss_sum_bytes = maxRss;
    await close();
  } catch (e) {
    result.failed = String(e?.stack ?? e);
  }
  clearInterval(sampler);
  await env.close();
  console.log(JSON.stringify(result));
}
