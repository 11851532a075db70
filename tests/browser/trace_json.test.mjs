// Browser tests of Chrome trace-event JSON in the trace viewer (issue #17,
// item 6): a hand-written chrome://tracing file, the TPU trace JSON of a
// JAX/vLLM run and XProf's own trace.json.gz open with their sections in
// sort-index order; selecting an event with a flow lists the event at the
// other end in the details pane and draws the arrow (pixels of the flow
// colour on the canvas), on the hand-written file and on a Kineto trace
// whose forward ops link to their backward ops (`fwdbwd` flows).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { launch, openTrace as openTraceOn, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const HANDWRITTEN = path.join(DATA, 'chrome_trace/handwritten_training.trace.json');
const TPU_JSON = path.join(DATA, 'chrome_trace/t1v-n-9eb622fc-w-0.trace.json.gz');
const XPROF_JSON = path.join(DATA, 'chrome_trace/jax_mlp.vm.trace.json.gz');
// The Kineto trace with fwdbwd flows (the H100 inference traces have none: no backward pass).
const NCCL = path.join(DATA, 'kineto/kineto-a100-ddp-nccl/nccl_data.json.gz');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const openTrace = (files) => openTraceOn(env, files);

const sections = (page) => page.evaluate(() => window.__proflensTrace.sections());

/** Canvas pixels of the flow arrows' colour (a blue-grey, drawn at 85 % over the background). */
function flowPixels(page) {
  return page.$eval('#trace-canvas', (canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      if (r < 170 && b - r >= 12 && b - r <= 30 && g - r >= 5 && g - r <= 18) n++;
    }
    return n;
  });
}

/** Two animation frames: the canvas shows the latest state. */
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** The linked events listed in the details pane, as "Kind → name". */
async function listedLinks(page) {
  const items = page.locator('#trace-details ul.trace-links li');
  await items.first().waitFor({ timeout: 30_000 });
  const kinds = await items.locator('.link-kind').allTextContents();
  const names = await items.locator('.link-button').allTextContents();
  return kinds.map((k, i) => `${k.trim()} → ${names[i].trim()}`);
}

/** Arrow pixels: flow-coloured pixels with the selection minus those after Escape clears it (same view). */
async function arrowPixels(page) {
  await page.mouse.move(1, 1);
  await settle(page);
  const selected = await flowPixels(page);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__proflensTrace.state().selected == null);
  await settle(page);
  return selected - (await flowPixels(page));
}

async function clickBox(page, name) {
  await page.waitForFunction((n) => window.__proflensTrace.findBox(n) != null, name, { timeout: 30_000 });
  const box = await page.evaluate((n) => window.__proflensTrace.findBox(n), name);
  assert.equal(box.name, name);
  await page.mouse.click(box.x + Math.min(box.width / 2, 20), box.y + box.height / 2);
  await page.locator('#trace-details .event-name').filter({ hasText: name }).first().waitFor({ timeout: 30_000 });
}

test('a hand-written chrome://tracing file: sections by sort index, flows listed and drawn', async (t) => {
  const { page, seen, close } = await openTrace(HANDWRITTEN);
  // process_sort_index puts the data loader (pid 2) above the trainer (pid 1);
  // thread_sort_index puts "comm" (tid 11) above "main" (tid 10).
  const shown = await sections(page);
  assert.deepEqual(shown.map((s) => s.name), ['Data loader (pid 2)', 'Trainer (pid 1)']);
  assert.deepEqual(shown[1].tracks, ['comm', 'main']);
  // B/E, X and i events with numeric and string times: 14 slices and an instant.
  assert.equal(await page.locator('#trace-layout').getAttribute('data-events'), '15');

  // "forward" begins after the flow's end (no "bp"): the next slice binds it.
  await clickBox(page, 'forward');
  assert.deepEqual(await listedLinks(page), ['Flow from (batch) → load_batch']);
  const forwardArrow = await arrowPixels(page);
  t.diagnostic(`load_batch → forward arrow: ${forwardArrow} px`);
  assert.ok(forwardArrow > 20, `${forwardArrow} arrow pixels`);

  // backward → allreduce (a step) → sgd_update (the end, "bp":"e": the enclosing slice).
  await clickBox(page, 'backward');
  assert.deepEqual(await listedLinks(page), ['Flow to (grads) → allreduce']);
  await page.locator('#trace-details .link-button').filter({ hasText: 'allreduce' }).click();
  await page.locator('#trace-details .event-name').filter({ hasText: 'allreduce' }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('#trace-details ul.trace-links li').length === 2);
  assert.deepEqual((await listedLinks(page)).sort(), ['Flow from (grads) → backward', 'Flow to (grads) → sgd_update']);
  const stepArrows = await arrowPixels(page);
  t.diagnostic(`backward → allreduce → sgd_update arrows: ${stepArrows} px`);
  assert.ok(stepArrows > 20, `${stepArrows} arrow pixels`);

  // Names from the file are text, never markup.
  assert.equal(await page.locator('#trace-details script').count(), 0);
  await page.screenshot({ path: path.join(ARTIFACTS, 'trace_json_handwritten.png') });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('TPU trace JSON: devices then host, threads in thread_sort_index order', async () => {
  // The order the file asks for, read from its metadata.
  const trace = JSON.parse(zlib.gunzipSync(fs.readFileSync(TPU_JSON)).toString('utf8'));
  const meta = (name) => trace.traceEvents.filter((e) => e.ph === 'M' && e.name === name);
  const processName = new Map(meta('process_name').map((e) => [e.pid, e.args.name]));
  const processSort = new Map(meta('process_sort_index').map((e) => [e.pid, e.args.sort_index]));
  const threadName = new Map(meta('thread_name').map((e) => [`${e.pid}/${e.tid}`, e.args.name]));
  const threadSort = new Map(meta('thread_sort_index').map((e) => [`${e.pid}/${e.tid}`, e.args.sort_index]));
  const withEvents = new Set(trace.traceEvents.filter((e) => e.ph === 'X').map((e) => `${e.pid}/${e.tid}`));
  const pids = [...processName.keys()].sort((a, b) => processSort.get(a) - processSort.get(b));
  const expectedThreads = (pid) =>
    [...withEvents]
      .filter((k) => k.startsWith(`${pid}/`))
      .sort((a, b) => threadSort.get(a) - threadSort.get(b))
      .map((k) => threadName.get(k) ?? `tid ${k.split('/')[1]}`);

  const { page, seen, close } = await openTrace(TPU_JSON);
  const shown = await sections(page);
  assert.deepEqual(shown.map((s) => s.name), pids.map((p) => processName.get(p)));
  assert.deepEqual(shown.map((s) => s.name), ['/device:TPU:0', '/device:TPU:1', '/host:CPU']);
  for (const [i, pid] of pids.entries()) {
    const expected = expectedThreads(pid);
    // Tracks Proflens derives (steps, XLA ops) sit among the file's own; the file's keep its order.
    const own = shown[i].tracks.filter((t) => expected.includes(t));
    assert.deepEqual(own, expected, `${processName.get(pid)}: ${shown[i].tracks.join(', ')}`);
  }
  assert.ok(expectedThreads(701).length > 15);
  // Every X event is drawn (the file has no B/E or instants).
  const xEvents = trace.traceEvents.filter((e) => e.ph === 'X').length;
  assert.ok(Number(await page.locator('#trace-layout').getAttribute('data-events')) >= xEvents);
  await clickBox(page, (await page.evaluate(() => window.__proflensTrace.findBox(''))).name);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test("XProf's trace.json.gz opens with its host section and threads", async () => {
  const trace = JSON.parse(zlib.gunzipSync(fs.readFileSync(XPROF_JSON)).toString('utf8'));
  const names = trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => e.args.name);
  const { page, seen, close } = await openTrace(XPROF_JSON);
  const shown = await sections(page);
  assert.deepEqual(shown.map((s) => s.name), names);
  assert.ok(shown[0].tracks.length >= 4, shown[0].tracks.join(', '));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('Kineto: a backward op lists its forward op (fwdbwd flow) and the arrow is drawn', async (t) => {
  const { page, seen, close } = await openTrace(NCCL);
  // The op itself, not its "autograd::engine::evaluate_function: …" wrapper.
  await page.check('#trace-search-regex');
  await page.fill('#trace-search', '^ConvolutionBackward0$');
  await page.locator('#trace-search-count').filter({ hasText: /matches/ }).waitFor({ timeout: 30_000 });
  await page.click('#trace-search-next');
  const details = page.locator('#trace-details');
  await details.locator('.event-name').filter({ hasText: /^ConvolutionBackward0$/ }).first().waitFor();
  const links = await listedLinks(page);
  assert.ok(links.includes('Flow from (fwdbwd) → aten::convolution'), links.join('; '));
  // The forward op, one click away, links back.
  await details.locator('.link-button').filter({ hasText: 'aten::convolution' }).first().click();
  await details.locator('.event-name').filter({ hasText: 'aten::convolution' }).first().waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('#trace-details .link-kind')].some((k) => k.textContent.includes('fwdbwd')));
  const back = await listedLinks(page);
  assert.ok(back.includes('Flow to (fwdbwd) → ConvolutionBackward0'), back.join('; '));
  // Both ends on screen: the whole timeline.
  await page.mouse.move(1, 1);
  await page.keyboard.press('0');
  const arrow = await arrowPixels(page);
  t.diagnostic(`aten::convolution → ConvolutionBackward0 arrow: ${arrow} px`);
  assert.ok(arrow > 20, `${arrow} arrow pixels`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
