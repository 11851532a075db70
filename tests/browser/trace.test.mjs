// Browser tests of the trace viewer: the timeline drawn on its canvas,
// keyboard zoom and pan, a clicked event's details, search, a range summary
// and the Chrome-trace export, on a real profile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openTrace as openTraceOn, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const openTrace = (files) => openTraceOn(env, files);

/** The time range on screen, ps. */
async function shownRange(page) {
  const el = page.locator('#trace-range');
  return { start: Number(await el.getAttribute('data-start-ps')), end: Number(await el.getAttribute('data-end-ps')) };
}

/** Waits until the range on screen differs from `before`. */
async function rangeChangedFrom(page, before) {
  await page.waitForFunction(
    ([s, e]) => {
      const el = document.querySelector('#trace-range');
      return Number(el.dataset.startPs) !== s || Number(el.dataset.endPs) !== e;
    },
    [before.start, before.end],
  );
  return shownRange(page);
}

/** Pixels of the canvas that are neither white nor the grey of gutters, headers and lines. */
function eventPixels(page) {
  return page.$eval('#trace-canvas', (canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let coloured = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 25) coloured++;
    }
    return { coloured, total: data.length / 4 };
  });
}

async function download(page, button) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: file.suggestedFilename(), text: fs.readFileSync(await file.path(), 'utf8') };
}

test('trace viewer: timeline drawn, keyboard zoom and pan, event details, search, range summary, export', async () => {
  const { page, seen, close } = await openTrace(INPUT_BOUND);
  assert.equal(await page.locator('#tool').inputValue(), 'trace_viewer');
  assert.match(await page.locator('#tool option[value="trace_viewer"]').textContent(), /Trace viewer/);
  // The file's 23,384 events and the 2,122 ThreadpoolListener::Region spans derived from its thread pools.
  const EVENTS = 23384 + 2122;
  assert.equal(await page.locator('#trace-layout').getAttribute('data-events'), String(EVENTS));

  // Events are drawn: coloured boxes cover a good part of the canvas.
  const pixels = await eventPixels(page);
  assert.ok(pixels.coloured > pixels.total * 0.02, `coloured ${pixels.coloured} of ${pixels.total}`);
  const hook = await page.evaluate(() => ({ frames: window.__proflensTrace.frames.length, boxes: window.__proflensTrace.lastFrameBoxes }));
  assert.ok(hook.frames > 0 && hook.boxes > 0, JSON.stringify(hook));

  // W zooms in around the middle, D pans right, S zooms out (keys work anywhere but text fields).
  const whole = await shownRange(page);
  await page.mouse.move(1, 1);
  await page.keyboard.press('w');
  await page.keyboard.press('w');
  // Two presses zoom in by 1.3 each.
  await page.waitForFunction((d) => {
    const el = document.querySelector('#trace-range');
    return Number(el.dataset.endPs) - Number(el.dataset.startPs) < d;
  }, 0.65 * (whole.end - whole.start));
  const zoomed = await shownRange(page);
  await page.keyboard.press('d');
  const panned = await rangeChangedFrom(page, zoomed);
  assert.ok(panned.start > zoomed.start, 'D pans to later times');
  assert.ok(Math.abs((panned.end - panned.start) - (zoomed.end - zoomed.start)) < 1e3, 'panning keeps the zoom');
  // Held W keeps zooming.
  await page.keyboard.down('w');
  await page.waitForTimeout(300);
  await page.keyboard.up('w');
  const held = await shownRange(page);
  assert.ok(held.end - held.start < 0.6 * (panned.end - panned.start), 'a held W zooms on');
  await page.keyboard.press('0');
  const reset = await rangeChangedFrom(page, held);

  // The wheel zooms around the pointer; dragging pans.
  const area = await page.locator('#trace-canvas').boundingBox();
  await page.mouse.move(area.x + area.width * 0.6, area.y + area.height / 2);
  await page.mouse.wheel(0, -400);
  const wheeled = await rangeChangedFrom(page, reset);
  assert.ok(wheeled.end - wheeled.start < reset.end - reset.start, 'the wheel zooms in');
  await page.mouse.down();
  await page.mouse.move(area.x + area.width * 0.3, area.y + area.height / 2, { steps: 4 });
  await page.mouse.up();
  const dragged = await rangeChangedFrom(page, wheeled);
  assert.ok(dragged.start > wheeled.start, 'dragging left shows later times');
  await page.keyboard.press('0');
  await rangeChangedFrom(page, dragged);

  // Clicking an event shows its details.
  await page.waitForFunction(() => window.__proflensTrace.findBox('train') != null);
  const box = await page.evaluate(() => window.__proflensTrace.findBox('train'));
  await page.mouse.click(box.x + Math.min(box.width / 2, 60), box.y + box.height / 2);
  const details = page.locator('#trace-details');
  await details.locator('.event-name').filter({ hasText: box.name }).waitFor();
  assert.match(await details.locator('.duration').textContent(), /\d (ps|ns|µs|ms|s)$/);
  assert.match(await details.locator('.start').textContent(), /ms$/);
  // A step marker carries its step number as a stat.
  assert.ok(await details.locator('.trace-stats tr').count() >= 1, 'stats listed');
  assert.match(await details.locator('.trace-stats').textContent(), /step_num/);
  // F fits the selected event.
  const before = await shownRange(page);
  await page.keyboard.press('f');
  const fitted = await rangeChangedFrom(page, before);
  assert.ok(fitted.end - fitted.start < before.end - before.start, 'F zooms to the event');

  // Search: count, then Next selects and centres a match.
  await page.fill('#trace-search', 'EagerPyFunc');
  await page.locator('#trace-search-count').filter({ hasText: /matches/ }).waitFor();
  const total = Number((await page.locator('#trace-search-count').textContent()).replace(/\D/g, ''));
  assert.ok(total >= 380, `${total} matches`);
  // The first match after the middle of the screen, then the one after it.
  await page.click('#trace-search-next');
  await details.locator('.event-name').filter({ hasText: 'EagerPyFunc' }).waitFor();
  const first = Number((await page.locator('#trace-search-count').textContent()).match(/^(\d+) of /)[1]);
  const match = await shownRange(page);
  await page.click('#trace-search-next');
  await page.locator('#trace-search-count').filter({ hasText: new RegExp(`^${first + 1} of `) }).waitFor();
  await rangeChangedFrom(page, match);
  const selected = await page.evaluate(() => window.__proflensTrace.state().selected);
  assert.ok(selected && selected.track >= 0, JSON.stringify(selected));
  // A bad regular expression is explained, not thrown.
  await page.check('#trace-search-regex');
  await page.fill('#trace-search', 'Eager(');
  await page.locator('#trace-search-count').filter({ hasText: /not a valid regular expression/ }).waitFor();
  await page.fill('#trace-search', '^EagerPyFunc$');
  await page.locator('#trace-search-count').filter({ hasText: /matches/ }).waitFor();

  // Shift+drag across the timeline sums the range up by name.
  await page.locator('#trace-canvas').focus();
  // The whole timeline on screen for the drag: Chromium scrolls a focused canvas fully into view, Firefox not.
  await page.locator('#trace-canvas').evaluate((c) => c.scrollIntoView({ block: 'end' }));
  await page.keyboard.press('0');
  const canvas = await page.locator('#trace-canvas').boundingBox();
  const y = canvas.y + 60;
  await page.keyboard.down('Shift');
  await page.mouse.move(canvas.x + 300, y);
  await page.mouse.down();
  await page.mouse.move(canvas.x + 700, canvas.y + canvas.height - 20, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const summary = page.locator('#trace-summary');
  await summary.locator('#trace-summary-table tbody tr[data-row]').first().waitFor();
  const names = await summary.locator('#trace-summary-table td[data-col="name"]').allTextContents();
  assert.ok(names.length > 3, names.join(', '));
  const counts = await summary.locator('#trace-summary-table td[data-col="count"]').evaluateAll((c) => c.map((x) => Number(x.dataset.value)));
  assert.ok(counts.every((n) => n >= 1));
  assert.match(await summary.locator('.range-head').textContent(), /events? in .* on \d+ tracks?/);
  // M marks the range.
  await page.keyboard.press('m');
  await page.waitForFunction(() => window.__proflensTrace.state().mark != null);

  await page.mouse.move(canvas.x + 500, canvas.y + 80);
  await page.screenshot({ path: path.join(ARTIFACTS, 'trace-viewer.png') });

  // Export: the whole trace, then the selected range; both are Chrome trace JSON.
  const whole_ = await download(page, '#trace-export');
  assert.equal(whole_.name, 'vm.trace.json');
  const parsed = JSON.parse(whole_.text);
  assert.ok(Array.isArray(parsed.traceEvents));
  assert.equal(parsed.traceEvents.filter((e) => e.ph === 'X').length, EVENTS);
  await page.locator('#trace-export-status').filter({ hasText: /Saved vm\.trace\.json/ }).waitFor();
  const part = await download(page, '#trace-export-selection');
  assert.equal(part.name, 'vm.selection.trace.json');
  const partEvents = JSON.parse(part.text).traceEvents.filter((e) => e.ph === 'X');
  assert.ok(partEvents.length > 0 && partEvents.length < EVENTS, `${partEvents.length} events in the selection`);

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('trace viewer on a GPU profile: derived device tracks, launch links, folding a section', async () => {
  const { page, seen, close } = await openTrace(NVIDIA_GPU);
  // Device sections come first.
  await page.fill('#trace-search', 'FillPhiloxRandomKernelLaunch');
  await page.locator('#trace-search-count').filter({ hasText: /matches/ }).waitFor();
  await page.click('#trace-search-next');
  const details = page.locator('#trace-details');
  await details.locator('.event-name').filter({ hasText: 'FillPhiloxRandomKernelLaunch' }).waitFor();
  await details.locator('.trace-links li').first().waitFor();
  assert.match(await details.locator('.trace-links').textContent(), /Launched/);
  // Following the link selects the kernel on the device.
  await details.locator('.trace-links .link-button').first().click();
  await details.locator('.trace-links').filter({ hasText: /Launched by/ }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'trace-viewer-gpu.png') });

  // A click on a section header folds it, another unfolds it.
  await page.keyboard.press('0');
  await page.locator('#trace-canvas').scrollIntoViewIfNeeded();
  const canvas = await page.locator('#trace-canvas').boundingBox();
  assert.deepEqual(await page.evaluate(() => window.__proflensTrace.state().collapsed), []);
  await page.evaluate(() => window.scrollTo(0, 0));
  const top = await page.locator('#trace-canvas').boundingBox();
  await page.mouse.click(top.x + 40, top.y + 26 + 8);
  await page.waitForFunction(() => window.__proflensTrace.state().collapsed.join() === '0');
  await page.mouse.click(top.x + 40, top.y + 26 + 8);
  await page.waitForFunction(() => window.__proflensTrace.state().collapsed.length === 0);
  assert.ok(canvas.height > 300);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
