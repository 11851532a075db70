// Boot: the page and the analysis worker are two wasm binaries. The page is
// usable before the worker's module is compiled; a worker spawned before that
// still starts, and keeps what the page sent it meanwhile; a worker module
// that cannot load is a message from the worker, not a stuck page; a worker
// of its own warms the analysis code up at boot, and the page draws its
// views unseen; a spare worker that is ready is sent the file at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openPage, assertOwnOrigin, DIST } from './harness.mjs';

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** A page whose requests for the worker's wasm go to `route` first. */
async function pageWithWorkerRoute(route) {
  const context = await env.browser.newContext();
  const errors = [];
  await context.route('**/proflens_worker_bg.wasm', route);
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${env.server.url}/`);
  await page.locator('#open-files').waitFor({ state: 'attached', timeout: 30_000 });
  await page.waitForFunction(() => !document.getElementById('boot'));
  return { page, errors, close: () => context.close() };
}

/** Spawns a worker with the loader's `proflensSpawnWorker`, posts `requests` at once, and gathers its first `count` messages. */
function spawnAndPost(page, requests, count) {
  return page.evaluate(([requests, count]) => new Promise((resolve, reject) => {
    const got = [];
    const worker = window.proflensSpawnWorker();
    worker.onmessage = (event) => {
      got.push(event.data);
      if (got.length === count) {
        worker.terminate();
        resolve(got);
      }
    };
    worker.onerror = (event) => reject(new Error(event.message));
    requests.forEach((request) => worker.postMessage({ request }));
  }), [requests, count]);
}

test('the page is usable before the worker module loads; an early request is answered once it has', async () => {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const { page, errors, close } = await pageWithWorkerRoute(async (route) => {
    await held;
    await route.continue();
  });
  // Usable now, with the worker's wasm still held back by the route.
  assert.equal(await page.locator('#open-files').isEnabled(), true);
  assert.equal(await page.evaluate(() => window.__proflensWorkerModuleAt), undefined);
  const answers = spawnAndPost(page, [{ kind: 'tool', run: 'r', host: 'h', tool: 'overview_page' }], 2);
  release();
  // The worker says it is ready, then answers the request it was sent before it had its module.
  assert.deepEqual(await answers, [{ kind: 'ready' }, { kind: 'error', message: 'No files are open.' }]);
  assert.deepEqual(errors, []);
  await close();
});

test('a worker module that cannot load is the worker\'s error message, and the next spawn tries again', async () => {
  let fail = true;
  const { page, close } = await pageWithWorkerRoute(async (route) => {
    if (fail) await route.fulfill({ status: 404, body: 'gone' });
    else await route.continue();
  });
  const [first] = await spawnAndPost(page, [], 1);
  assert.equal(first.kind, 'error');
  assert.match(first.message, /^The analysis worker could not start: Could not load .*proflens_worker_bg\.wasm \(HTTP 404\)\.$/);
  fail = false;
  assert.deepEqual(await spawnAndPost(page, [], 1), [{ kind: 'ready' }]);
  await close();
});

test('each role runs its own wasm: the page has no worker entry, the worker no page entry', async () => {
  for (const url of [`${env.server.url}/`, pathToFileURL(path.join(DIST, 'proflens.html')).href]) {
    const { page, seen, close } = await openPage(env.browser, url);
    await page.waitForFunction(() => window.__proflensWorkerModuleAt != null, null, { timeout: 30_000 });
    assert.deepEqual(
      await page.evaluate(() => [typeof wasm_bindgen.start_app, typeof wasm_bindgen.start_worker]),
      ['function', 'undefined'],
      url,
    );
    // The worker's glue (fetched when served, an inert element of the single file) has only the worker's entry.
    const workerGlue = await page.evaluate(async () => {
      const element = document.getElementById('proflens-worker-glue');
      return element ? element.textContent : (await fetch('proflens_worker.js')).text();
    });
    assert.deepEqual([/\bstart_worker\b/.test(workerGlue), /\bstart_app\b/.test(workerGlue)], [true, false], url);
    if (url.startsWith('http')) {
      assertOwnOrigin(seen, env.server.url);
      const wasm = seen.requests.filter((u) => u.endsWith('.wasm')).map((u) => u.slice(env.server.url.length));
      assert.deepEqual(wasm.sort(), ['/proflens_bg.wasm', '/proflens_worker_bg.wasm']);
    } else {
      assert.deepEqual(seen.csp, []);
      assert.deepEqual(seen.requests.filter((u) => u.endsWith('.wasm')), []);
    }
    await close();
  }
});

test('a worker of its own runs the warm-up at boot and ends, its views drawn unseen; a worker asked for one answers it', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`);
  await page.waitForFunction(() => window.__proflensWarmUp != null, null, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => window.__proflensWarmUp), 'done');
  // The page drew the warm-up's views (crates/app/src/warm_render.rs) and
  // took it away in the next frame: no trace in the document, the page's
  // render phases, or the focus.
  await page.waitForFunction(() => window.__proflensWarmRender != null, null, { timeout: 10_000 });
  assert.equal(await page.evaluate(() => window.__proflensWarmRender), 'drawn');
  await page.waitForFunction(() => !document.querySelector('body > div[inert]'), null, { timeout: 10_000 });
  assert.deepEqual(await page.evaluate(() => ({
    overview: document.querySelectorAll('section.tool, #avg-step-time, canvas, table').length,
    phases: (window.__proflensRender ?? []).length,
    focus: document.activeElement === document.body,
  })), { overview: 0, phases: 0, focus: true });
  const answers = await spawnAndPost(page, [{ kind: 'warm_up' }], 2);
  assert.deepEqual(answers.map((m) => m.kind), ['ready', 'warmed_up']);
  // The views drawn: the fixture's overview (custom_loop: 10 steps, as
  // columns), its framework op stats and its advice (over the same steps).
  const [[overview, overviewModel], [opStats, table], [advisor, advice]] = answers[1].model;
  assert.deepEqual([overview, opStats, advisor], ['overview_page', 'framework_op_stats', 'advisor']);
  assert.equal(overviewModel.input.steps.names.length, 10);
  assert.ok(table.with_idle.rows.length > 0);
  assert.equal(Number(advice.steps), 10);
  // The fixture is inside the worker's wasm: nothing more is fetched.
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.requests.filter((u) => /demos\//.test(u)), []);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('a spare worker that has said it is ready is sent the file at once, not after its words are told again', async () => {
  // Which worker said what, in order (the spare's first "ready" is its own;
  // once it is handed out, the loader tells it again to the page's handler).
  const recorder = () => {
    const order = [];
    window.__order = order;
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      if (message?.request?.kind) order.push(`sent ${message.request.kind}`);
      return post.call(this, message, ...rest);
    };
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => { if (e.data?.kind === 'ready') order.push('ready'); });
      }
    };
  };
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#tool=overview_page`, {}, recorder);
  // The warm-up worker and the spare have both said they are ready.
  await page.waitForFunction(() => window.__proflensWarmUp != null
    && window.__order.filter((e) => e === 'ready').length >= 2, null, { timeout: 60_000 });
  await page.evaluate(() => { window.__order.length = 0; });
  const fixture = path.resolve('../data/xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb');
  await page.setInputFiles('#open-files', fixture);
  await page.locator('#avg-step-time').waitFor({ timeout: 60_000 });
  const order = await page.evaluate(() => window.__order);
  assert.deepEqual(order.slice(0, 2), ['sent open', 'ready'], order.join(', '));
  assert.ok(order.includes('sent tool'), order.join(', '));
  assert.deepEqual(seen.errors, []);
  await close();
});
