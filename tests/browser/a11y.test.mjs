// Accessibility: axe-core (WCAG 2.x A/AA) finds no serious or critical
// violation on the start screen and on every tool each profile offers (the
// demo, GPU and TPU XSpaces, an XLA profile, PyTorch traces with a two-rank
// job's "All hosts", two comparisons); and a keyboard alone opens the demo,
// switches tools and sorts a table, the focused control always outlined.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, offeredTools, TOOL_OPTIONS, DATA } from './harness.mjs';
import { seriousViolations } from './axe.mjs';

const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
const MI300X_XLA = path.join(DATA, 'xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb');
const TPU = path.join(DATA, 'xspace/external/tpu_inference_2.xplane.pb');
const LEGACY_TPU = path.join(DATA, 'legacy/synthetic-tpu-tools');
const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
const CUSTOM_LOOP = path.join(DATA, 'xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb');
const CUSTOM_LOOP_XLA = path.join(DATA, 'xspace/custom_loop_xla/plugins/profile/2026_11_22_09_04_39/vm.xplane.pb');
const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');
const CONTROL = path.join(DATA, 'kineto/kineto-trace-diff-a100-v100/control.json.gz');
const TEST = path.join(DATA, 'kineto/kineto-trace-diff-a100-v100/test.json.gz');

/** The colour scheme the page is checked in (contrast rules depend on it). */
const COLOR_SCHEME = process.env.PROFLENS_COLOR_SCHEME ?? 'light';

let env;
/** Every tool id checked on some profile, to show at the end that none was missed. */
const checked = new Set();
/** How many (profile, host, tool) views axe checked. */
let viewsChecked = 0;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** Waits until `tool` is on screen (or the page says why it is not) and nothing is loading. */
async function shown(page, tool) {
  await page.waitForFunction((tool) => {
    if (document.querySelector('#loading')) return false;
    const error = document.querySelector('#error');
    if (error && !error.hidden) return true;
    return Boolean(document.querySelector(
      `section.tool[aria-labelledby="tool-${tool}-title"], #tool-compare[data-tool="${tool}"], `
      + '#tool-compare:not([data-tool]), #view-error'));
  }, tool, { timeout: 90_000 });
}

/** Runs axe on each tool offered for each host in `hosts` (all the selector's hosts if none); returns the failures. */
async function checkEveryTool(page, label, hosts) {
  const failures = [];
  const hostList = hosts ?? (await page.$$eval('#host option', (o) => o.map((x) => x.value)));
  for (const host of hostList) {
    if ((await page.locator('#host').inputValue()) !== host) {
      await page.selectOption('#host', host);
    }
    const tools = await offeredTools(page);
    assert.ok(tools.length > 0, `${label} / ${host}: no tool offered`);
    for (const tool of tools) {
      if ((await page.locator('#tool').inputValue()) !== tool) {
        await page.selectOption('#tool', tool);
      }
      await shown(page, tool);
      checked.add(tool);
      viewsChecked++;
      for (const line of await seriousViolations(page, { colorScheme: COLOR_SCHEME })) {
        failures.push(`${label} / ${host} / ${tool}: ${line}`);
      }
    }
  }
  return failures;
}

function assertNone(failures) {
  assert.deepEqual(failures, [], `axe found serious or critical violations:\n${failures.join('\n')}`);
}

/** Opens a fresh page, lets `open` load something, waits for the first tool. */
async function withProfile(label, open, { hosts, hash = '' } = {}) {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/${hash}`, { colorScheme: COLOR_SCHEME });
  await open(page);
  await page.locator('main section.tool').first().waitFor({ timeout: 90_000 });
  const failures = await checkEveryTool(page, label, hosts);
  assertNone(failures);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
}

test('axe: the start screen', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`, { colorScheme: COLOR_SCHEME });
  await page.locator('#open-demo').waitFor();
  assertNone((await seriousViolations(page, { colorScheme: COLOR_SCHEME })).map((l) => `start: ${l}`));
  // axe does run and report: an unlabelled text box added to the page is found.
  await page.evaluate(() => document.querySelector('main').append(Object.assign(document.createElement('input'), { id: 'unlabelled' })));
  const found = await seriousViolations(page, { colorScheme: COLOR_SCHEME });
  assert.ok(found.some((l) => l.startsWith('label (critical) #unlabelled')), found.join('\n'));
  await page.evaluate(() => document.querySelector('#unlabelled').remove());
  // A file that is not a profile: the error is announced and passes too.
  await page.setInputFiles('#open-files', path.join(DATA, 'bad/random.xplane.pb'));
  await page.locator('#error:not([hidden])').waitFor({ timeout: 30_000 });
  assertNone((await seriousViolations(page, { colorScheme: COLOR_SCHEME })).map((l) => `start, error: ${l}`));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('axe: every tool of the demo', async () => {
  await withProfile('demo', (page) => page.click('#open-demo'));
});

test('axe: every tool of an NVIDIA GPU XSpace', async () => {
  await withProfile('nvidia', (page) => page.setInputFiles('#open-files', NVIDIA_GPU));
});

test('axe: every tool of an XLA profile (MI300X)', async () => {
  await withProfile('mi300x', (page) => page.setInputFiles('#open-files', MI300X_XLA));
});

test('axe: every tool of a TPU XSpace and of TPU tool files', async () => {
  await withProfile('tpu', (page) => page.setInputFiles('#open-files', TPU));
  await withProfile('legacy-tpu', (page) => page.setInputFiles('#open-folder', LEGACY_TPU));
});

test('axe: every tool of an input-bound CPU profile', async () => {
  await withProfile('input-bound', (page) => page.setInputFiles('#open-files', INPUT_BOUND));
});

test('axe: every tool of a two-rank PyTorch job, "All hosts" and each rank', async () => {
  await withProfile('multirank', (page) => page.setInputFiles('#open-folder', MULTI_RANK));
});

test('axe: every comparison of two XSpaces', async () => {
  await withProfile('compare-xspace', async (page) => {
    await page.setInputFiles('#open-files', CUSTOM_LOOP);
    await page.locator('main section.tool').first().waitFor({ timeout: 90_000 });
    await page.setInputFiles('#add-files', CUSTOM_LOOP_XLA);
    await page.locator('#tool-compare').waitFor({ timeout: 90_000 });
  }, { hosts: ['vm'] });
});

test('axe: every comparison of two PyTorch traces, the trace diff included', async () => {
  await withProfile('compare-pytorch', async (page) => {
    await page.setInputFiles('#open-files', [CONTROL, TEST]);
    await page.locator('main section.tool').first().waitFor({ timeout: 90_000 });
    await page.selectOption('#host', 'test');
    await page.locator('main section.tool').first().waitFor({ timeout: 90_000 });
    const base = await page.$eval('#compare-base option[value$="&control"]', (o) => o.value);
    await page.selectOption('#compare-base', base);
    await page.locator('#tool-compare').waitFor({ timeout: 90_000 });
    await page.locator('#tool option[value="trace_diff"]').waitFor({ state: 'attached' });
  }, { hosts: ['test'] });
});

test('axe covered every tool the selector offers', async (t) => {
  const { page, close } = await openPage(env.browser, `${env.server.url}/`, { colorScheme: COLOR_SCHEME });
  const all = await page.$$eval(TOOL_OPTIONS, (o) => o.map((x) => x.value));
  await close();
  const missed = all.filter((t) => !checked.has(t));
  assert.deepEqual(missed, [], `tools no profile above offered: ${missed.join(', ')}`);
  assert.ok(checked.has('trace_diff'), 'the trace diff was checked');
  t.diagnostic(`axe checked ${viewsChecked} views of ${checked.size} tools`);
});

/**
 * The focused element and whether its focus is visible: an outline of at
 * least 1px that is not `none` (a visually hidden file input shows it on its
 * label, which is what the eye sees).
 */
function focusState(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { name: 'body', visible: false };
    const shown = el.classList.contains('visually-hidden') ? document.querySelector(`label[for="${el.id}"]`) ?? el : el;
    const style = getComputedStyle(shown);
    const visible = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1;
    const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''}`;
    return { name, visible, outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}` };
  });
}

/** Polls `check` (async, in Node) until it holds, for up to 10 s. */
async function waitFor(check, what) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out: ${what}`);
}

/** Presses `key` (Tab) until `matches()` holds in the page, checking at each stop that the focus is visible. */
async function tabTo(page, matches, what, limit = 80, key = 'Tab') {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(key);
    const focus = await focusState(page);
    // Past the last control the focus leaves the page (to the browser's own bar).
    if (focus.name === 'body') continue;
    assert.ok(focus.visible, `focus on ${focus.name} is not visible (outline ${focus.outline})`);
    if (await page.evaluate(matches)) return;
  }
  assert.fail(`${limit} presses of Tab did not reach ${what}`);
}

test('keyboard: open the demo, switch tools, sort a table, move the trace, focus always visible', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`, { colorScheme: COLOR_SCHEME });
  await page.locator('#open-demo').waitFor();
  await tabTo(page, () => document.activeElement?.id === 'open-demo', 'Open demo');
  await page.keyboard.press('Enter');
  await page.locator('main section.tool').first().waitFor({ timeout: 90_000 });
  const first = await page.locator('#tool').inputValue();

  // The tool selector, changed by typing a tool's name: the tool switches.
  // Backwards, so the focus never leaves the page: past the last control it goes to the
  // browser's own bar, and headless Firefox then no longer gives the page the focus.
  await tabTo(page, () => document.activeElement?.id === 'tool', 'the tool selector', 80, 'Shift+Tab');
  await page.keyboard.type('Framework op', { delay: 20 });
  await page.locator('section.tool[aria-labelledby="tool-framework_op_stats-title"]').waitFor({ timeout: 90_000 });
  assert.notEqual(first, 'framework_op_stats');
  assert.equal(await page.locator('#tool').inputValue(), 'framework_op_stats');
  assert.match(await page.evaluate(() => location.hash), /tool=framework_op_stats/);

  // A sortable header: Enter sorts by it, Space reverses it.
  await tabTo(page, () => document.activeElement?.matches('table.sortable th button.sort'), 'a sortable column header');
  const header = await page.evaluate(() => {
    const th = document.activeElement.closest('th');
    return { col: th.dataset.col, table: th.closest('table').id, sort: th.getAttribute('aria-sort') };
  });
  const th = page.locator(`#${header.table} thead th[data-col="${header.col}"]`);
  const values = () => page.$$eval(`#${header.table} tbody tr[data-row] td[data-col="${header.col}"]`,
    (cells) => cells.map((c) => (c.dataset.value !== undefined ? Number(c.dataset.value) : c.textContent.trim().toLowerCase())));
  const ordered = (v, sign) => v.every((x, i) => i === 0 || sign * (x < v[i - 1] ? -1 : x > v[i - 1] ? 1 : 0) >= 0);
  await page.keyboard.press('Enter');
  const once = await th.getAttribute('aria-sort');
  assert.notEqual(once, header.sort, 'Enter changed the sort');
  assert.ok(['ascending', 'descending'].includes(once), once);
  assert.ok(ordered(await values(), once === 'ascending' ? 1 : -1), `column ${header.col} is ${once}`);
  await page.keyboard.press('Space');
  const twice = await th.getAttribute('aria-sort');
  assert.equal(twice, once === 'ascending' ? 'descending' : 'ascending', 'Space reversed the sort');
  assert.ok(ordered(await values(), twice === 'ascending' ? 1 : -1), `column ${header.col} is ${twice}`);

  // The trace viewer: its timeline takes focus and W zooms in.
  await tabTo(page, () => document.activeElement?.id === 'tool', 'the tool selector, backwards', 200, 'Shift+Tab');
  await page.keyboard.type('Trace viewer', { delay: 20 });
  await page.locator('#tool-trace_viewer').waitFor({ timeout: 90_000 });
  await page.locator('#trace-range[data-end-ps]').waitFor();
  await tabTo(page, () => document.activeElement?.id === 'trace-canvas', 'the trace timeline');
  const span = async () => page.$eval('#trace-range', (r) => Number(r.dataset.endPs) - Number(r.dataset.startPs));
  const before = await span();
  await page.keyboard.down('w');
  await page.waitForTimeout(300);
  await page.keyboard.up('w');
  await page.waitForFunction((before) => {
    const r = document.querySelector('#trace-range');
    return Number(r.dataset.endPs) - Number(r.dataset.startPs) < before;
  }, before, { timeout: 10_000 });
  assert.ok((await span()) < before, 'W zoomed in');

  // Events are reached by search: any name (a regular expression), Enter
  // selects the first hit and its details show; they pass axe too.
  await tabTo(page, () => document.activeElement?.id === 'trace-search-regex', 'the regular-expression box', 20, 'Shift+Tab');
  await page.keyboard.press('Space');
  assert.ok(await page.locator('#trace-search-regex').isChecked());
  await tabTo(page, () => document.activeElement?.id === 'trace-search', 'the trace search', 5, 'Shift+Tab');
  await page.keyboard.type('.');
  await page.keyboard.press('Enter');
  await page.locator('#trace-details .event-name').first().waitFor({ timeout: 30_000 });
  assertNone((await seriousViolations(page, { colorScheme: COLOR_SCHEME })).map((l) => `trace details: ${l}`));

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('keyboard: a profile info plane and an op-profile row open with Enter, → and ←; focus stays on the row', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=info`, { colorScheme: COLOR_SCHEME });
  await page.setInputFiles('#open-files', MI300X_XLA);
  await page.locator('#planes tr[data-plane]').first().waitFor({ timeout: 90_000 });
  // The plane's name is a button that says whether its lines are shown.
  await tabTo(page, () => document.activeElement?.matches('#planes .plane-toggle'), 'a plane of the profile info');
  const toggle = page.locator('#planes tr[data-plane] .plane-toggle').first();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await page.keyboard.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await page.locator('#plane-detail-0').waitFor();
  await page.keyboard.press('Space');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await page.locator('#plane-detail-0').waitFor({ state: 'detached' });

  // The op profile's tree: a closed program opens with → and Enter, closes with ←.
  await page.selectOption('#tool', 'op_profile');
  await page.locator('#op-profile-tree .op-row[role="treeitem"]').first().waitFor({ timeout: 90_000 });
  await tabTo(page, () => document.activeElement?.matches('.op-row[role="treeitem"][aria-expanded="false"]'),
    'a closed row of the op profile');
  const rowPath = await page.evaluate(() => document.activeElement.dataset.path);
  const expanded = (p) => page.evaluate((p) =>
    [...document.querySelectorAll('.op-row')].find((r) => r.dataset.path === p)?.getAttribute('aria-expanded'), p);
  const focusedPath = () => page.evaluate(() => document.activeElement?.dataset?.path);
  // Focus shows the op's card, as hovering does.
  assert.doesNotMatch(await page.locator('#op-detail').textContent(), /Hover or focus an op/);
  await page.keyboard.press('ArrowRight');
  await waitFor(async () => (await expanded(rowPath)) === 'true' && (await focusedPath()) === rowPath, '→ opened the row');
  await page.keyboard.press('ArrowLeft');
  await waitFor(async () => (await expanded(rowPath)) === 'false' && (await focusedPath()) === rowPath, '← closed the row');
  await page.keyboard.press('Enter');
  await waitFor(async () => (await expanded(rowPath)) === 'true' && (await focusedPath()) === rowPath, 'Enter opened the row');
  assert.ok((await focusState(page)).visible, 'the row shows its focus');

  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
