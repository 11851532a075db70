// One cold visit of the page, as a user makes it: a fresh browser context,
// the file chosen through the file input, the overview waited for, then
// every other tool the selector offers chosen in turn and waited for.
//
// Only the page's UI is driven (file input, tool selector, the DOM it
// shows). What the worker says is read by listening to the page's workers
// (an init script wraps `Worker`): each tool answer carries the worker's
// wasm memory and its `timings` (file read, each shared pass, the tool,
// conversion to JS; crates/app/src/worker/timings.rs).
import fs from 'node:fs';
import { openPage, TOOL_OPTIONS } from '../harness.mjs';
import { memoryOf, rendererPids } from './procs.mjs';

/** Installed before the page's scripts: times of user choices and of worker messages. */
function recorder() {
  const bench = { chosenAt: null, toolChosenAt: null, sent: [], received: [], workers: 0 };
  window.__bench = bench;
  document.addEventListener('change', (e) => {
    const t = e.target;
    if (t instanceof HTMLInputElement && t.type === 'file' && bench.chosenAt == null) bench.chosenAt = performance.now();
    if (t instanceof HTMLSelectElement && t.id === 'tool') bench.toolChosenAt = performance.now();
  }, true);
  const Native = window.Worker;
  const post = Native.prototype.postMessage;
  Native.prototype.postMessage = function (message, ...rest) {
    const request = message?.request;
    if (request?.kind) bench.sent.push({ at: performance.now(), kind: request.kind, tool: request.tool ?? null });
    return post.call(this, message, ...rest);
  };
  const num = (v) => (v == null ? null : Number(v));
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      bench.workers += 1;
      this.addEventListener('message', (e) => {
        const d = e.data;
        if (!d || typeof d !== 'object' || !['tool', 'logdir', 'error', 'ready'].includes(d.kind)) return;
        const t = d.timings;
        bench.received.push({
          at: performance.now(),
          atEpoch: performance.timeOrigin + performance.now(),
          kind: d.kind,
          tool: d.tool ?? null,
          memory: num(d.wasm_memory_bytes),
          message: d.message ?? null,
          timings: t ? {
            run_ms: t.run_ms, file_read_ms: t.file_read_ms, tool_ms: t.tool_ms, to_js_ms: t.to_js_ms,
            sent_at_ms: t.sent_at_ms, wasm_memory_bytes: num(t.wasm_memory_bytes), heap_peak_bytes: num(t.heap_peak_bytes),
            passes: (t.passes ?? []).map((p) => ({
              pass: p.pass, ms: p.ms, heap_peak_bytes: num(p.heap_peak_bytes), wasm_memory_bytes: num(p.wasm_memory_bytes),
            })),
          } : null,
        });
      });
    }
  };
}

/**
 * Resolves (in the page) when the view of the chosen tool is on screen, or an error is shown:
 * the worker has answered for it since `since`, nothing is loading, and a tool's view other
 * than the one on screen before the choice (`window.__benchOld`) is in the page.
 */
function waitShown(page, tool, since, timeout) {
  return page.waitForFunction(({ tool, since }) => {
    const reply = window.__bench.received.find((r) => r.at >= since && (r.kind === 'error' || r.tool === tool));
    if (!reply) return false;
    const error = document.querySelector('#error');
    if (reply.kind === 'error' && error && !error.hidden) return { at: performance.now(), error: error.textContent.trim() };
    const view = document.querySelector('section.tool');
    if (document.querySelector('#loading') || !view || view === window.__benchOld) return false;
    // The trace viewer is shown with its first frame of events.
    if (tool === 'trace_viewer' && !(window.__proflensTrace?.firstFrameAt > since)) return false;
    return { at: performance.now(), error: null };
  }, { tool, since }, { timeout, polling: 'raf' }).then((h) => h.jsonValue());
}

/** The worker's answer for `tool` received after `since` (page clock), with the page's view of it. */
async function answer(page, tool, since) {
  return page.evaluate(({ tool, since }) =>
    window.__bench.received.find((r) => r.at >= since && (r.kind === 'error' || r.tool === tool)) ?? null, { tool, since });
}

/** The page's render phases since the last call (crates/app/src/render_timing.rs), then forgotten. */
function renderPhases(page) {
  return page.evaluate(() => (window.__proflensRender ?? []).splice(0).map((e) => ({ phase: e.phase, ms: e.ms })));
}

/** The breakdown of one tool, chosen at `chosenAt` and shown at `shownAt` (page clock). */
function breakdown(chosenAt, shownAt, requestAt, reply) {
  const t = reply?.timings;
  const passes = Object.fromEntries((t?.passes ?? []).map((p) => [p.pass, p.ms]));
  // What each pass held at most, and the wasm memory after it (MiB in the tables).
  const passMemory = Object.fromEntries((t?.passes ?? []).map((p) =>
    [p.pass, { heap_peak_bytes: p.heap_peak_bytes, wasm_memory_bytes: p.wasm_memory_bytes }]));
  return {
    total_ms: shownAt - chosenAt,
    // Page: choice → request to the worker (listing the files, the worker's start).
    to_request_ms: requestAt == null ? null : requestAt - chosenAt,
    file_read_ms: t?.file_read_ms ?? null,
    passes,
    pass_memory: passMemory,
    tool_ms: t?.tool_ms ?? null,
    to_js_ms: t?.to_js_ms ?? null,
    // Posting to the page: the structured clone, the queue and the page's copy.
    transfer_ms: t ? reply.atEpoch - t.sent_at_ms : null,
    // The page turning the model into the view, and the frame that shows it.
    render_ms: reply ? shownAt - reply.at : null,
    wasm_memory_bytes: reply?.memory ?? null,
    heap_peak_bytes: t?.heap_peak_bytes ?? null,
  };
}

/**
 * One cold visit: `{ready_ms, tools: {id: breakdown}, errors, worker_peak_bytes, renderer_peak_bytes}`.
 * `profile` is a file (or a run's folder, opened with the folder input); `only`, when given,
 * names the tools to visit after the overview (a huge profile's visit can be limited to some);
 * `pickAfterMs` waits that long after the page is ready before the file is chosen.
 */
export async function coldVisit(env, profile, { timeoutMs, only = null, pickAfterMs = 0 }) {
  const before = new Set(rendererPids());
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`, {}, recorder);
  try {
    const ready = await page.waitForFunction(() => !document.getElementById('boot') && document.querySelector('#open-files')
      && performance.now(), null, { polling: 'raf', timeout: 60_000 }).then((h) => h.jsonValue());
    const isRun = fs.statSync(profile).isDirectory();
    if (pickAfterMs > 0) await page.waitForTimeout(pickAfterMs);
    await page.setInputFiles(isRun ? '#open-folder' : '#open-files', profile);
    const shown = await waitShown(page, 'overview_page', 0, timeoutMs);
    const chosenAt = await page.evaluate(() => window.__bench.chosenAt);
    const tools = {};
    const errors = {};
    const overviewRequest = await page.evaluate(() => window.__bench.sent.find((s) => s.kind === 'tool')?.at ?? null);
    tools.overview_page = breakdown(chosenAt, shown.at, overviewRequest, await answer(page, 'overview_page', 0));
    if (shown.error) errors.overview_page = shown.error;
    tools.overview_page.avg_step_time_shown = await page.locator('#avg-step-time').isVisible();
    tools.overview_page.render_phases = await renderPhases(page);
    // The selector groups its tools (TOOL_OPTIONS: those built, in every group).
    const offered = await page.$$eval(TOOL_OPTIONS, (options) =>
      options.filter((o) => !o.disabled && o.value !== 'trace_diff').map((o) => o.value));
    for (const tool of offered.filter((t) => t !== 'overview_page' && (!only || only.includes(t)))) {
      const mark = await page.evaluate(() => {
        window.__benchOld = document.querySelector('section.tool');
        return performance.now();
      });
      await page.selectOption('#tool', tool);
      const seenTool = await waitShown(page, tool, mark, timeoutMs);
      const chosen = await page.evaluate(() => window.__bench.toolChosenAt);
      const request = await page.evaluate((since) => window.__bench.sent.find((s) => s.at >= since && s.kind === 'tool')?.at ?? null, mark);
      tools[tool] = breakdown(chosen, seenTool.at, request, await answer(page, tool, mark));
      tools[tool].render_phases = await renderPhases(page);
      if (seenTool.error) errors[tool] = seenTool.error;
    }
    const received = await page.evaluate(() => window.__bench.received.map((r) => r.memory ?? 0));
    const renderers = rendererPids().filter((pid) => !before.has(pid)).map(memoryOf).filter(Boolean);
    return {
      ready_ms: ready,
      offered,
      tools,
      errors,
      worker_peak_bytes: Math.max(0, ...received),
      renderer_peak_bytes: renderers.length ? Math.max(...renderers.map((m) => m.peak)) : null,
      console_errors: seen.errors,
    };
  } finally {
    await close();
  }
}
