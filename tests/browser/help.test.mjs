// Browser tests of the help where the question arises: every tool the page
// offers on a few real profiles (the demo, a GPU XSpace, PyTorch traces, a
// comparison) shows a "How to read this" panel under its title, collapsed,
// that opens on a click and on Enter and has the guide's text; and every
// column header of the tool's tables has a hover text (its `title`, which is
// also the header's accessible description). A failure names the tool and
// the column.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, offeredTools, assertOwnOrigin, DATA } from './harness.mjs';

const NVIDIA_GPU = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
const RESNET_PT = path.join(DATA, 'kineto/kineto-v100-resnet50-pt19/worker0.1623143089861.pt.trace.json.gz');
const DDP_PT = path.join(DATA, 'kineto/kineto-a100-ddp-nccl/nccl_data.json.gz');
const MULTI_RANK = path.join(DATA, 'kineto/kineto-multirank-sampled');
const MI300X_XLA = path.join(DATA, 'xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb');
const CUSTOM_LOOP = path.join(DATA, 'xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb');
const CUSTOM_LOOP_XLA = path.join(DATA, 'xspace/custom_loop_xla/plugins/profile/2026_11_22_09_04_39/vm.xplane.pb');
const SECTIONS = ['What the numbers mean', 'Good and bad', 'What to try next'];

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
  console.log(`# checked: ${checked.join(', ')}`);
});

/** The column headers of the tables in `scope`: how many, and those without a hover text, as "table-id: column". */
async function columnHeaders(scope) {
  return scope.evaluate((root) => {
    const headers = [...root.querySelectorAll('table')].flatMap((table) =>
      [...table.querySelectorAll('thead th, th[scope="col"]')].map((th) => ({ table, th })));
    const untitled = headers
      .filter(({ th }) => !(th.getAttribute('title') ?? '').trim())
      .map(({ table, th }) => `${table.id || table.className || 'table'}: “${th.dataset.col ?? th.textContent.trim()}”`);
    return { count: headers.length, untitled };
  });
}

/** Tools and how many column headers each had, for the test's log. */
const checked = [];

/** The panel `panel` (a locator): collapsed, opens on a click and on Enter, has every section with text. */
async function checkPanel(page, panel, name) {
  assert.equal(await panel.count(), 1, `${name}: one "How to read this" panel`);
  assert.equal(await panel.evaluate((d) => d.tagName), 'DETAILS', `${name}: a <details>`);
  assert.equal(await panel.evaluate((d) => d.open), false, `${name}: collapsed at first`);
  const summary = panel.locator('summary');
  assert.equal((await summary.textContent()).trim(), 'How to read this', `${name}: its summary`);
  await summary.click();
  assert.equal(await panel.evaluate((d) => d.open), true, `${name}: opens on a click`);
  const text = await panel.innerText();
  for (const section of SECTIONS) assert.ok(text.includes(section), `${name}: has “${section}”`);
  const items = await panel.locator('li').allTextContents();
  assert.ok(items.length >= 5 && items.every((i) => i.trim().length > 10), `${name}: every item has text`);
  assert.ok(text.split(/\s+/).length >= 60, `${name}: a guide, not a stub (${text.length} characters)`);
  await summary.click();
  assert.equal(await panel.evaluate((d) => d.open), false, `${name}: closes on a second click`);
  await summary.focus();
  await page.keyboard.press('Enter');
  assert.equal(await panel.evaluate((d) => d.open), true, `${name}: opens on Enter`);
  await page.keyboard.press('Enter');
}

/** Shows `tool` and checks its panel and its tables' headers; `view` names it in messages. */
async function checkTool(page, tool, view = tool) {
  if ((await page.locator('#tool').inputValue()) !== tool) await page.selectOption('#tool', tool);
  const title = page.locator(`h2#tool-${tool}-title`);
  await title.waitFor({ timeout: 120_000 });
  const section = title.locator('xpath=ancestor::section[1]');
  // Right under the title's row (the title and "Save report").
  const panel = title.locator('xpath=parent::div[contains(@class, "tool-head")]/following-sibling::*[1][self::details]');
  assert.equal(await panel.count(), 1, `${view}: a "How to read this" panel right under the title`);
  assert.equal(await panel.getAttribute('data-topic'), view, `${tool}: the guide of ${view}`);
  await checkPanel(page, panel, view);
  // Tables that fill in after the first answer (charts' tables, pickers) are there by now or never.
  await page.waitForTimeout(300);
  const headers = await columnHeaders(section);
  assert.deepEqual(headers.untitled, [], `${view}: column headers without a hover text`);
  checked.push(`${view} (${headers.count} headers)`);
}

/** Opens `file` (through the picker `input`) and checks every tool the page offers for it; returns the tools checked. */
async function checkEveryTool(file, views = {}, input = '#open-files') {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`);
  await page.setInputFiles(input, file);
  const tools = await offeredTools(page);
  assert.ok(tools.length > 0, 'tools offered');
  for (const tool of tools) await checkTool(page, tool, views[tool] ?? tool);
  assertOwnOrigin(seen, env.server.url);
  await close();
  return tools;
}

test('the demo: every tool has its guide and titled column headers', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`);
  await page.click('#open-demo');
  const tools = await offeredTools(page);
  assert.ok(tools.includes('overview_page') && tools.includes('trace_viewer'), `demo tools: ${tools}`);
  for (const tool of tools) await checkTool(page, tool);
  assertOwnOrigin(seen, env.server.url);
  await close();
});

test('a GPU XSpace: every tool has its guide and titled column headers', async () => {
  const tools = await checkEveryTool(NVIDIA_GPU);
  assert.ok(tools.includes('kernel_stats'), `GPU tools: ${tools}`);
});

test('an XLA profile: the XLA tools have their guides and titled column headers', async () => {
  const tools = await checkEveryTool(MI300X_XLA);
  assert.ok(tools.includes('hlo_stats') && tools.includes('memory_viewer'), `XLA tools: ${tools}`);
});

test('PyTorch traces: the PyTorch variants have their own guides', async () => {
  const views = { overview_page: 'pytorch_overview', framework_op_stats: 'operator_stats' };
  const resnet = await checkEveryTool(RESNET_PT, views);
  assert.ok(resnet.includes('idle_time_breakdown') && resnet.includes('kernel_launch_stats'), `tools: ${resnet}`);
  const ddp = await checkEveryTool(DDP_PT, views);
  assert.ok(ddp.length > 0);
  // A job's ranks together ("All hosts"): the tools that combine ranks, stragglers among them.
  const ranks = await checkEveryTool(MULTI_RANK, views, '#open-folder');
  assert.ok(ranks.includes('stragglers'), `all-ranks tools: ${ranks}`);
});

test('compare mode: the comparison has its guide and titled column headers', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`);
  await page.setInputFiles('#open-files', CUSTOM_LOOP);
  await page.locator('#tool-overview_page').waitFor({ timeout: 60_000 });
  await page.setInputFiles('#add-files', CUSTOM_LOOP_XLA);
  for (const tool of ['overview_page', 'framework_op_stats']) {
    if ((await page.locator('#tool').inputValue()) !== tool) await page.selectOption('#tool', tool);
    const section = page.locator(`#tool-compare[data-tool="${tool}"]`);
    await section.waitFor({ timeout: 120_000 });
    const panel = section.locator(':scope > details.how-to-read');
    assert.equal(await panel.getAttribute('data-topic'), 'compare');
    await checkPanel(page, panel, `compare ${tool}`);
    const headers = await columnHeaders(section);
    assert.ok(headers.count > 0, `compare ${tool}: has a table`);
    assert.deepEqual(headers.untitled, [], `compare ${tool}: column headers without a hover text`);
  }
  assertOwnOrigin(seen, env.server.url);
  await close();
});
