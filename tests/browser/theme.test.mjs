// Browser tests of the dark theme: the system's setting picks it, the theme
// selector overrides it and is remembered (applied before the app starts),
// text and charts keep WCAG contrast in both themes on several tools, and the
// trace viewer's canvas is dark with readable names on its boxes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, assertOwnOrigin, offeredTools, DATA, DIST, ARTIFACTS, isFirefox } from './harness.mjs';

const MI300X_CONV = path.join(DATA, 'xspace/external/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb');
const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');
/** Tools visited on the demo, when it offers them (at least three must be). */
const TOOLS = ['advisor', 'overview_page', 'framework_op_stats', 'input_pipeline_analyzer', 'memory_profile', 'trace_viewer'];
/** Text that must reach 4.5:1 against what is behind it (CSS selectors). */
const TEXT = [
  'body', '.brand', '.field label', 'select', '.button', '.drop-hint', '.privacy', 'table.data td',
  'table.data thead th', 'table.sortable button.sort', 'table.data caption', '.subtitle', '.note', '.notice',
  '.summary dt', '.summary dd', '.legend li', '.link-button', 'a', '.verdict', '.step-table summary',
  '.pager .range', '.trace-status', 'kbd', 'button', '.finding-gain', '.finding-rank', 'pre.finding-fix code',
];

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** Opens the demo from the menu and asks for its overview (it opens on the Advisor). */
async function openDemoOverview(page) {
  await page.click('#open-demo');
  await page.locator('#tool-advisor').waitFor({ timeout: 60_000 });
  await page.selectOption('#tool', 'overview_page');
}

/** A page whose system setting is `scheme`, recording requests, errors and CSP violations. */
async function openPage(url, scheme) {
  const ctx = (await env.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme }));
  const seen = { requests: [], errors: [], csp: [] };
  ctx.on('request', (r) => seen.requests.push(r.url()));
  await ctx.exposeFunction('__reportCsp', (v) => seen.csp.push(v));
  await ctx.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => window.__reportCsp(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const page = await ctx.newPage();
  page.on('console', (m) => m.type() === 'error' && seen.errors.push(m.text()));
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  await page.goto(url);
  await installHelpers(page);
  return { page, ctx, seen, close: () => ctx.close() };
}

/** WCAG helpers inside the page (page.evaluate is not bound by the page's CSP). */
async function installHelpers(page) {
  await page.evaluate(() => {
    const parse = (text) => {
      const m = String(text).trim().match(/^rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+))?\)$/);
      if (m) return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
      const h = String(text).trim().match(/^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i);
      if (h) return [parseInt(h[1], 16), parseInt(h[2], 16), parseInt(h[3], 16), 1];
      throw new Error(`unreadable colour ${text}`);
    };
    const over = (top, bottom) => top.slice(0, 3).map((v, i) => v * top[3] + bottom[i] * (1 - top[3]));
    const luminance = (c) => {
      const [r, g, b] = c.slice(0, 3).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const contrast = (a, b) => {
      const [la, lb] = [luminance(a), luminance(b)];
      return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    };
    /** What is painted behind `el`: its and its ancestors' backgrounds, composited. */
    const background = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      let colour = [255, 255, 255];
      for (const layer of layers.reverse()) colour = over(layer, colour);
      return colour;
    };
    const cssVar = (name) => parse(getComputedStyle(document.documentElement).getPropertyValue(name));
    const visible = (el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' && !el.closest('[hidden]');
    };
    /** The lowest contrast of each selector's visible elements (first 8 of each) with text. */
    const textContrast = (selectors) => {
      const out = {};
      for (const selector of selectors) {
        const els = [...document.querySelectorAll(selector)]
          .filter((e) => visible(e) && e.textContent.trim() && !e.disabled).slice(0, 8);
        if (!els.length) continue;
        out[selector] = Math.min(...els.map((e) => {
          const bg = background(e);
          return contrast(over(parse(getComputedStyle(e).color), bg), bg);
        }));
      }
      return out;
    };
    window.__theme = { parse, over, contrast, luminance, background, cssVar, textContrast };
  });
}

/** The luminance of the page's ground (body). */
function groundLuminance(page) {
  return page.evaluate(() => window.__theme.luminance(window.__theme.background(document.body)));
}

/** The colour of a canvas's top-left pixel (charts fill their ground there), once drawn. */
async function cornerPixel(page, selector) {
  await page.waitForFunction((s) => {
    const c = document.querySelector(s);
    return c && c.width > 1 && c.getContext('2d').getImageData(1, 1, 1, 1).data[3] === 255;
  }, selector, { timeout: 20_000 });
  return page.$eval(selector, (c) => [...c.getContext('2d').getImageData(1, 1, 1, 1).data.slice(0, 3)]);
}

async function waitForColour(page, selector, colour) {
  await page.waitForFunction(([s, want]) => {
    const c = document.querySelector(s);
    const px = c?.getContext('2d').getImageData(1, 1, 1, 1).data;
    return px && want.every((v, i) => px[i] === v);
  }, [selector, colour], { timeout: 20_000 });
}

test('the system setting picks the theme; the selector overrides it, is remembered and applied before the app starts', async () => {
  const { page, ctx, seen, close } = await openPage(`${env.server.url}/`, 'dark');
  await openDemoOverview(page);
  await page.locator('#tool-overview_page #step-time-graph[data-bars]').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#theme-choice').inputValue(), 'system');
  assert.equal(await page.getAttribute('html', 'data-theme'), null);
  assert.ok((await groundLuminance(page)) < 0.05, 'system dark gives a dark page');
  const darkChart = await page.evaluate(() => window.__theme.cssVar('--chart-bg').slice(0, 3));
  assert.deepEqual(await cornerPixel(page, '#step-time-graph'), darkChart, 'the chart is drawn on the dark ground');

  // The system turns light: the page and the chart follow (no reload). Firefox
  // under WebDriver BiDi cannot change the system setting of an open page, so
  // there the page stays on the dark system it was opened with.
  if (!isFirefox) {
    await page.emulateMedia({ colorScheme: 'light' });
    assert.ok((await groundLuminance(page)) > 0.8, 'system light gives a light page');
    const lightChart = await page.evaluate(() => window.__theme.cssVar('--chart-bg').slice(0, 3));
    assert.notDeepEqual(lightChart, darkChart);
    await waitForColour(page, '#step-time-graph', lightChart);
  }

  // The reader picks dark: it wins over the system's light, and the chart is redrawn.
  await page.selectOption('#theme-choice', 'dark');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.ok((await groundLuminance(page)) < 0.05);
  await waitForColour(page, '#step-time-graph', darkChart);
  assert.equal(await page.evaluate(() => localStorage.getItem('proflens-theme')), 'dark');

  // Remembered: a reload shows dark at once, and the selector says so.
  await page.reload();
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  await page.locator('#theme-choice').waitFor();
  assert.equal(await page.locator('#theme-choice').inputValue(), 'dark');

  // Before the app starts: with its script refused, the page is dark already.
  const early = await ctx.newPage();
  await early.route('**/proflens.js', (route) => route.abort());
  await early.goto(`${env.server.url}/`);
  assert.equal(await early.getAttribute('html', 'data-theme'), 'dark');
  await installHelpers(early);
  assert.ok((await groundLuminance(early)) < 0.05, 'the stored choice applies without the app');
  await early.close();

  // Light overrides a dark system too; "System" forgets the choice.
  if (!isFirefox) await page.emulateMedia({ colorScheme: 'dark' });
  await page.selectOption('#theme-choice', 'light');
  await installHelpers(page);
  assert.ok((await groundLuminance(page)) > 0.8, 'light chosen on a dark system');
  await page.selectOption('#theme-choice', 'system');
  assert.equal(await page.getAttribute('html', 'data-theme'), null);
  assert.equal(await page.evaluate(() => localStorage.getItem('proflens-theme')), null);
  assert.ok((await groundLuminance(page)) < 0.05, 'back to the dark system');

  // The selector is labelled and reachable by keyboard.
  assert.equal(await page.locator('label[for="theme-choice"]').textContent(), 'Theme');
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

for (const scheme of ['light', 'dark']) {
  test(`${scheme} theme: text and chart colours reach WCAG contrast on every tool visited`, async () => {
    const { page, seen, close } = await openPage(`${env.server.url}/`, scheme);
    // The open bar, before a profile (once the app has drawn it).
    await page.locator('#open-demo').waitFor();
    const report = { open: await page.evaluate((t) => window.__theme.textContrast(t), TEXT) };
    await page.click('#open-demo');
    await page.locator('#tool-advisor').waitFor({ timeout: 30_000 });
    const offered = await offeredTools(page);
    const tools = TOOLS.filter((t) => offered.includes(t));
    assert.ok(tools.length >= 3, `demo offers ${offered}`);
    const charts = {};
    for (const tool of tools) {
      await page.selectOption('#tool', tool);
      await page.locator(`#tool-${tool}`).waitFor({ timeout: 30_000 });
      if (tool === 'trace_viewer') {
        await page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, { timeout: 20_000 });
      }
      // Every chart canvas on the tool is drawn on the theme's chart ground.
      const chartBg = await page.evaluate(() => window.__theme.cssVar('--chart-bg').slice(0, 3));
      const canvases = await page.$$eval(`#tool-${tool} canvas[id]:not(#trace-canvas)`, (cs) => cs.map((c) => `#${c.id}`));
      for (const c of canvases) {
        assert.deepEqual(await cornerPixel(page, c), chartBg, `${tool} ${c} ground`);
      }
      charts[tool] = canvases.length;
      await page.screenshot({ path: path.join(ARTIFACTS, `theme-${scheme}-${tool}.png`) });
      report[tool] = await page.evaluate((t) => window.__theme.textContrast(t), TEXT);
    }
    const low = [];
    for (const [where, found] of Object.entries(report)) {
      for (const [selector, ratio] of Object.entries(found)) {
        if (ratio < 4.5) low.push(`${where} ${selector} ${ratio.toFixed(2)}`);
      }
    }
    assert.deepEqual(low, [], `text under 4.5:1 (${scheme})`);
    // What was measured: the main styles were there to measure.
    const measured = new Set(Object.values(report).flatMap((r) => Object.keys(r)));
    for (const s of ['body', 'select', '.button', 'table.data td', 'table.data thead th', '.drop-hint', '.legend li']) {
      assert.ok(measured.has(s), `${s} measured`);
    }
    assert.ok(Object.values(charts).reduce((a, b) => a + b, 0) >= 2, `charts checked: ${JSON.stringify(charts)}`);

    // Chart text 4.5:1, axes (graphics) 3:1, against the chart ground.
    const chart = await page.evaluate(() => {
      const { cssVar, contrast } = window.__theme;
      const bg = cssVar('--chart-bg');
      return { text: contrast(cssVar('--chart-text'), bg), axis: contrast(cssVar('--chart-axis'), bg), ink: contrast(cssVar('--chart-ink'), bg) };
    });
    assert.ok(chart.text >= 4.5 && chart.ink >= 4.5, JSON.stringify(chart));
    assert.ok(chart.axis >= 3, JSON.stringify(chart));
    console.log(`# ${scheme}: tools ${tools.join(', ')}; charts ${JSON.stringify(charts)}; chart contrast ${JSON.stringify(chart)}`);
    console.log(`# ${scheme}: lowest text contrast ${Math.min(...Object.values(report).flatMap((r) => Object.values(r))).toFixed(2)}`);
    assertOwnOrigin(seen, env.server.url);
    assert.deepEqual(seen.errors, []);
    await close();
  });
}

test('dark trace viewer: a dark canvas, names on the boxes at 4.5:1, redrawn light on the toggle', async () => {
  const { page, seen, close } = await openPage(`${env.server.url}/#tool=trace_viewer`, 'dark');
  await page.setInputFiles('#open-files', INPUT_BOUND);
  await page.locator('#tool-trace_viewer').waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => window.__proflensTrace?.lastFrameBoxes > 0, null, { timeout: 20_000 });
  const pixels = () => page.evaluate(() => {
    const { cssVar, contrast, luminance } = window.__theme;
    const canvas = document.querySelector('#trace-canvas');
    const { data, width, height } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    // The timeline's right half: boxes on the ground, no gutter.
    const counts = new Map();
    for (let y = Math.floor(height * 0.1); y < height; y++) {
      for (let x = Math.floor(width / 2); x < width; x++) {
        const i = (y * width + x) * 4;
        const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    const rgb = (k) => [k >> 16, (k >> 8) & 255, k & 255];
    const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    const ground = rgb(sorted[0][0]);
    const text = cssVar('--trace-slice-text');
    // Box fills: saturated colours covering many pixels.
    const fills = sorted.map(([k, n]) => [rgb(k), n]).filter(([c, n]) => Math.max(...c) - Math.min(...c) > 25 && n > 150);
    const textKey = (text[0] << 16) | (text[1] << 8) | text[2];
    return {
      ground,
      groundIsVar: ground.every((v, i) => v === cssVar('--trace-bg')[i]),
      groundLuminance: luminance(ground),
      fills: fills.length,
      worstLabel: Math.min(...fills.map(([c]) => contrast(c, text))),
      textPixels: counts.get(textKey) ?? 0,
      gutterText: contrast(cssVar('--trace-muted'), cssVar('--trace-gutter')),
      headerText: contrast(cssVar('--trace-text'), cssVar('--trace-header')),
      rulerText: Math.min(contrast(cssVar('--trace-text'), cssVar('--trace-ruler')), contrast(cssVar('--trace-muted'), cssVar('--trace-ruler'))),
    };
  });
  const dark = await pixels();
  assert.ok(dark.groundIsVar && dark.groundLuminance < 0.05, JSON.stringify(dark));
  assert.ok(dark.fills >= 3, `box colours found: ${dark.fills}`);
  assert.ok(dark.worstLabel >= 4.5, `names on boxes: ${dark.worstLabel}`);
  assert.ok(dark.textPixels > 0, 'names are drawn in the slice text colour');
  assert.ok(dark.gutterText >= 4.5 && dark.headerText >= 4.5 && dark.rulerText >= 4.5, JSON.stringify(dark));
  await page.screenshot({ path: path.join(ARTIFACTS, 'theme-dark-trace-viewer-input-bound.png') });
  console.log(`# dark trace viewer: ${JSON.stringify(dark)}`);

  // The toggle redraws the canvas in the light colours.
  const frames = await page.evaluate(() => window.__proflensTrace.frames.length);
  await page.selectOption('#theme-choice', 'light');
  await page.waitForFunction((n) => window.__proflensTrace.frames.length > n, frames);
  // The ground (the commonest colour of the timeline's right half) turns light.
  await page.waitForFunction(() => {
    const c = document.querySelector('#trace-canvas');
    const { data, width, height } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    const counts = new Map();
    for (let y = Math.floor(height * 0.1); y < height; y += 4) {
      for (let x = Math.floor(width / 2); x < width; x += 4) {
        const i = (y * width + x) * 4;
        const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    const k = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
    return window.__theme.luminance([k >> 16, (k >> 8) & 255, k & 255]) > 0.8;
  }, null, { timeout: 10_000 });
  const light = await pixels();
  assert.ok(light.groundLuminance > 0.8 && light.groundIsVar, JSON.stringify(light));
  assert.ok(light.worstLabel >= 4.5 && light.gutterText >= 4.5 && light.rulerText >= 4.5, JSON.stringify(light));
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('the single-file build applies the remembered theme from disk, its inline script allowed by the CSP', async () => {
  const { page, seen, close } = await openPage(pathToFileURL(path.join(DIST, 'proflens.html')).href, 'light');
  await page.locator('#theme-choice').waitFor({ timeout: 30_000 });
  await page.selectOption('#theme-choice', 'dark');
  await page.reload();
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  await installHelpers(page);
  assert.ok((await groundLuminance(page)) < 0.05);
  await openDemoOverview(page);
  await page.locator('#tool-overview_page #step-time-graph[data-bars]').waitFor({ timeout: 30_000 });
  const chartBg = await page.evaluate(() => window.__theme.cssVar('--chart-bg').slice(0, 3));
  assert.deepEqual(await cornerPixel(page, '#step-time-graph'), chartBg);
  assert.ok(chartBg.every((v) => v < 40), `dark chart ground ${chartBg}`);
  assert.deepEqual(seen.csp, []);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('dark theme on a GPU profile: the roofline chart and the graph viewer\'s SVG', async () => {
  const { page, seen, close } = await openPage(`${env.server.url}/#tool=roofline_model`, 'dark');
  await page.setInputFiles('#open-files', MI300X_CONV);
  await page.locator('#tool-roofline_model #roofline-chart[data-points]').waitFor({ timeout: 30_000 });
  const chartBg = await page.evaluate(() => window.__theme.cssVar('--chart-bg').slice(0, 3));
  assert.deepEqual(await cornerPixel(page, '#roofline-chart'), chartBg);
  // The compute roof is drawn in the theme's ink (its legend swatch says which colour).
  const roof = await page.evaluate(() => {
    const { parse, cssVar, contrast } = window.__theme;
    const swatch = document.querySelector('.legend.roofs li[data-item="Peak FLOP rate"] .swatch');
    const colour = parse(getComputedStyle(swatch).backgroundColor);
    // Every roof is a graphic: 3:1 against the chart's ground.
    const roofs = [...document.querySelectorAll('.legend.roofs .swatch')]
      .map((s) => contrast(parse(getComputedStyle(s).backgroundColor), cssVar('--chart-bg')));
    return { colour: colour.slice(0, 3), ink: cssVar('--chart-ink').slice(0, 3), roofs };
  });
  assert.deepEqual(roof.colour, roof.ink);
  assert.ok(roof.roofs.length >= 2 && Math.min(...roof.roofs) >= 3, JSON.stringify(roof));
  // The same roofs in the light theme: the compute roof's swatch follows the ink, all reach 3:1.
  await page.selectOption('#theme-choice', 'light');
  const lightRoofs = await page.evaluate(() => {
    const { parse, cssVar, contrast } = window.__theme;
    return [...document.querySelectorAll('.legend.roofs .swatch')]
      .map((s) => contrast(parse(getComputedStyle(s).backgroundColor), cssVar('--chart-bg')));
  });
  assert.ok(Math.min(...lightRoofs) >= 3, JSON.stringify(lightRoofs));
  await waitForColour(page, '#roofline-chart', await page.evaluate(() => window.__theme.cssVar('--chart-bg').slice(0, 3)));
  await page.selectOption('#theme-choice', 'system');
  const report = { roofline_model: await page.evaluate((t) => window.__theme.textContrast(t), TEXT) };

  await page.selectOption('#tool', 'graph_viewer');
  await page.locator('#graph-viewer-graph .node').first().waitFor({ timeout: 30_000 });
  const graph = await page.evaluate(() => {
    const { parse, contrast, background, luminance, over } = window.__theme;
    const ground = background(document.querySelector('.graph-viewer-wrap'));
    const stroke = (el) => parse(getComputedStyle(el).stroke);
    const edges = [...document.querySelectorAll('#graph-viewer-graph .edge')].map((e) => contrast(stroke(e), ground));
    const clusters = [...document.querySelectorAll('#graph-viewer-graph .cluster rect')].map((r) => luminance(parse(getComputedStyle(r).fill)));
    // Cluster names are drawn on the cluster's ground.
    const clusterNames = [...document.querySelectorAll('#graph-viewer-graph .cluster')].map((c) =>
      contrast(parse(getComputedStyle(c.querySelector('text')).fill), over(parse(getComputedStyle(c.querySelector('rect')).fill), ground)));
    const labels = [...document.querySelectorAll('#graph-viewer-graph .node')].map((n) =>
      contrast(parse(getComputedStyle(n.querySelector('text')).fill), parse(getComputedStyle(n.querySelector('rect')).fill)));
    return {
      ground: luminance(ground), edges: Math.min(...edges), clusters: Math.max(...clusters, 0),
      clusterNames: Math.min(...clusterNames), labels: Math.min(...labels),
    };
  });
  assert.ok(graph.ground < 0.05 && graph.clusters < 0.05, JSON.stringify(graph));
  assert.ok(graph.edges >= 3 && graph.labels >= 4.5 && graph.clusterNames >= 4.5, JSON.stringify(graph));
  await page.screenshot({ path: path.join(ARTIFACTS, 'theme-dark-graph_viewer.png') });
  report.graph_viewer = await page.evaluate((t) => window.__theme.textContrast(t), TEXT);

  const low = Object.entries(report).flatMap(([where, found]) =>
    Object.entries(found).filter(([, r]) => r < 4.5).map(([s, r]) => `${where} ${s} ${r.toFixed(2)}`));
  assert.deepEqual(low, []);
  console.log(`# dark GPU profile: roof ${JSON.stringify(roof)}; light roofs ${JSON.stringify(lightRoofs)}; graph ${JSON.stringify(graph)}`);
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
