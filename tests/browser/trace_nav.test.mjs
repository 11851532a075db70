// Browser tests of the trace viewer's navigation (issue #17, item 5) on a
// real profile: `.` and `,` step to the next and previous slice of the
// selected event's track at the same depth (checked against the boxes the
// viewer drew), `?` lists every shortcut in a modal dialog that Esc closes,
// Ctrl+F and `/` focus the search box, and the URL keeps the visible range
// and the selected event: the link opened in a new page shows the same view.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openTrace as openTraceOn, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';
import { seriousViolations } from './axe.mjs';

const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
const BERT_H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference/gaunernst_bert-small-uncased__1016001.json.gz');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const openTrace = (file, hash) => openTraceOn(env, file, hash);

const state = (page) => page.evaluate(() => window.__proflensTrace.state());

/** Waits until the selected event is another than `before` (track and event), and returns it. */
async function selectionChangedFrom(page, before) {
  await page.waitForFunction(
    ([t, e]) => {
      const s = window.__proflensTrace.state().selected;
      return s != null && (s.track !== t || s.event !== e);
    },
    [before?.track ?? -1, before?.event ?? -1],
  );
  return (await state(page)).selected;
}

/** The drawn boxes of one row (same track, same y), left to right. */
async function row(page, track, y) {
  const boxes = await page.evaluate(() => window.__proflensTrace.boxes());
  return boxes.filter((b) => b.track === track && Math.abs(b.y - y) < 0.5).sort((a, b) => a.x - b.x);
}

/** The row (same track and y) with the most clickable boxes drawn, left to right. */
async function busiestRow(page) {
  let boxes = [];
  // Tracks scroll (↓) until a row with three boxes is on screen: counter tracks may fill the first screen.
  for (let scrolls = 0; scrolls < 12; scrolls++) {
    // Those within the window, to click.
    boxes = await page.evaluate(() => window.__proflensTrace.boxes().filter((b) => b.y >= 0 && b.y + 10 < innerHeight));
    const rows = new Map();
    for (const b of boxes) {
      const key = `${b.track}:${Math.round(b.y)}`;
      rows.set(key, [...(rows.get(key) ?? []), b]);
    }
    const chosen = [...rows.values()].filter((r) => r.length >= 3).sort((a, b) => b.length - a.length)[0];
    if (chosen) return chosen.sort((a, b) => a.x - b.x);
    await page.locator('#trace-canvas').evaluate((c) => c.focus({ preventScroll: true }));
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(150);
  }
  assert.fail(`no row with three boxes among ${boxes.length}`);
}

test('. and , select the next and previous slice of the track at the same depth', async (t) => {
  const { page, seen, close } = await openTrace(INPUT_BOUND);
  // Zoom in a little, around the middle, so that rows hold several boxes wide enough to click.
  await page.mouse.move(1, 1);
  for (let i = 0; i < 3; i++) await page.keyboard.press('w');
  await page.waitForTimeout(300);
  // A row with at least three clickable boxes; its middle one is selected.
  const chosen = await busiestRow(page);
  const middle = chosen[Math.floor(chosen.length / 2)];
  await page.mouse.click(middle.x + Math.min(middle.width / 2, 20), middle.y + 4);
  const first = await selectionChangedFrom(page, null);
  assert.deepEqual([first.track, first.event], [middle.track, middle.event]);
  await page.locator('#trace-details .event-name').first().waitFor();

  // `.` walks the slices of that track at that depth in time order: from the
  // selected box to the box drawn next in the row, skipping none of them
  // (slices too narrow to draw may lie between).
  const at = chosen.indexOf(middle);
  const [prevDrawn, nextDrawn] = [chosen[at - 1], chosen[at + 1]];
  const view = await state(page);
  const chain = [first];
  while (chain[chain.length - 1].event !== nextDrawn.event) {
    assert.ok(chain.length < 60, 'reaches the next drawn box');
    await page.keyboard.press('.');
    const last = chain[chain.length - 1];
    const next = await selectionChangedFrom(page, last);
    assert.equal(next.track, first.track, 'the same track');
    assert.equal(next.depth, first.depth, 'the same depth');
    assert.ok(next.event > last.event && next.event <= nextDrawn.event, `${next.event} after ${last.event}, by ${nextDrawn.event}`);
    assert.ok(next.start >= last.start, `${next.start} after ${last.start}`);
    chain.push(next);
  }
  const after = await state(page);
  assert.deepEqual([after.start, after.end], [view.start, view.end], 'on screen already: the view stays');
  // The details pane follows.
  await page.locator('#trace-details .event-name').first().waitFor();

  // `,` walks back the same way, and on to the box drawn before the first.
  for (let i = chain.length - 2; i >= 0; i--) {
    await page.keyboard.press(',');
    const back = await selectionChangedFrom(page, chain[i + 1]);
    assert.deepEqual([back.track, back.event], [chain[i].track, chain[i].event]);
  }
  let previous = first;
  while (previous.event !== prevDrawn.event) {
    await page.keyboard.press(',');
    const p = await selectionChangedFrom(page, previous);
    assert.equal(p.track, first.track);
    assert.equal(p.depth, first.depth);
    assert.ok(p.event < previous.event && p.event >= prevDrawn.event && p.start <= previous.start);
    previous = p;
  }
  const drawnAgain = await row(page, middle.track, middle.y);

  // A step past the screen's edge brings the slice on screen (centred).
  const last = drawnAgain[drawnAgain.length - 1];
  await page.mouse.click(last.x + Math.min(last.width / 2, 20), last.y + 4);
  let sel = await selectionChangedFrom(page, previous);
  // F fits it: the next slice lies at or past the right edge.
  const unfitted = await state(page);
  await page.keyboard.press('f');
  await page.waitForFunction((e) => window.__proflensTrace.state().end !== e, unfitted.end);
  let recentred = false;
  for (let i = 0; i < 20 && !recentred; i++) {
    const before = await state(page);
    await page.keyboard.press('.');
    sel = await selectionChangedFrom(page, sel);
    const now = await state(page);
    assert.ok(now.selected.start >= now.start && now.selected.start <= now.end, 'the selected slice is on screen');
    recentred = now.start !== before.start;
    if (recentred) {
      const s = now.selected;
      assert.ok(s.start < before.start || s.end > before.end, 'the view moves only for a slice not wholly on screen');
      const mid = (now.start + now.end) / 2;
      assert.ok(Math.abs(mid - (s.start + s.end) / 2) < (now.end - now.start) * 0.01, 'centred on it');
    }
  }
  assert.ok(recentred, `a step went past the edge of the screen: ${JSON.stringify(await state(page))} ${JSON.stringify(unfitted)}`);
  // Frame times while stepping (the page does no per-event work for it).
  const all = await page.evaluate(() => [...window.__proflensTrace.frames]);
  const frames = all.slice(1).sort((a, b) => a - b);
  t.diagnostic(`first frame ${all[0].toFixed(2)} ms; then ${frames.length} frames, median ${frames[frames.length >> 1].toFixed(2)} ms, max ${frames[frames.length - 1].toFixed(2)} ms`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('? lists every shortcut in a dialog; Esc closes it; Ctrl+F and / focus the search box', async () => {
  const { page, seen, close } = await openTrace(INPUT_BOUND);
  await page.waitForFunction(() => window.__proflensTrace.findBox('') != null);
  const box = await page.evaluate(() => window.__proflensTrace.findBox(''));
  await page.mouse.click(box.x + Math.min(box.width / 2, 20), box.y + 4);
  await selectionChangedFrom(page, null);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'trace-canvas');

  await page.keyboard.press('?');
  const dialog = page.locator('#trace-shortcuts');
  await dialog.waitFor({ state: 'visible' });
  assert.equal(await dialog.getAttribute('role'), 'dialog');
  assert.equal(await dialog.getAttribute('aria-modal'), 'true');
  const title = await page.locator(`#${await dialog.getAttribute('aria-labelledby')}`).textContent();
  assert.match(title, /shortcuts/i);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'trace-shortcuts-close', 'the focus is in the dialog');
  // Every key the viewer answers, and the mouse's gestures.
  const keys = await dialog.locator('kbd').allTextContents();
  for (const k of ['W', 'S', 'A', 'D', '0', '↑', '↓', 'Page Up', 'Page Down', '.', ',', 'F', 'M', 'Esc', '?', 'Ctrl+F', '/',
    'Enter', 'Shift+Enter', 'Wheel', 'Shift+wheel', 'Alt+wheel', 'Drag', 'Shift+drag', 'Click']) {
    assert.ok(keys.includes(k), `${k} is listed (${keys.join(' ')})`);
  }
  const rows = await dialog.locator('tbody tr:has(td)').count();
  assert.ok(rows >= 18, `${rows} shortcuts`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'trace_nav_shortcuts.png') });
  assert.deepEqual(await seriousViolations(page), [], 'axe finds nothing serious with the dialog open');
  assert.ok(await dialog.isVisible(), 'still open after axe');
  // While it is open the viewer's keys are the dialog's: Esc closes it and keeps the selection.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'trace-canvas', 'the focus goes back');
  assert.ok((await state(page)).selected != null, 'Esc closed the dialog only');
  // The button opens it too; Close closes it.
  await page.click('#trace-shortcuts-open');
  await dialog.waitFor({ state: 'visible' });
  await page.click('#trace-shortcuts-close');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'trace-shortcuts-open');

  // Ctrl+F focuses the viewer's search box (the browser's find is prevented); so does `/`.
  await page.evaluate(() => {
    window.__lastKeyPrevented = null;
    window.addEventListener('keydown', (e) => { window.__lastKeyPrevented = e.defaultPrevented; });
  });
  await page.locator('#trace-canvas').focus();
  await page.keyboard.press('Control+f');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'trace-search');
  assert.equal(await page.evaluate(() => window.__lastKeyPrevented), true);
  await page.keyboard.type('Eager');
  assert.equal(await page.inputValue('#trace-search'), 'Eager', 'typing goes to the search box');
  await page.locator('#trace-canvas').focus();
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'trace-search');
  // Its text is selected: typing replaces it.
  await page.keyboard.type('EagerPyFunc');
  assert.equal(await page.inputValue('#trace-search'), 'EagerPyFunc');
  // In the search box `.` is text, not a step.
  const selected = (await state(page)).selected;
  await page.keyboard.press('.');
  assert.equal(await page.inputValue('#trace-search'), 'EagerPyFunc.');
  assert.deepEqual((await state(page)).selected, selected);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('the URL keeps the visible range and the selected event; opened in a new page it shows the same', async () => {
  const { page, seen, close } = await openTrace(INPUT_BOUND);
  await page.mouse.move(1, 1);
  for (let i = 0; i < 4; i++) await page.keyboard.press('w');
  await page.keyboard.press('d');
  await page.waitForFunction(() => window.__proflensTrace.findBox('') != null);
  const box = await page.evaluate(() => window.__proflensTrace.findBox(''));
  await page.mouse.click(box.x + Math.min(box.width / 2, 20), box.y + 4);
  await selectionChangedFrom(page, null);
  const name = (await page.locator('#trace-details .event-name').first().textContent()).trim();
  await page.mouse.move(1, 1);
  // The hash follows once the view settles: the range on screen (ps) and the event's model position.
  await page.waitForFunction(() => {
    const s = window.__proflensTrace.state();
    const t = location.hash.match(/&t=(-?\d+)-(-?\d+)/);
    return t && Math.abs(Number(t[1]) - s.start) <= 1 && Math.abs(Number(t[2]) - s.end) <= 1 && /&event=\d+\.\d+\.\d+/.test(location.hash);
  });
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /tool=trace_viewer/);
  const shown = await state(page);
  const width = await page.locator('#trace-canvas').evaluate((c) => c.clientWidth);
  // No history entry per move.
  const entries = await page.evaluate(() => history.length);
  assert.ok(entries <= 2, `${entries} history entries`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();

  const again = await openTrace(INPUT_BOUND, hash);
  await again.page.waitForFunction(() => window.__proflensTrace.state()?.selected != null, null, { timeout: 30_000 });
  await again.page.locator('#trace-details .event-name').filter({ hasText: name }).first().waitFor();
  const reopened = await state(again.page);
  assert.deepEqual(
    [reopened.selected.track, reopened.selected.event],
    [shown.selected.track, shown.selected.event],
    'the same event is selected',
  );
  // The same range, within a pixel of the timeline.
  const ps_per_px = (shown.end - shown.start) / (width - 1);
  assert.ok(Math.abs(reopened.start - shown.start) < ps_per_px, `start ${reopened.start} vs ${shown.start}`);
  assert.ok(Math.abs(reopened.end - shown.end) < ps_per_px, `end ${reopened.end} vs ${shown.end}`);
  assert.equal(await again.page.evaluate(() => location.hash), hash, 'the link stays as it was');
  // A hand-edited range is followed while the viewer is on screen.
  const [a, b] = [Math.round(shown.start + (shown.end - shown.start) / 4), Math.round(shown.end - (shown.end - shown.start) / 4)];
  await again.page.evaluate(([a, b]) => { location.hash = location.hash.replace(/&t=-?\d+--?\d+/, `&t=${a}-${b}`); }, [a, b]);
  await again.page.waitForFunction(([a, b]) => {
    const s = window.__proflensTrace.state();
    return Math.abs(s.start - a) < 1 && Math.abs(s.end - b) < 1;
  }, [a, b]);
  assertOwnOrigin(again.seen, env.server.url);
  assert.deepEqual(again.seen.errors, []);
  await again.close();
});

test('a PyTorch trace: . steps on its track, and its link reopens the same event and range', async (t) => {
  const { page, seen, close } = await openTrace(BERT_H100);
  await page.mouse.move(1, 1);
  await page.waitForFunction(() => window.__proflensTrace.lastFrameBoxes > 0);
  await page.locator('#trace-canvas').evaluate((c) => c.scrollIntoView({ block: 'end' }));
  await page.waitForTimeout(100);
  // From the first box of the busiest row to its last, one slice at a time.
  const row = await busiestRow(page);
  const [box, end] = [row[0], row[row.length - 1]];
  await page.mouse.click(box.x + Math.min(box.width / 2, 20), box.y + 4);
  const first = await selectionChangedFrom(page, null);
  // Each step asks the worker; the time from the key to the new selection.
  const steps = [];
  let current = first;
  while (current.event !== end.event) {
    assert.ok(steps.length < 60, 'reaches the last drawn box of the row');
    const started = Date.now();
    await page.keyboard.press('.');
    const next = await selectionChangedFrom(page, current);
    steps.push(Date.now() - started);
    assert.equal(next.track, first.track);
    assert.equal(next.depth, first.depth);
    assert.ok(next.event > current.event && next.event <= end.event && next.start >= current.start);
    current = next;
  }
  t.diagnostic(`'.' to the next selection: ${steps.join(', ')} ms`);
  const name = (await page.locator('#trace-details .event-name').first().textContent()).trim();
  await page.waitForFunction(() => {
    const s = window.__proflensTrace.state();
    const t = location.hash.match(/&t=(-?\d+)-(-?\d+)/);
    return t && Math.abs(Number(t[1]) - s.start) <= 1 && Math.abs(Number(t[2]) - s.end) <= 1 && /&event=\d+\.\d+\.\d+$/.test(location.hash);
  });
  const hash = await page.evaluate(() => location.hash);
  const shown = await state(page);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();

  const again = await openTrace(BERT_H100, hash);
  await again.page.locator('#trace-details .event-name').filter({ hasText: name }).first().waitFor({ timeout: 30_000 });
  const reopened = await state(again.page);
  assert.deepEqual([reopened.selected.track, reopened.selected.event], [current.track, current.event]);
  assert.ok(Math.abs(reopened.start - shown.start) <= 1 && Math.abs(reopened.end - shown.end) <= 1, 'the same range');
  assert.deepEqual(again.seen.errors, []);
  await again.close();
});
