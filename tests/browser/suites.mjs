// Which test files each browser runs, and how many at once. Chromium runs
// every *.test.mjs here; Firefox ESR runs FIREFOX: files that together open
// every tool's view at least once and take each path that is Firefox's own (a
// folder picked, a download, a dark context: firefox_*.mjs; the boot and its
// CSP), chosen for the shortest run. suites.test.mjs fails when a tool is
// opened by none of them, or a file named here is missing.
//
// `cargo xtask test` asks here: `node suites.mjs chromium|firefox` prints the
// arguments of `node --test`, one a line (`node --test $(node suites.mjs firefox)`
// runs the same by hand).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The files Firefox runs, with what each shows there. */
export const FIREFOX = [
  // Firefox's own paths.
  'boot.test.mjs', // the boot: page before worker, each role's wasm, spare workers; the CSP; Overview
  'browsers.test.mjs', // the stand-ins: offline, a folder picked, a download, a dark context; Profile info
  'shell.test.mjs', // the header's row, the Open… menu, a drop after load, tool keys, the trace viewer's panel
  'theme.test.mjs', // dark and light (a second Firefox), the remembered theme from disk; Advisor, Overview,
  //                   Framework op stats, Input pipeline, Memory profile, Trace viewer, Roofline, Graph viewer
  // Each view at least once.
  'compare.test.mjs', // compare mode: XSpaces, three files, PyTorch overview and operators, the trace diff
  'issue5.test.mjs', // GPU kernel stats, Memory profile, Pod viewer, tf.data bottleneck analysis
  'xla.test.mjs', // Op profile, HLO op stats, Memory viewer
  'legacy_tpu.test.mjs', // a TensorBoard set: Overview, Input pipeline analyzer, Pod viewer, Trace viewer
  'pytorch_modules.test.mjs', // Modules, PyTorch operators (Framework op stats), GPU kernel stats
  'trace_links.test.mjs', // Kernel launch stats and Critical path, their links into the Trace viewer
  'kernel_sequences.test.mjs', // Kernel sequences
  'idle_time_breakdown.test.mjs', // Idle time breakdown
  'hta_counters.test.mjs', // Queue length, Memory bandwidth
  'stragglers.test.mjs', // Stragglers
];

/**
 * How many test files run at once, each in its own node process with its own
 * browser: many tests wait on the worker, on timers and on the browser, so
 * on CI's two cores two files at a time take about a sixth (Chromium) to a
 * third (Firefox) less time than one; more gains little once both cores are busy.
 */
export const CONCURRENCY = 2;

/** Every test file here, sorted. */
export function testFiles() {
  return fs.readdirSync(HERE).filter((name) => name.endsWith('.test.mjs')).sort();
}

/** The files `browser` (`chromium` or `firefox`) runs. */
export function filesFor(browser) {
  if (browser === 'chromium') return testFiles();
  if (browser === 'firefox') return [...FIREFOX];
  throw new Error(`the browser is chromium or firefox, not ${browser}`);
}

/** The arguments of `node --test` after `--test` for `browser`: the concurrency, then the files. */
export function nodeTestArgs(browser) {
  return [`--test-concurrency=${CONCURRENCY}`, ...filesFor(browser)];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const arg of nodeTestArgs(process.argv[2])) console.log(arg);
}
