// The analysis worker's CPU profile while a file is opened, by function
// (a measuring aid for speed work, not a test):
//
//   node bench/cpu_profile.mjs DIST_DIR PROFILE_PATH [TOP]
//
// Samples the worker with the DevTools protocol's Profiler (100 µs) from the
// file chosen to the overview shown, and prints the TOP (default 40)
// functions by self time. wasm functions have names only in a dist whose
// worker wasm keeps its name section (run wasm-bindgen without
// --remove-name-section on the wasm-worker build).
import path from 'node:path';

const [distArg, profileArg, topArg] = process.argv.slice(2);
if (!distArg || !profileArg) {
  console.error('usage: node bench/cpu_profile.mjs DIST_DIR PROFILE_PATH [TOP]');
  process.exit(2);
}
process.env.PROFLENS_DIST = path.resolve(distArg);
const { launch } = await import('../harness.mjs');
const env = await launch();
try {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  let nextId = 1;
  const pending = new Map();
  const workers = [];
  cdp.on('Target.receivedMessageFromTarget', ({ message }) => {
    const reply = JSON.parse(message);
    pending.get(reply.id)?.(reply);
  });
  const send = (sessionId, method, params = {}) => new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
  });
  // The worker starts when a file is chosen: sampled from its first moment.
  cdp.on('Target.attachedToTarget', async ({ sessionId, targetInfo }) => {
    if (targetInfo.type !== 'worker') return;
    workers.push(sessionId);
    await send(sessionId, 'Profiler.enable');
    await send(sessionId, 'Profiler.setSamplingInterval', { interval: 100 });
    await send(sessionId, 'Profiler.start');
    await send(sessionId, 'Runtime.runIfWaitingForDebugger');
  });
  // Workers that ended (the boot's warm-up worker) can no longer be asked.
  cdp.on('Target.detachedFromTarget', ({ sessionId }) => {
    const at = workers.indexOf(sessionId);
    if (at >= 0) workers.splice(at, 1);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  await page.goto(`${env.server.url}/#tool=overview_page`);
  await page.waitForFunction(() => !document.getElementById('boot') && document.querySelector('#open-files'));
  const t0 = Date.now();
  await page.setInputFiles('#open-files', path.resolve(profileArg));
  await page.locator('#avg-step-time').waitFor({ timeout: 600_000 });
  console.log(`overview shown after ${Date.now() - t0} ms`);
  if (!workers.length) throw new Error('no worker attached');
  const selfUs = new Map();
  let total = 0;
  for (const s of workers) {
    const { result } = await send(s, 'Profiler.stop');
    const { nodes, samples, timeDeltas } = result.profile;
    const byId = new Map(nodes.map((n) => [n.id, n]));
    samples.forEach((id, i) => {
      const f = byId.get(id).callFrame;
      const name = f.functionName || `(${f.url.split("/").pop() || "program"}:${f.lineNumber}:${f.columnNumber})`;
      const dt = timeDeltas[i] ?? 0;
      selfUs.set(name, (selfUs.get(name) ?? 0) + dt);
      total += dt;
    });
  }
  const top = [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 40));
  console.log(`worker samples: ${(total / 1000).toFixed(0)} ms`);
  for (const [name, us] of top) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${name.slice(0, 140)}`);
} finally {
  await env.close();
}
