// The web benchmark (`cargo xtask bench-web PATH [--runs N]`):
//
//   node bench_web.mjs DIST_DIR PROFILE_PATH [--runs N] [--json FILE] [--no-trace-nav] [--tools A,B] [--pick-after MS]
//
// PROFILE_PATH is one profile, or a folder of a run's hosts (opened with the
// folder input: "All hosts" when the run has several).
//
// 1. N cold runs (default 3) in headless Chromium, each in a fresh browser
//    context, as a user makes them (bench/visit.mjs): the file chosen through
//    the file input → the overview shown; then every other tool the selector
//    offers chosen → its view shown; the worker's breakdown of each (file
//    read, each shared pass, the tool, conversion to JS), the transfer to
//    the page and the page's rendering; the worker's wasm memory and the
//    renderer process's peak memory, against the file's size. The file is
//    chosen as soon as the page is ready, or --pick-after MS later.
// 2. Once, the trace viewer opened first and navigated by keyboard (bench/trace_nav.mjs).
// 3. With PROFLENS_XPROF_RS naming the xprof-rs binary, N cold runs of it on
//    the same file (bench/xprof_rs.mjs), and the ratios Proflens / xprof-rs.
//
// Prints tables of medians (min–max) on stdout; the whole measurement as
// JSON with --json. Not a test: nothing here asserts on time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { summary, cell, ms, mib, table } from './bench/stats.mjs';

const USAGE = 'usage: node bench_web.mjs DIST_DIR PROFILE_PATH [--runs N] [--json FILE] [--no-trace-nav] [--tools A,B] [--pick-after MS]';
const args = process.argv.slice(2);
const positional = [];
const options = { runs: 3, json: null, traceNav: true, tools: null, pickAfterMs: 0 };
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') options.runs = Number(args[++i]);
  else if (args[i] === '--json') options.json = args[++i];
  else if (args[i] === '--no-trace-nav') options.traceNav = false;
  // Only these tools after the overview (a whole visit of a multi-GB trace takes long).
  else if (args[i] === '--tools') options.tools = args[++i].split(',');
  // The file is chosen this long after the page is ready (a reader takes a moment to find it).
  else if (args[i] === '--pick-after') options.pickAfterMs = Number(args[++i]);
  else positional.push(args[i]);
}
if (positional.length !== 2 || !(Number.isInteger(options.runs) && options.runs >= 1) || !(options.pickAfterMs >= 0)) {
  console.error(USAGE);
  process.exit(2);
}
const dist = path.resolve(positional[0]);
const profile = path.resolve(positional[1]);
for (const [what, p] of [['DIST_DIR', path.join(dist, 'index.html')], ['PROFILE_PATH', profile]]) {
  if (!fs.existsSync(p)) {
    console.error(`bench_web: ${what}: ${p} does not exist`);
    process.exit(2);
  }
}
// The harness serves PROFLENS_DIST; set it before loading it.
process.env.PROFLENS_DIST = dist;
const { launch } = await import('./harness.mjs');
const { coldVisit } = await import('./bench/visit.mjs');
const { traceNavigation } = await import('./bench/trace_nav.mjs');
const { xprofRsRuns, tagOf } = await import('./bench/xprof_rs.mjs');

const TIMEOUT_MS = 15 * 60_000;

/** The bytes of a file, or of every file under a folder. */
function fileBytes(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((sum, name) => sum + fileBytes(path.join(p, name)), 0);
}

const bytes = fileBytes(profile);
const result = { profile, file_bytes: bytes, runs: options.runs, load_average_at_start: os.loadavg(), cpus: os.cpus().length, visits: [], trace_navigation: null, xprof_rs: null };
const env = await launch();
try {
  for (let i = 0; i < options.runs; i++) {
    const visit = await coldVisit(env, profile, { timeoutMs: TIMEOUT_MS, only: options.tools, pickAfterMs: options.pickAfterMs });
    result.visits.push(visit);
    console.error(`bench_web: cold run ${i + 1}/${options.runs}: overview shown in ${ms(visit.tools.overview_page.total_ms)} ms`);
  }
  if (options.traceNav) result.trace_navigation = await traceNavigation(env, profile, { timeoutMs: TIMEOUT_MS });
} catch (e) {
  console.error(`bench_web: ${e?.stack ?? e}`);
  await env.close();
  process.exit(1);
}
await env.close();

const tools = result.visits[0].offered.filter((t) => result.visits.every((v) => v.tools[t]));
const xprofBinary = process.env.PROFLENS_XPROF_RS;
if (xprofBinary) {
  try {
    result.xprof_rs = await xprofRsRuns(xprofBinary, profile, tools, { runs: options.runs, timeoutMs: TIMEOUT_MS });
  } catch (e) {
    console.error(`bench_web: ${e?.message ?? e}`);
    process.exitCode = 1;
  }
}

// ---- tables ----
const over = (f) => summary(result.visits.map(f));
const out = [];
out.push(`Proflens web benchmark: ${profile} (${mib(bytes)} MiB), ${options.runs} cold run(s) in headless Chromium; ms, median (min–max)`);
out.push(table(
  'File chosen → overview shown, then each tool chosen → its view shown',
  ['tool', 'shown', 'to request', 'file read', 'passes', 'tool', 'to JS', 'transfer', 'render'],
  tools.map((t) => {
    const f = (k) => cell(over((v) => v.tools[t][k]));
    const passes = cell(over((v) => Object.values(v.tools[t].passes).reduce((a, b) => a + b, 0)));
    return [t, f('total_ms'), f('to_request_ms'), f('file_read_ms'), passes, f('tool_ms'), f('to_js_ms'), f('transfer_ms'), f('render_ms')];
  }),
));
out.push('to request: the page, from the choice to its request to the worker (for the overview: listing the file, starting the worker); '
  + 'file read, passes (shared, run for this tool), tool, to JS: the worker; transfer: posting the answer to the page; '
  + 'render: the page, from the answer to the view on screen (the trace viewer: to its first frame, its first window query included).');
const passRows = [];
for (const t of tools) {
  const names = [...new Set(result.visits.flatMap((v) => Object.keys(v.tools[t].passes)))];
  const memory = (pass, key) => cell(over((v) => v.tools[t].pass_memory?.[pass]?.[key]), mib);
  for (const pass of names) {
    passRows.push([`${t}: ${pass}`, cell(over((v) => v.tools[t].passes[pass])),
      memory(pass, 'heap_peak_bytes'), memory(pass, 'wasm_memory_bytes')]);
  }
}
out.push(table('Shared passes run for each tool (the worker\'s own time per pass; decode without the file read; '
  + 'the most its allocations held at once, and the wasm memory after it)',
  ['tool: pass', 'ms', 'heap peak, MiB', 'wasm after, MiB'], passRows));
const errors = result.visits.flatMap((v) => Object.entries(v.errors).map(([t, e]) => `${t}: ${e}`));
if (errors.length) out.push(`\nShown as errors: ${[...new Set(errors)].join('; ')}`);
const ratio = (s) => (s ? `${(s.median / bytes).toFixed(2)}×` : '—');
const worker = over((v) => v.worker_peak_bytes);
const renderer = over((v) => v.renderer_peak_bytes);
out.push(table('Memory of a whole visit (every tool once) and the page', ['measure', 'value', 'of file size'], [
  ['worker wasm memory, MiB', cell(worker, mib), ratio(worker)],
  ['renderer peak RSS (page + worker), MiB', cell(renderer, mib), ratio(renderer)],
  ['page ready (boot done), ms', cell(over((v) => v.ready_ms)), ''],
]));
if (result.trace_navigation) {
  const n = result.trace_navigation;
  out.push(`\nTrace viewer opened first (one run): first frame ${n.load_to_first_frame_ms} ms after the file was chosen, `
    + `${n.events} events, wasm ${mib(n.wasm_memory_bytes)} MiB; keyboard navigation: redraw median ${n.navigation.redraw.median_ms} ms, `
    + `p95 ${n.navigation.redraw.p95_ms} ms, frame gap median ${n.navigation.frame_gap.median_ms} ms`);
}
if (result.xprof_rs?.length) {
  const xr = result.xprof_rs;
  const rows = [['(server start)', '—', cell(summary(xr.map((r) => r.startup_ms))), '', '']];
  for (const t of tools) {
    const x = summary(xr.map((r) => r.tools[t]?.ms));
    if (!x) continue;
    const p = over((v) => v.tools[t].total_ms);
    rows.push([t === 'trace_viewer' ? `${t} (xprof-rs: ${tagOf(t)})` : t, cell(p), cell(x),
      p ? (p.median / x.median).toFixed(2) : '—', p ? `${(x.median / p.median).toFixed(2)}×` : '—']);
  }
  out.push(table(
    `Proflens / xprof-rs (${path.basename(xprofBinary)}, a fresh server per cold run; each request from sending to its last byte, overview first)`,
    ['tool', 'Proflens', 'xprof-rs', 'Proflens / xprof-rs', 'xprof-rs / Proflens'],
    rows,
  ));
  const xrPeak = summary(xr.map((r) => r.peak_bytes));
  out.push(`xprof-rs server memory after the requests: peak RSS ${cell(xrPeak, mib)} MiB (${ratio(xrPeak)} of the file); `
    + 'a ratio below 1 (Proflens / xprof-rs) means Proflens showed the tool sooner. Proflens\'s overview counts from the file '
    + 'chosen to the view on screen (reading, decoding, every pass); xprof-rs\'s, its first request to a fresh server.');
}
const load = (l) => l.map((v) => v.toFixed(1)).join(' ');
out.push(`\nLoad average at the start ${load(result.load_average_at_start)}, at the end ${load(os.loadavg())}, on ${result.cpus} CPUs `
  + '(timings of a busy machine are longer; compare ratios measured in the same run).');
console.log(out.join('\n'));
if (options.json) fs.writeFileSync(options.json, `${JSON.stringify(result, null, 2)}\n`);
