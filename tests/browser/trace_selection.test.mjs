// Browser tests of the trace viewer's selection analytics on a real profile
// (the input-bound TensorFlow run): search matches as a list to jump through
// (mouse and keyboard), a shift-dragged range's statistics per name and per
// track (sorting, column definitions, Save CSV), and its flame graph (frame
// widths, hover numbers, zoom).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openTrace as openTraceOn, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';
import { seriousViolations } from './axe.mjs';

const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
/** Matches listed under the search box at most (protocol::SEARCH_LIST). */
const SEARCH_LIST = 500;

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const openTrace = (files) => openTraceOn(env, files);

async function download(page, button) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: file.suggestedFilename(), text: fs.readFileSync(await file.path(), 'utf8') };
}

/** CSV text as rows of fields (quoted fields may hold commas and quotes). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  return rows;
}

/** The cells of a table's shown body rows, as text. */
function bodyRows(page, table) {
  return page.$$eval(`#${table} tbody tr[data-row]`, (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.split(/\s+/).filter(Boolean).join(' '))));
}

/** A column's sort values (numbers from data-value, else lower-cased text). */
function columnValues(page, table, col) {
  return page.$$eval(`#${table} tbody tr[data-row] td[data-col="${col}"]`, (cells) =>
    cells.map((c) => (c.dataset.value !== undefined ? Number(c.dataset.value) : c.textContent.trim().toLowerCase())));
}

const ordered = (v, sign) => v.every((x, i) => i === 0 || sign * (x < v[i - 1] ? -1 : x > v[i - 1] ? 1 : 0) >= 0);

test('search matches as a list: names, tracks, times; a click or the keyboard selects one', async () => {
  const { page, seen, close } = await openTrace(INPUT_BOUND);
  await page.fill('#trace-search', 'EagerPyFunc');
  await page.locator('#trace-search-count').filter({ hasText: /matches/ }).waitFor();
  const total = Number((await page.locator('#trace-search-count').textContent()).replace(/\D/g, ''));
  const list = page.locator('#trace-search-list');
  await list.locator('button.search-hit').first().waitFor();
  const items = await list.locator('button.search-hit').evaluateAll((bs) =>
    bs.map((b) => ({
      name: b.querySelector('.hit-name').textContent,
      track: b.querySelector('.hit-track').textContent,
      start: b.querySelector('.hit-start').textContent,
      duration: b.querySelector('.hit-duration').textContent,
      at: { track: Number(b.dataset.track), event: Number(b.dataset.event) },
    })));
  assert.equal(items.length, Math.min(total, SEARCH_LIST), `${items.length} listed of ${total}`);
  assert.ok(items.every((i) => i.name.includes('EagerPyFunc')), 'every listed name matches');
  assert.ok(items.every((i) => i.track.length > 0), 'every match names its track');
  assert.ok(items.every((i) => /ms$/.test(i.start) && /\d (ps|ns|µs|ms|s)$/.test(i.duration)));
  // In time order.
  const starts = items.map((i) => Number(i.start.replace(/[^\d.]/g, '')));
  assert.ok(ordered(starts, 1), 'listed in time order');
  // One tab stop for the whole list.
  assert.equal(await list.locator('button.search-hit[tabindex="0"]').count(), 1);

  // A click selects that event (the hook shows it) and centres it.
  await list.locator('button.search-hit').nth(2).click();
  await page.waitForFunction(
    (at) => {
      const s = window.__proflensTrace.state().selected;
      return s && s.track === at.track && s.event === at.event;
    },
    items[2].at,
  );
  await page.locator('#trace-details .event-name').filter({ hasText: items[2].name }).waitFor();
  assert.equal(await list.locator('button.search-hit').nth(2).getAttribute('aria-current'), 'true');
  assert.match(await page.locator('#trace-search-count').textContent(), /^3 of /);
  const range = await page.evaluate(() => window.__proflensTrace.state());
  const hitStart = Number(items[2].start.replace(/[^\d.]/g, '')) * 1e9;
  assert.ok(range.start <= hitStart && hitStart <= range.end, 'the event is on screen');

  // ↓ moves the focus to the next match, Enter selects it; End goes to the last.
  await list.locator('button.search-hit').nth(2).focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.index), '3');
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    (at) => {
      const s = window.__proflensTrace.state().selected;
      return s && s.track === at.track && s.event === at.event;
    },
    items[3].at,
  );
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.index), String(items.length - 1));
  await page.keyboard.press('Home');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.index), '0');
  assert.deepEqual(await seriousViolations(page, { context: '#trace-search-list' }), [], 'axe on the list');

  // A new search replaces the list; an empty one hides it.
  await page.fill('#trace-search', '');
  await page.waitForFunction(() => document.querySelector('#trace-search-list').hidden);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a range: statistics per name and per track, sortable, saved as CSV, and its flame graph', async () => {
  const { page, seen, close } = await openTrace(INPUT_BOUND);
  const canvas = page.locator('#trace-canvas');
  await canvas.focus();
  await canvas.evaluate((c) => c.scrollIntoView({ block: 'end' }));
  await page.keyboard.press('0');
  const box = await canvas.boundingBox();
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + 300, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + 700, box.y + box.height - 20, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const pane = page.locator('#trace-summary');
  await pane.locator('#trace-summary-table tbody tr[data-row]').first().waitFor();
  await pane.locator('#trace-summary-tracks tbody tr[data-row]').first().waitFor();
  const head = pane.locator('.range-head');
  const rangePs = Number(await head.getAttribute('data-end-ps')) - Number(await head.getAttribute('data-start-ps'));
  const tracks = Number((await head.textContent()).match(/on (\d+) tracks?/)[1]);
  const events = Number((await head.textContent()).replace(/,/g, '').match(/^(\d+) events?/)[1]);
  assert.ok(rangePs > 0 && tracks > 1 && events > 10, await head.textContent());

  // The columns, each with its definition on hover.
  const columns = ['count', 'total', 'self', 'min', 'max', 'average', 'p50', 'p90', 'p99', 'share'];
  for (const [table, first] of [['trace-summary-table', 'name'], ['trace-summary-tracks', 'track']]) {
    const cols = await page.$$eval(`#${table} thead th`, (ths) => ths.map((th) => th.dataset.col));
    assert.deepEqual(cols, [first, ...columns]);
  }
  const title = (table, col) => page.locator(`#${table} thead th[data-col="${col}"]`).getAttribute('title');
  assert.match(await title('trace-summary-table', 'total'), /clipped to the range/);
  assert.match(await title('trace-summary-table', 'self'), /direct children/);
  assert.match(await title('trace-summary-table', 'p90'), /nearest rank/);
  assert.match(await title('trace-summary-table', 'share'), /Self time ÷ \(range × selected tracks\)/);
  assert.match(await title('trace-summary-tracks', 'share'), /Self time ÷ range/);

  // Per row: min ≤ p50 ≤ p90 ≤ p99 ≤ max, self ≤ total, share within 0..100 %.
  for (const table of ['trace-summary-table', 'trace-summary-tracks']) {
    const rows = await page.$$eval(`#${table} tbody tr[data-row]`, (trs) =>
      trs.map((tr) => Object.fromEntries([...tr.querySelectorAll('td[data-value]')].map((td) => [td.dataset.col, Number(td.dataset.value)]))));
    for (const r of rows) {
      assert.ok(r.min <= r.p50 && r.p50 <= r.p90 && r.p90 <= r.p99 && r.p99 <= r.max, JSON.stringify(r));
      assert.ok(r.self <= r.total && r.total <= r.count * rangePs, JSON.stringify(r));
      assert.ok(r.share >= 0 && r.share <= 1 + 1e-9, JSON.stringify(r));
    }
  }
  // Each track's share is its self time over the range.
  const byTrack = await page.$$eval('#trace-summary-tracks tbody tr[data-row]', (trs) =>
    trs.map((tr) => ({
      count: Number(tr.querySelector('td[data-col="count"]').dataset.value),
      self: Number(tr.querySelector('td[data-col="self"]').dataset.value),
      share: Number(tr.querySelector('td[data-col="share"]').dataset.value),
    })));
  for (const t of byTrack) assert.ok(Math.abs(t.share - t.self / rangePs) < 1e-9, JSON.stringify(t));
  assert.equal(byTrack.reduce((a, t) => a + t.count, 0), events, 'the tracks hold every event of the range');

  // Sorting: by total at first, then Count sorts largest first, again smallest first; Name sorts A to Z.
  const table = 'trace-summary-table';
  assert.ok(ordered(await columnValues(page, table, 'total'), -1), 'by total, largest first');
  const countHeader = page.locator(`#${table} thead th[data-col="count"]`);
  await countHeader.locator('button').click();
  assert.equal(await countHeader.getAttribute('aria-sort'), 'descending');
  assert.ok(ordered(await columnValues(page, table, 'count'), -1), 'by count, largest first');
  await countHeader.locator('button').click();
  assert.equal(await countHeader.getAttribute('aria-sort'), 'ascending');
  const ascending = await columnValues(page, table, 'count');
  assert.ok(ordered(ascending, 1), 'by count, smallest first');
  assert.ok(ascending[0] < ascending.at(-1), 'the counts differ, so the order shows');
  await page.locator(`#${table} thead th[data-col="name"] button`).click();
  assert.ok(ordered(await columnValues(page, table, 'name'), 1), 'by name');

  // Save CSV: the same columns and rows as the table (every row, in the data's order).
  const csv = await download(page, `.save-csv[data-table="${table}"]`);
  assert.equal(csv.name, 'proflens-trace_viewer-trace-summary-table.csv');
  const lines = parseCsv(csv.text);
  const labels = await page.$$eval(`#${table} thead th`, (ths) =>
    ths.map((th) => {
      const label = th.querySelector('button').cloneNode(true);
      label.querySelector('.sort-mark')?.remove();
      return label.textContent.trim();
    }));
  assert.deepEqual(lines[0], labels);
  const shown = await bodyRows(page, table);
  const range = page.locator('#trace-summary .pager .range');
  const pager = (await range.count()) > 0 ? await range.first().textContent() : null;
  const rowCount = pager ? Number(pager.replace(/,/g, '').match(/of (\d+)/)[1]) : shown.length;
  assert.equal(lines.length - 1, rowCount, 'every row');
  const csvRows = new Set(lines.slice(1).map((r) => r.join('\u0001')));
  for (const r of shown) assert.ok(csvRows.has(r.join('\u0001')), `row ${r.join(' | ')} in the CSV`);
  const csvCount = lines.slice(1).reduce((a, r) => a + Number(r[1].replace(/,/g, '')), 0);
  assert.equal(csvCount, events, 'the names hold every event of the range');
  const tracksCsv = parseCsv((await download(page, '.save-csv[data-table="trace-summary-tracks"]')).text);
  assert.equal(tracksCsv.length - 1, byTrack.length);

  // The flame graph: frames whose widths add up, numbers on hover, zoom on click.
  const flame = page.locator('#trace-flame-svg');
  await flame.locator('.flame-frame').first().waitFor();
  const frames = () =>
    page.$$eval('#trace-flame-svg .flame-frame', (fs) =>
      fs.map((f) => {
        // The frame's box (its text may overflow it, clipped).
        const r = f.querySelector('rect').getBoundingClientRect();
        return {
          frame: Number(f.dataset.frame), parent: Number(f.dataset.parent), depth: Number(f.dataset.depth),
          total: Number(f.dataset.totalPs), self: Number(f.dataset.selfPs), name: f.dataset.name, x: r.x, width: r.width,
        };
      }));
  const all = await frames();
  const root = all.find((f) => f.frame === 0);
  // The root is every track's outermost time in the range: the tracks' self times added up.
  assert.equal(root.total, byTrack.reduce((a, t) => a + t.self, 0));
  assert.ok(root.total > 0 && root.total <= rangePs * tracks);
  assert.ok(all.length > 3, `${all.length} frames`);
  for (const parent of all) {
    const children = all.filter((f) => f.parent === parent.frame && f.frame !== parent.frame);
    if (!children.length) continue;
    const sum = children.reduce((a, c) => a + c.total, 0);
    assert.equal(sum + parent.self, parent.total, `frame ${parent.name}: children + self = total`);
    const width = children.reduce((a, c) => a + c.width, 0);
    assert.ok(width <= parent.width + 0.5, `children of ${parent.name} fit under it: ${width} > ${parent.width}`);
    assert.ok(Math.abs(width - parent.width * (sum / parent.total)) < 1 + children.length * 0.01, `widths of ${parent.name}'s children`);
    for (const c of children) assert.ok(c.x >= parent.x - 0.5 && c.x + c.width <= parent.x + parent.width + 0.5);
  }
  // Hover: name, total, self and share of the widest frame under the root.
  const top = all.filter((f) => f.depth === 1).sort((a, b) => b.width - a.width)[0];
  // The flame graph is in the bottom panel, which scrolls: bring the frame into view first.
  await flame.locator(`.flame-frame[data-frame="${top.frame}"] rect`).scrollIntoViewIfNeeded();
  const topBox = await flame.locator(`.flame-frame[data-frame="${top.frame}"] rect`).boundingBox();
  await page.mouse.move(topBox.x + topBox.width / 2, topBox.y + topBox.height / 2);
  const hover = page.locator('#trace-flame-hover');
  await hover.filter({ hasText: top.name }).waitFor();
  assert.match(await hover.textContent(), /: total [\d.,]+ (ps|ns|µs|ms|s), self [\d.,]+ (ps|ns|µs|ms|s), [\d.]+% of the selection$/);
  const share = Number((await hover.textContent()).match(/([\d.]+) ?% of the selection/)[1]);
  assert.ok(Math.abs(share - (100 * top.total) / root.total) < 0.1, `${share} %`);
  // A click zooms to the frame: it fills the width; Reset zoom goes back.
  await page.mouse.click(topBox.x + topBox.width / 2, topBox.y + topBox.height / 2);
  await page.waitForFunction(
    (f) => {
      const el = document.querySelector(`#trace-flame-svg .flame-frame[data-frame="${f}"]`);
      const svg = document.querySelector('#trace-flame-svg');
      return el && Math.abs(el.getBoundingClientRect().width - svg.getBoundingClientRect().width) < 1;
    },
    top.frame,
  );
  assert.equal(await page.locator('#trace-flame-reset').isDisabled(), false);
  await page.click('#trace-flame-reset');
  await page.waitForFunction((n) => document.querySelectorAll('#trace-flame-svg .flame-frame').length === n, all.length);
  assert.deepEqual(await seriousViolations(page, { context: '#trace-summary' }), [], 'axe on the range pane');
  await page.locator('#trace-summary').screenshot({ path: path.join(ARTIFACTS, 'trace-selection.png') });

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
