// Browser tests of the trace viewer's counter tracks: the memory series of a
// real PyTorch trace (H100, `[memory]` events) drawn as an area chart, and
// the value at the pointer in the hover card; an nvidia-smi log opened with
// the trace adds the GPU's counters. Pixels and DOM are checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openTrace as openTraceOn, assertOwnOrigin, DATA } from './harness.mjs';

const H100 = path.join(DATA, 'kineto/kineto-h100-hf-inference/Falconsai_nsfw_image_detection__1016002.json.gz');
// A copy of that trace with a synthetic nvidia-smi log beside it (tests/data/nvidia_smi/README.md).
const SMI_DIR = path.join(DATA, 'nvidia_smi/h100');
const SMI = [path.join(SMI_DIR, 'Falconsai_nsfw_image_detection__1016002.json.gz'), path.join(SMI_DIR, 'nvidia-smi.csv')];

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const openTrace = (files) => openTraceOn(env, files);

const counterTracks = (page) => page.evaluate(() => window.__proflensTrace.counterTracks());

/** Scrolls (Alt+wheel) until the counter track named `name` is on the canvas
 * whole and its samples have come; returns it. */
async function showCounter(page, name) {
  const canvas = await page.locator('#trace-canvas').boundingBox();
  await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
  for (let tries = 0; tries < 40; tries++) {
    const track = (await counterTracks(page)).find((t) => t.name === name);
    assert.ok(track, `counter track ${name}`);
    const inside = track.top >= canvas.y + 26 && track.bottom <= canvas.y + canvas.height;
    if (inside && track.samples > 0) return track;
    if (!inside) {
      await page.keyboard.down('Alt');
      await page.mouse.wheel(0, track.top < canvas.y + 26 ? -120 : 120);
      await page.keyboard.up('Alt');
    }
    await page.waitForTimeout(150);
  }
  assert.fail(`counter track ${name} never shown with samples`);
}

/** Per column of the chart's box (device pixels), how many pixels are
 * coloured (the area's tint is far from the greys of background and grid). */
function columnFill(page, box) {
  return page.$eval(
    '#trace-canvas',
    (canvas, b) => {
      const r = canvas.getBoundingClientRect();
      const k = canvas.width / r.width;
      const [x0, x1] = [Math.ceil((b.left - r.left) * k), Math.floor((b.right - r.left) * k)];
      const [y0, y1] = [Math.ceil((b.top - r.top) * k), Math.floor((b.bottom - r.top) * k)];
      const { data } = canvas.getContext('2d').getImageData(x0, y0, x1 - x0, y1 - y0);
      const w = x1 - x0;
      const columns = new Array(w).fill(0);
      for (let i = 0; i < data.length; i += 4) {
        const [red, g, bl] = [data[i], data[i + 1], data[i + 2]];
        if (Math.max(red, g, bl) - Math.min(red, g, bl) > 25) columns[(i / 4) % w]++;
      }
      return { columns, height: y1 - y0, scale: k };
    },
    box,
  );
}

test('counter tracks: PyTorch memory drawn as an area chart, value on hover', async () => {
  const { page, seen, close } = await openTrace(H100);
  const tracks = await counterTracks(page);
  const names = tracks.map((t) => t.name);
  for (const name of ['Memory allocated (GPU_0)', 'Memory reserved (GPU_0)', 'Memory allocated (CPU)']) {
    assert.ok(names.includes(name), `${name} in ${JSON.stringify(names)}`);
  }
  const gpu = await showCounter(page, 'Memory allocated (GPU_0)');
  assert.equal(gpu.unit, 'B');
  assert.ok(gpu.max > 1e6, `the GPU's largest allocation is over a MB: ${gpu.max}`);

  await assertDrawnWithValue(page, gpu, /^\d+(\.\d+)? (B|KiB|MiB|GiB) at \d+(\.\d+)? (ps|ns|µs|ms|s)$/);
  assertOwnOrigin(seen, env.server.url);
  await close();
});

/** The counter's area is filled, and hovering over it shows its name and a value matching `detailPattern`. */
async function assertDrawnWithValue(page, track, detailPattern) {
  const gpu = track;
  // The area is filled: many columns of the chart have coloured pixels, and
  // the fullest column is most of the chart's height (the largest value).
  const fill = await columnFill(page, gpu);
  const filled = fill.columns.filter((c) => c > 0).length;
  assert.ok(filled > fill.columns.length * 0.3, `filled columns ${filled} of ${fill.columns.length}`);
  assert.ok(Math.max(...fill.columns) > fill.height * 0.6, `tallest ${Math.max(...fill.columns)} of ${fill.height}`);

  // Hovering over a filled column shows the track's name and a value with its unit.
  const column = fill.columns.findIndex((c) => c > fill.height * 0.3);
  assert.ok(column >= 0, 'a tall column to hover');
  const x = gpu.left + (column + 0.5) / fill.scale;
  await page.mouse.move(x, (gpu.top + gpu.bottom) / 2);
  const card = page.locator('#trace-tooltip');
  await card.waitFor({ timeout: 5_000 });
  assert.equal(await card.locator('.tooltip-name').textContent(), gpu.name);
  const detail = await card.locator('.tooltip-detail').textContent();
  assert.match(detail, detailPattern, detail);
  await page.mouse.move(0, 0);
}

test('counter tracks: an nvidia-smi log beside the trace adds the GPU counters', async () => {
  const { page, seen, close } = await openTrace(SMI);
  const names = (await counterTracks(page)).map((t) => t.name);
  for (const name of ['utilization.gpu (GPU 0)', 'memory.used (GPU 0)', 'power.draw (GPU 0)', 'Memory allocated (GPU_0)']) {
    assert.ok(names.includes(name), `${name} in ${JSON.stringify(names)}`);
  }
  const util = await showCounter(page, 'utilization.gpu (GPU 0)');
  assert.equal(util.unit, '%');
  assert.equal(util.max, 97, "the log's largest utilization");
  await assertDrawnWithValue(page, util, /^\d+ % at -?\d+(\.\d+)? (ps|ns|µs|ms|s)$/);
  const power = await showCounter(page, 'power.draw (GPU 0)');
  assert.equal(power.unit, 'W');
  await assertDrawnWithValue(page, power, /^\d+(\.\d+)? W at -?\d+(\.\d+)? (ps|ns|µs|ms|s)$/);
  assertOwnOrigin(seen, env.server.url);
  await close();
});
