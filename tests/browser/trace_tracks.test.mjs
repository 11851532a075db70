// Browser tests of the trace viewer's track control, on a real GPU profile
// (the NVIDIA BERT xplane): pinning a track to the band under the ruler
// (checked in the canvas's pixels while the tracks scroll), hiding a section
// (gone from the rows and from the next window query), filtering tracks by
// name, reordering by dragging names in the gutter and with Alt+↓ in the
// track finder, a right click on a name opening the finder on it, choosing a
// track in the finder, and the layout restored
// from the URL hash and from localStorage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
/** The ruler's height on the canvas (model.rs RULER_H), CSS pixels. */
const RULER_H = 26;
const GUTTER_W = 190;

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** Opens the profile in the trace viewer of `page` (at `url` if given) and waits for the first frame with events. */
async function openIn(page, url = null) {
  if (url) await page.goto(url);
  await page.setInputFiles('#open-files', NVIDIA_GPU);
  await page.locator('#tool-trace_viewer').waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, { timeout: 20_000 });
}

const tracks = (page) => page.evaluate(() => window.__proflensTrace.state().tracks);
const scrollOf = (page) => page.evaluate(() => window.__proflensTrace.state().scroll);

/** Waits until the hook's track state passes `check` (a function source over `t`). */
async function tracksUntil(page, check, arg) {
  await page.waitForFunction(
    ([body, a]) => new Function('t', 'a', `return (${body});`)(window.__proflensTrace.state().tracks, a),
    [check, arg],
  );
  return tracks(page);
}

/**
 * Pixels of the canvas between CSS heights `top` and `bottom`, right of the
 * gutter: how many are coloured (event boxes), and a checksum of them all.
 */
function pixels(page, top, bottom) {
  return page.$eval(
    '#trace-canvas',
    (canvas, [top, bottom, gutter]) => {
      const ratio = canvas.width / canvas.clientWidth;
      const x0 = Math.ceil(gutter * ratio);
      const y0 = Math.round(top * ratio);
      const h = Math.max(1, Math.round((bottom - top) * ratio));
      const { data } = canvas.getContext('2d').getImageData(x0, y0, canvas.width - x0 - Math.ceil(8 * ratio), h);
      let coloured = 0;
      let sum = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
        if (Math.max(r, g, b) - Math.min(r, g, b) > 25) coloured++;
        sum = (sum * 31 + r * 7 + g * 3 + b) % 1_000_000_007;
      }
      return { coloured, sum };
    },
    [top, bottom, GUTTER_W],
  );
}

/** Scrolls the tracks with Alt+wheel over the canvas until the scroll differs from `before`. */
async function scrollTracks(page, dy) {
  const before = await scrollOf(page);
  await page.locator('#trace-canvas').scrollIntoViewIfNeeded();
  const area = await page.locator('#trace-canvas').boundingBox();
  await page.mouse.move(area.x + area.width * 0.6, area.y + area.height * 0.7);
  await page.keyboard.down('Alt');
  await page.mouse.wheel(0, dy);
  await page.keyboard.up('Alt');
  await page.waitForFunction((s) => window.__proflensTrace.state().scroll !== s, before);
  // The frame after the scroll is drawn.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** The canvas on screen, with no finder above it. */
async function canvasOnScreen(page) {
  if ((await page.locator('#trace-tracks-open').getAttribute('aria-expanded')) === 'true') {
    await page.click('#trace-tracks-open');
  }
  await page.locator('#trace-canvas').scrollIntoViewIfNeeded();
  return page.locator('#trace-canvas').boundingBox();
}

async function openFinder(page) {
  if ((await page.locator('#trace-tracks-open').getAttribute('aria-expanded')) !== 'true') {
    await page.click('#trace-tracks-open');
  }
  await page.locator('#trace-finder-list').waitFor();
}

test('track control: pin, hide, filter, drag and keyboard reorder, finder, and the layout kept', async (ctx) => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=trace_viewer`);
  await openIn(page);
  // The details panel folded: the timeline takes the window's height, as the drags below need.
  await page.click('#trace-panel-collapse');
  let canvas = await canvasOnScreen(page);
  const start = await tracks(page);
  assert.equal(start.band, 0);
  assert.deepEqual(start.pinned, []);
  const contentBottom = Math.max(...start.rows.map((r) => r.top + r.height));
  assert.ok(contentBottom > canvas.height + 50, `the tracks (${contentBottom}px) are taller than the canvas (${canvas.height}px)`);

  // --- Pin: a busy track from far down goes to the band under the ruler.
  await scrollTracks(page, 20_000);
  await page.waitForFunction(() => window.__proflensTrace.findBox('') != null);
  const far = await page.evaluate(() => window.__proflensTrace.findBox(''));
  await scrollTracks(page, -20_000);
  assert.equal(await scrollOf(page), 0);
  const farRow = (await tracks(page)).rows.find((r) => r.track === far.track);
  assert.ok(farRow.top > RULER_H + 100, `track ${far.track} starts ${farRow.top}px down the canvas`);
  await openFinder(page);
  await page.locator(`#trace-finder-list li[data-track="${far.track}"] .finder-pin`).click();
  let t = await tracksUntil(page, 't.pinned.includes(a)', far.track);
  assert.deepEqual(t.pinned, [far.track]);
  const pinnedRow = t.rows.find((r) => r.track === far.track);
  assert.equal(pinnedRow.top, RULER_H, 'the pinned track sits right under the ruler');
  assert.equal(t.band, pinnedRow.height);
  assert.equal(t.scrollTop, RULER_H + t.band);
  assert.ok(t.rows.filter((r) => !r.pinned).every((r) => r.top >= t.scrollTop), 'the others start below the band');
  assert.equal(await page.locator(`#trace-finder-list li[data-track="${far.track}"]`).getAttribute('data-state'), 'pinned');
  // Its boxes are asked for and drawn in the band, and the band stays while the tracks scroll.
  await page.waitForFunction((id) => window.__proflensTrace.state().tracks.asked.includes(id), far.track);
  await page.waitForFunction(
    ([id]) => window.__proflensTrace.findBox('') != null && window.__proflensTrace.lastFrameBoxes > 0 && id >= 0,
    [far.track],
  );
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const band = await pixels(page, RULER_H + 1, RULER_H + t.band - 2);
  assert.ok(band.coloured > 50, `boxes drawn in the pinned band: ${band.coloured} pixels`);
  const below = await pixels(page, t.scrollTop + 2, canvas.height - 4);
  await scrollTracks(page, 300);
  const bandScrolled = await pixels(page, RULER_H + 1, RULER_H + t.band - 2);
  const belowScrolled = await pixels(page, t.scrollTop + 2, canvas.height - 4);
  assert.equal(bandScrolled.sum, band.sum, 'the pinned band does not scroll');
  assert.notEqual(belowScrolled.sum, below.sum, 'the tracks below it do');
  t = await tracks(page);
  assert.equal(t.rows.find((r) => r.track === far.track).top, RULER_H);
  await scrollTracks(page, -20_000);

  // --- Hide a section: its tracks leave the rows and the next window query.
  const hiddenSection = t.sections[0];
  const sectionTracks = start.rows.filter((r) => r.section === hiddenSection && r.track !== far.track).map((r) => r.track);
  assert.ok(sectionTracks.length > 0);
  await page.locator(`#trace-finder-list li.finder-section[data-section="${hiddenSection}"] .finder-hide`).click();
  t = await tracksUntil(page, '!t.sections.includes(a)', hiddenSection);
  assert.ok(t.rows.every((r) => !sectionTracks.includes(r.track)), 'no track of the hidden section has a row');
  await page.locator('#trace-hidden-note').filter({ hasText: 'hidden: 1' }).waitFor();
  const windows = await page.evaluate(() => window.__proflensTrace.windows);
  await page.mouse.move(1, 1);
  // Zoomed in far enough that the boxes on hand no longer do.
  for (let i = 0; i < 3; i++) await page.keyboard.press('w');
  await page.waitForFunction((n) => window.__proflensTrace.windows > n, windows);
  const asked = (await tracks(page)).asked;
  assert.ok(asked.length > 0 && asked.every((id) => !sectionTracks.includes(id)), `asked for ${asked}`);
  await page.click('#trace-show-all');
  t = await tracksUntil(page, 't.sections.includes(a)', hiddenSection);
  assert.equal(await page.locator('#trace-hidden-note').count(), 0);
  await page.keyboard.press('0');

  // --- Filter by name: only matching tracks (or tracks of a matching section) stay.
  const matchesOf = (word) =>
    start.rows
      .filter((r) => r.track !== far.track && `${r.name}\n${r.sectionName}`.toLowerCase().includes(word.toLowerCase()))
      .map((r) => r.track);
  const names = [...new Set(start.rows.map((r) => r.name))];
  const word = names.find((n) => n.length > 3 && matchesOf(n).length > 0 && matchesOf(n).length < start.rows.length / 2);
  assert.ok(word, names.join(' | '));
  await page.fill('#trace-track-filter', word.toUpperCase());
  t = await tracksUntil(page, 't.filter === a', word.toUpperCase());
  const scrolling = t.rows.filter((r) => !r.pinned).map((r) => r.track);
  assert.deepEqual([...scrolling].sort((x, y) => x - y), matchesOf(word).sort((x, y) => x - y), `filter ${word}`);
  assert.ok(t.pinned.includes(far.track), 'the pinned track stays whatever the filter');
  await page.fill('#trace-track-filter', '');
  t = await tracksUntil(page, 't.filter === ""');

  // --- Reorder by dragging a name in the gutter: the first track of the first section below the second.
  canvas = await canvasOnScreen(page);
  // The first section with two tracks.
  const at = t.sections.findIndex((s) => t.rows.filter((r) => !r.pinned && r.section === s).length >= 2);
  const firstSection = t.sections[at];
  const [a, b] = t.rows.filter((r) => !r.pinned && r.section === firstSection);
  assert.ok(a && b && b.top + 20 < canvas.height, JSON.stringify({ sections: t.sections, rows: t.rows.map((r) => [r.track, r.section, r.top]) }));
  await page.mouse.move(canvas.x + 60, canvas.y + a.top + 6);
  await page.mouse.down();
  await page.mouse.move(canvas.x + 60, canvas.y + b.top + 6, { steps: 6 });
  await page.mouse.up();
  t = await tracksUntil(
    page,
    't.rows.findIndex((r) => r.track === a[1]) > t.rows.findIndex((r) => r.track === a[0])',
    [b.track, a.track],
  );
  const order = t.rows.filter((r) => r.section === firstSection).map((r) => r.track);
  assert.deepEqual(order.slice(0, 2), [b.track, a.track]);
  // A section header dragged below the next section's header goes after it.
  // That section's header dragged onto the next section's header goes after it.
  assert.ok(t.headers[at + 1] + 20 < canvas.height, `the next section's header is on screen (${t.headers[at + 1]})`);
  await page.mouse.move(canvas.x + 40, canvas.y + t.headers[at] + 8);
  await page.mouse.down();
  await page.mouse.move(canvas.x + 40, canvas.y + t.headers[at + 1] + 8, { steps: 6 });
  await page.mouse.up();
  const [s0, s1] = [t.sections[at], t.sections[at + 1]];
  t = await tracksUntil(page, 't.sections[a[2]] === a[1] && t.sections[a[2] + 1] === a[0]', [s0, s1, at]);
  assert.deepEqual(await page.evaluate(() => window.__proflensTrace.state().collapsed), [], 'a drag does not fold');

  // --- A right click on a name in the gutter opens the finder on it, its row focused.
  const aRow = t.rows.find((r) => r.track === a.track);
  assert.ok(aRow.top > t.scrollTop && aRow.top + 20 < canvas.height, `track ${a.track} on screen at ${aRow.top}`);
  await page.mouse.click(canvas.x + 60, canvas.y + aRow.top + 6, { button: 'right' });
  await page.waitForFunction((id) => document.activeElement?.dataset?.track === String(id), a.track);
  assert.equal(await page.locator('#trace-tracks-open').getAttribute('aria-expanded'), 'true');
  assert.equal(await page.inputValue('#trace-finder-search'), a.name);
  await page.fill('#trace-finder-search', '');

  // --- Keyboard: Alt+↓ on a focused row of the finder moves it, and the focus stays on it.
  const rowOf = (id) => page.locator(`#trace-finder-list li[data-track="${id}"]`);
  await openFinder(page);
  await rowOf(b.track).focus();
  await page.keyboard.press('Alt+ArrowDown');
  t = await tracksUntil(
    page,
    't.rows.findIndex((r) => r.track === a[1]) > t.rows.findIndex((r) => r.track === a[0])',
    [a.track, b.track],
  );
  await page.waitForFunction((id) => document.activeElement?.dataset?.track === String(id), b.track);

  // --- The finder: searching and choosing a track far down scrolls to it and highlights it.
  const last = t.rows.filter((r) => !r.pinned).at(-1);
  await page.fill('#trace-finder-search', last.name);
  await rowOf(last.track).locator('.finder-name').click();
  t = await tracksUntil(page, 't.flash === a', last.track);
  assert.ok((await scrollOf(page)) > 0, 'scrolled down');
  const shown = t.rows.find((r) => r.track === last.track);
  assert.ok(shown.top >= t.scrollTop && shown.top + 17 <= canvas.height, `track at ${shown.top}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'trace-tracks.png') });

  // --- Hide one track too; the layout is in the URL hash.
  await page.fill('#trace-finder-search', '');
  const hiddenTrack = t.rows.filter((r) => !r.pinned).at(-2).track;
  await rowOf(hiddenTrack).locator('.finder-hide').click();
  t = await tracksUntil(page, '!t.rows.some((r) => r.track === a)', hiddenTrack);
  await page.waitForFunction(() => /[#&]tracks=/.test(location.hash));
  const layout = { pinned: t.pinned, sections: t.sections, rows: t.rows.map((r) => r.track), hidden: t.hidden };
  const url = page.url();
  assert.match(url, /[#&]run=.*[#&]tracks=/);

  // --- A fresh browser opening the URL gets the same layout (from the hash).
  const other = await openPage(env.browser, url);
  await openIn(other.page);
  let restored = await tracks(other.page);
  assert.deepEqual(
    { pinned: restored.pinned, sections: restored.sections, rows: restored.rows.map((r) => r.track), hidden: restored.hidden },
    layout,
  );
  assertOwnOrigin(other.seen, env.server.url);
  assert.deepEqual(other.seen.errors, []);
  await other.close();

  // --- The same browser opening the profile again, without the hash, gets it from localStorage.
  const again = await page.context().newPage();
  const errors = [];
  again.on('pageerror', (e) => errors.push(String(e)));
  await openIn(again, `${env.server.url}/#tool=trace_viewer`);
  restored = await tracks(again);
  assert.deepEqual(
    { pinned: restored.pinned, sections: restored.sections, rows: restored.rows.map((r) => r.track), hidden: restored.hidden },
    layout,
  );
  // Resetting goes back to the profile's own layout, and forgets it.
  await again.click('#trace-tracks-reset');
  restored = await tracksUntil(again, 't.pinned.length === 0 && t.hidden === 0');
  assert.deepEqual(restored.rows.map((r) => r.track), start.rows.map((r) => r.track));
  await again.waitForFunction(() => !/[#&]tracks=/.test(location.hash));
  assert.equal(await again.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('proflens.tracks.')).length), 0);
  assert.deepEqual(errors, []);

  // Frame times of the first page (pinned band, drags, finder), for the report.
  const frames = (await page.evaluate(() => window.__proflensTrace.frames.slice())).sort((x, y) => x - y);
  const quantile = (q) => frames[Math.min(frames.length - 1, Math.floor(frames.length * q))].toFixed(2);
  ctx.diagnostic(`${frames.length} frames: median ${quantile(0.5)} ms, p95 ${quantile(0.95)} ms, max ${quantile(1)} ms`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
