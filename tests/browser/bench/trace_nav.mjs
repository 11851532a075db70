// The trace viewer benchmark (what bench_web.mjs measured before the tools
// path): the profile opened on the trace viewer, the time from choosing the
// file to the first frame with events, the worker's wasm memory, then zoom
// and pan by keyboard (W/S/A/D held) for a few seconds with the redraw
// times (the app's own `window.__proflensTrace.frames`, performance.now()
// around each redraw) and the gaps between animation frames.
import fs from 'node:fs';
import { openPage } from '../harness.mjs';

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

export async function traceNavigation(env, profile, { timeoutMs }) {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=trace_viewer`);
  try {
    const t0 = await page.evaluate(() => performance.now());
    const isRun = fs.statSync(profile).isDirectory();
    await page.setInputFiles(isRun ? '#open-folder' : '#open-files', profile);
    await page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, { timeout: timeoutMs, polling: 100 });
    const loaded = await page.evaluate(() => ({
      layoutAt: window.__proflensTrace.layoutAt,
      firstFrameAt: window.__proflensTrace.firstFrameAt,
      lastWindowMs: window.__proflensTrace.lastWindowMs,
      events: Number(document.querySelector('#trace-layout')?.dataset.events),
      memory: Number(document.querySelector('#trace-layout')?.dataset.wasmMemory),
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
      };
    });
    return {
      host: await page.locator('#host').inputValue(),
      events: loaded.events,
      load_to_first_frame_ms: Math.round(loaded.firstFrameAt - t0),
      load_to_layout_ms: Math.round(loaded.layoutAt - t0),
      first_window_worker_ms: loaded.lastWindowMs == null ? null : Math.round(loaded.lastWindowMs),
      wasm_memory_bytes: loaded.memory,
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
  } finally {
    await close();
  }
}
