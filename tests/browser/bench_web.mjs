// Trace viewer benchmark in headless Chromium:
//
//   node bench_web.mjs DIST_DIR PROFILE_PATH
//
// PROFILE_PATH is one profile, or a folder of a run's hosts, which opens on
// "All hosts" (one timeline of every host).
//
// serves DIST_DIR, opens the page on the trace viewer, loads the profile and
// measures the time from choosing the file to the first frame with events,
// the worker's wasm memory, then zooms and pans by keyboard (W/S/A/D held)
// for a few seconds and reports the redraw times (the app's own
// `window.__proflensTrace.frames`, performance.now() around each redraw) and
// the gaps between animation frames as JSON on stdout.
import fs from 'node:fs';
import path from 'node:path';

const [distArg, profileArg] = process.argv.slice(2);
if (!distArg || !profileArg) {
  console.error('usage: node bench_web.mjs DIST_DIR PROFILE_PATH');
  process.exit(2);
}
const dist = path.resolve(distArg);
const profile = path.resolve(profileArg);
for (const [what, p] of [['DIST_DIR', path.join(dist, 'index.html')], ['PROFILE_PATH', profile]]) {
  if (!fs.existsSync(p)) {
    console.error(`bench_web: ${what}: ${p} does not exist`);
    process.exit(2);
  }
}
// The harness serves PROFLENS_DIST; set it before loading it.
process.env.PROFLENS_DIST = dist;
const { launch, openPage } = await import('./harness.mjs');

const LOAD_TIMEOUT_MS = 15 * 60_000;
/** Keys held in turn, [key, ms]: zoom in, pan, zoom out, pan back. */
const SCRIPT = [['w', 1200], ['d', 800], ['w', 800], ['a', 800], ['s', 1500], ['d', 600], ['s', 600]];

function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v) => (v == null ? null : Math.round(v * 100) / 100);
  return {
    count: sorted.length,
    median_ms: round(quantile(sorted, 0.5)),
    p95_ms: round(quantile(sorted, 0.95)),
    max_ms: round(sorted[sorted.length - 1]),
  };
}

/** The bytes of a file, or of every file under a folder. */
function fileBytes(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((sum, name) => sum + fileBytes(path.join(p, name)), 0);
}

const env = await launch();
let exitCode = 0;
try {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=trace_viewer`);
  const t0 = await page.evaluate(() => performance.now());
  const isRun = fs.statSync(profile).isDirectory();
  await page.setInputFiles(isRun ? '#open-folder' : '#open-files', profile);
  await page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, {
    timeout: LOAD_TIMEOUT_MS,
    polling: 100,
  });
  const loaded = await page.evaluate(() => ({
    layoutAt: window.__proflensTrace.layoutAt,
    firstFrameAt: window.__proflensTrace.firstFrameAt,
    lastWindowMs: window.__proflensTrace.lastWindowMs,
    events: Number(document.querySelector('#trace-layout')?.dataset.events),
    memory: Number(document.querySelector('#trace-layout')?.dataset.wasmMemory),
    layoutText: document.querySelector('#trace-layout')?.textContent,
  }));

  // Keyboard navigation with the canvas focused (keys also work anywhere but in text fields).
  await page.locator('#trace-canvas').scrollIntoViewIfNeeded();
  await page.locator('#trace-canvas').focus();
  const box = await page.locator('#trace-canvas').boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.3);
  await page.evaluate(() => {
    window.__proflensTrace.frames.length = 0;
    window.__benchGaps = [];
    window.__benchStop = false;
    let last = performance.now();
    const tick = (t) => {
      window.__benchGaps.push(t - last);
      last = t;
      if (!window.__benchStop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const windowsBefore = await page.evaluate(() => window.__proflensTrace.windows);
  const started = Date.now();
  for (const [key, ms] of SCRIPT) {
    await page.keyboard.down(key);
    await page.waitForTimeout(ms);
    await page.keyboard.up(key);
  }
  const navigateMs = Date.now() - started;
  // Let the last answers come in and be drawn.
  await page.waitForTimeout(500);
  const nav = await page.evaluate(() => {
    window.__benchStop = true;
    return {
      frames: [...window.__proflensTrace.frames],
      gaps: window.__benchGaps.slice(1),
      windows: window.__proflensTrace.windows,
      lastWindowMs: window.__proflensTrace.lastWindowMs,
      lastFrameBoxes: window.__proflensTrace.lastFrameBoxes,
      range: window.__proflensTrace.state(),
    };
  });
  const result = {
    profile,
    file_bytes: fileBytes(profile),
    host: await page.locator('#host').inputValue(),
    events: loaded.events,
    load_to_first_frame_ms: Math.round(loaded.firstFrameAt - t0),
    load_to_layout_ms: Math.round(loaded.layoutAt - t0),
    first_window_worker_ms: loaded.lastWindowMs == null ? null : Math.round(loaded.lastWindowMs),
    wasm_memory_bytes: loaded.memory,
    wasm_memory_mib: Math.round((loaded.memory / 2 ** 20) * 10) / 10,
    navigation: {
      keys: SCRIPT.map(([k, ms]) => `${k}:${ms}ms`).join(' '),
      duration_ms: navigateMs,
      redraw: stats(nav.frames),
      frame_gap: stats(nav.gaps),
      window_answers: nav.windows - windowsBefore,
      last_window_worker_ms: nav.lastWindowMs == null ? null : Math.round(nav.lastWindowMs),
      boxes_last_frame: nav.lastFrameBoxes,
    },
    console_errors: seen.errors,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  await close();
} catch (e) {
  console.error(`bench_web: ${e?.stack ?? e}`);
  exitCode = 1;
} finally {
  await env.close();
}
process.exit(exitCode);
