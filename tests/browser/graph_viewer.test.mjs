// Browser test of the graph viewer on a real JAX profile from an AMD MI300X
// (a 3-D convolution): the SVG graph around the entry's root, recentring on
// a click, the hops and fusion controls, and the HLO text tab.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, ARTIFACTS } from './harness.mjs';

const MI300X_CONV = path.join(DATA, 'xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb');

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

const nodeNames = (page) => page.$$eval('#graph-viewer-graph .node', (n) => n.map((x) => x.dataset.name));
const centre = (page) => page.$eval('#graph-viewer-graph .node.center', (n) => n.dataset.name);
const edgeCount = (page) => page.$$eval('#graph-viewer-graph .edge', (e) => e.length);
const clusterNames = (page) => page.$$eval('#graph-viewer-graph .cluster', (c) => c.map((x) => x.dataset.name));

test('graph viewer: draw around the root, recentre on a click, change hops and fusions, read the text', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=graph_viewer`);
  await page.setInputFiles('#open-files', MI300X_CONV);
  await page.locator('#graph-viewer-graph').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#graph-viewer-module').inputValue(), 'jit_forward_3d_conv(15)');

  // Three hops above the entry's root (ROOT %bitcast.32.0): the transpose
  // fusion it reads, expanded into its fused computation (param → bitcast →
  // transpose), the tuple element it fuses and the cuDNN convolution:
  // 6 instructions, 5 edges (convolution → element → param → bitcast →
  // transpose → root).
  assert.equal(await centre(page), 'bitcast.32.0');
  assert.deepEqual(
    (await nodeNames(page)).sort(),
    ['bitcast.32.0', 'bitcast.51.1', 'cudnn-conv.1.0', 'get-tuple-element.1.0', 'param_0.1', 'transpose.11.1'],
  );
  assert.equal(await edgeCount(page), 5);
  assert.deepEqual(await clusterNames(page), ['input_transpose_fusion']);
  // Labels are SVG text nodes.
  const label = page.locator('#graph-viewer-graph .node[data-name="cudnn-conv.1.0"] text.name');
  assert.equal(await label.textContent(), 'cudnn-conv.1.0');
  // Every edge goes down the page: operands above their users.
  const downward = await page.$$eval('#graph-viewer-graph .edge', (edges) =>
    edges.every((e) => {
      const ys = e.getAttribute('points').split(' ').map((p) => parseFloat(p.split(',')[1]));
      return ys.every((y, i) => i === 0 || y > ys[i - 1]);
    }),
  );
  assert.ok(downward);
  await page.screenshot({ path: path.join(ARTIFACTS, 'graph-viewer.png'), fullPage: true });

  // A click on the convolution recentres the graph on it: its operands'
  // bitcasts and the fusions behind them come in.
  await page.locator('#graph-viewer-graph .node[data-name="cudnn-conv.1.0"]').click();
  await page.waitForFunction(() => document.querySelector('#graph-viewer-graph .node.center')?.dataset.name === 'cudnn-conv.1.0');
  const around = await nodeNames(page);
  for (const name of ['bitcast.39.0', 'bitcast.46.0', 'get-tuple-element.1.0', 'param.2', 'param.1.0']) {
    assert.ok(around.includes(name), `${name} not in ${around.join(',')}`);
  }
  assert.equal(await page.locator('#graph-viewer-node').inputValue(), 'cudnn-conv.1.0');

  // One hop: the convolution, its two operands and its one user.
  await page.selectOption('#graph-viewer-width', '1');
  await page.waitForFunction(() => document.querySelectorAll('#graph-viewer-graph .node').length === 4);
  assert.deepEqual((await nodeNames(page)).sort(), ['bitcast.39.0', 'bitcast.46.0', 'cudnn-conv.1.0', 'get-tuple-element.1.0']);
  assert.equal(await edgeCount(page), 3);

  // Fusions merged: around the root with 1 hop, the fusion is one node, no cluster.
  await page.locator('#graph-viewer-node').fill('bitcast.32.0');
  await page.locator('#graph-viewer-show').click();
  await page.waitForFunction(() => document.querySelector('#graph-viewer-graph .node.center')?.dataset.name === 'bitcast.32.0');
  assert.deepEqual(await clusterNames(page), ['input_transpose_fusion']);
  await page.locator('#graph-viewer-expand').uncheck();
  await page.waitForFunction(() => document.querySelectorAll('#graph-viewer-graph .cluster').length === 0);
  assert.deepEqual((await nodeNames(page)).sort(), ['bitcast.32.0', 'input_transpose_fusion']);

  // The text tab: XProf's long_txt of the module, as text.
  await page.locator('#graph-viewer-tab-text').click();
  const text = await page.locator('#graph-viewer-text').textContent();
  assert.ok(text.startsWith('HloModule jit_forward_3d_conv, is_scheduled=true'), text.slice(0, 80));
  assert.ok(text.includes('ENTRY %main.4_spmd'));
  assert.ok(text.includes('custom_call_target="__cudnn$convForward"'));
  const download = page.waitForEvent('download');
  await page.locator('#graph-viewer-download').click();
  assert.equal((await download).suggestedFilename(), 'graph_viewer.jit_forward_3d_conv(15).long_txt.txt');

  assertOwnOrigin(seen, env.server.url);
  await close();
});
