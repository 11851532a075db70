// The Firefox list of suites.mjs, checked without a browser (in the Chromium
// run, which runs every file): every tool of the app (crates/app/src/tool_names.rs)
// is opened by some file Firefox runs, each of Firefox's stand-ins
// (firefox_*.mjs: a folder picked, a download, a dark context) is used by one,
// and every file named exists.
//
// A file opens tool X when its text has `#tool-X` (the view's root element),
// `tool=X` (the URL hash), or 'X' quoted as an argument of
// `selectOption('#tool', …)` or of a helper whose name starts with `open`
// (`openTool('X')`, `openProfile(FILE, 'X')`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CONCURRENCY, FIREFOX, HERE, filesFor, nodeTestArgs, testFiles } from './suites.mjs';

const TOOL_NAMES = path.resolve(HERE, '../../crates/app/src/tool_names.rs');

/** The tool ids of the app, in the registry's order: the `tool("id", "Label")` entries. */
function toolIds() {
  const source = fs.readFileSync(TOOL_NAMES, 'utf8');
  return [...source.matchAll(/\btool\("([a-z0-9_]+)",/g)].map((m) => m[1]);
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the test source `text` opens the tool `id` (the rule above). */
export function opensTool(text, id) {
  const name = escape(id);
  return [
    new RegExp(`#tool-${name}(?![\\w])`),
    new RegExp(`\\btool=${name}(?![\\w])`),
    new RegExp(`selectOption\\(\\s*['"]#tool['"]\\s*,\\s*['"\`]${name}['"\`]`),
    new RegExp(`\\bopen\\w*\\([^()]*['"\`]${name}['"\`]`),
  ].some((re) => re.test(text));
}

const source = (file) => fs.readFileSync(path.join(HERE, file), 'utf8');

test('the rule finds a tool opened by its view, its URL, the selector or a helper, and nothing else', () => {
  assert.ok(opensTool("page.locator('#tool-kernel_stats table')", 'kernel_stats'));
  assert.ok(opensTool('`${env.server.url}/#run=a&tool=info`', 'info'));
  assert.ok(opensTool("await page.selectOption('#tool', 'memory_viewer');", 'memory_viewer'));
  assert.ok(opensTool("await openTool('pod_viewer');", 'pod_viewer'));
  assert.ok(opensTool("await openProfile(KERAS_FIT, 'memory_profile');", 'memory_profile'));
  assert.ok(!opensTool("page.locator('#tool-kernel_stats_x')", 'kernel_stats'));
  assert.ok(!opensTool("assert.ok(tools.includes('hlo_stats'))", 'hlo_stats'));
  assert.ok(!opensTool("'#tool-compare[data-tool=\"op_profile\"]'", 'op_profile'));
});

test('every tool of the app is opened by some file Firefox runs', () => {
  const tools = toolIds();
  // The parse found the table (23 tools when this was written), with no id twice.
  assert.ok(tools.length >= 20, `tools in ${TOOL_NAMES}: ${tools}`);
  assert.equal(new Set(tools).size, tools.length, `an id twice: ${tools}`);
  const texts = FIREFOX.map(source);
  const unopened = tools.filter((id) => !texts.some((text) => opensTool(text, id)));
  assert.deepEqual(unopened, [], `tools no Firefox file opens (add a file that opens each to FIREFOX in suites.mjs): ${unopened.join(', ')}`);
});

test("Firefox runs a test of each of its stand-ins: a folder picked, a download, a dark context", () => {
  const texts = FIREFOX.map(source);
  const uses = {
    'a folder picked (firefox_folder.mjs)': /setInputFiles\(\s*['"]#open-folder['"]/,
    'a download (firefox_downloads.mjs)': /waitForEvent\(\s*['"]download['"]/,
    'a dark context (firefox_color_scheme.mjs)': /colorScheme:\s*['"]dark['"]/,
  };
  const missing = Object.entries(uses).filter(([, re]) => !texts.some((text) => re.test(text))).map(([what]) => what);
  assert.deepEqual(missing, [], `no Firefox file has ${missing.join(', ')}`);
});

test('every file the lists name exists, once; Chromium runs every test file; the arguments for node', () => {
  const all = testFiles();
  assert.ok(all.includes('suites.test.mjs'), `test files: ${all}`);
  const missing = FIREFOX.filter((file) => !all.includes(file));
  assert.deepEqual(missing, [], `files FIREFOX names that are not tests in ${HERE}`);
  assert.equal(new Set(FIREFOX).size, FIREFOX.length, `a file twice in FIREFOX: ${FIREFOX}`);
  assert.deepEqual(filesFor('chromium'), all);
  assert.deepEqual(filesFor('firefox'), FIREFOX);
  assert.throws(() => filesFor('safari'), /chromium or firefox/);
  assert.deepEqual(nodeTestArgs('firefox'), [`--test-concurrency=${CONCURRENCY}`, ...FIREFOX]);
});
