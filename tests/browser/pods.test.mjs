// Browser test of the pod path (issue #15, goal 4): a run's hosts summarised
// in extra workers before a tool of all hosts, and summaries written by
// `proflens summarize` read beside the profiles instead of them.
//
// The run: the two-host TensorFlow BERT run (its two workers' files are
// identical, so the one fixture is copied under both names, as in
// all_hosts_xla.test.mjs) and a third, unlike host (custom_loop), so that
// hosts answered out of order would show.
//
// 1. All-hosts overview, pod viewer and framework op stats: the same text
//    with one worker (`?workers=1`) and with extra workers (`?workers=3`,
//    three more Web Workers seen starting and closing; `?workers=2` with
//    each worker renewed after a host, four), and the op stats'
//    CSV (IDLE left out, as the CLI does) equal to
//    `proflens tool RUN framework_op_stats --format csv`.
// 2. Summaries beside the profiles: after `proflens summarize`, each
//    profile's bytes are overwritten with zeros (same size, modification
//    time put back), so only a page that reads the summaries can show the
//    tools of all hosts — and it shows the same text. One host alone cannot
//    be shown (its events are zeros), which proves the profile is damaged. A
//    profile whose time changed makes its summary stale: not used, and the
//    page meets the damaged profile, as the CLI does.
// 3. A host an extra worker cannot read: the same error as with one worker.
// 4. Rank summaries beside a PyTorch job's traces (the two-rank sampled
//    job): after `proflens summarize`, the traces are zeroed as in 2, and
//    the overview and stragglers of all ranks show the same text as from
//    the traces, with no extra worker; one rank's timeline cannot be shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, openPage, assertOwnOrigin, DATA } from './harness.mjs';

const CLI = process.env.PROFLENS_CLI ?? path.resolve(DATA, '../../target/debug/proflens');
const BERT = path.join(DATA, 'xspace/external/34.83.195.179_6003.xplane.pb');
const LOOP = path.join(DATA, 'xspace/custom_loop/plugins/profile/2026_11_22_09_04_34/vm.xplane.pb');
const HOSTS = [['34.83.195.179_6003', BERT], ['34.83.195.180_6003', BERT], ['loop', LOOP]];
const TOOLS = ['overview_page', 'pod_viewer', 'framework_op_stats'];
const RANKS = ['sampled_rank-0', 'sampled_rank-1'];
const RANK_TOOLS = ['overview_page', 'stragglers'];

let env;
let dir;

/** A run folder under `dir` with the hosts copied in: its path. */
function makeRun(name, hosts = HOSTS) {
  const run = path.join(dir, name, 'plugins/profile/2026_11_26_08_00_00');
  fs.mkdirSync(run, { recursive: true });
  for (const [host, file] of hosts) fs.copyFileSync(file, path.join(run, `${host}.xplane.pb`));
  return path.join(dir, name);
}

/** Zeros in place of a file's bytes; same size and modification time. */
function zeroOut(file) {
  const { size, atimeMs, mtimeMs } = fs.statSync(file);
  fs.writeFileSync(file, Buffer.alloc(size));
  // In seconds with the fraction: a Date would round to the millisecond,
  // and the summary keeps the time truncated to it.
  fs.utimesSync(file, atimeMs / 1000, mtimeMs / 1000);
}

before(async () => {
  assert.ok(fs.existsSync(CLI), `the proflens CLI is built (${CLI}); set PROFLENS_CLI`);
  env = await launch();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-pods-'));
});

after(async () => {
  await env?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens `url` and counts the Web Workers that start and close from then on:
 * `started()` and `closed()`, the loader's warm-up worker (whose start may
 * come before the listener) left out: once it has ended, the one worker
 * alive is the spare.
 */
async function openCountingWorkers(url) {
  const { page, seen, close } = await openPage(env.browser, url);
  const started = [];
  const closed = [];
  page.on('worker', (w) => {
    started.push(w);
    w.on('close', () => closed.push(w));
  });
  await page.waitForFunction(() => window.__proflensWarmUp != null, null, { timeout: 60_000 });
  const deadline = Date.now() + 10_000;
  while (started.length - closed.length !== 1 && Date.now() < deadline) await page.waitForTimeout(20);
  const warmUps = closed.length;
  return { page, seen, close, started: () => started.length - warmUps, closed: () => closed.length - warmUps };
}

/**
 * Opens `folder` at `?workers=N` and shows each tool of all hosts: `{texts,
 * csv, workers}` — each view's text, the op stats' CSV download, and how many
 * Web Workers started and closed.
 */
async function allHosts(folder, workers, query = '') {
  const { page, seen, close, started, closed } = await openCountingWorkers(`${env.server.url}/?workers=${workers}${query}#tool=${TOOLS[0]}`);
  await page.setInputFiles('#open-folder', folder);
  const texts = {};
  let csv = null;
  for (const tool of TOOLS) {
    if (tool !== TOOLS[0]) await page.selectOption('#tool', tool);
    await page.locator(`#tool-${tool}`).waitFor({ timeout: 120_000 });
    assert.equal(await page.locator('#host').inputValue(), 'All hosts');
    assert.ok(await page.locator('#error').isHidden(), `${tool}: ${await page.locator('#error').textContent().catch(() => '')}`);
    texts[tool] = await page.locator(`#tool-${tool}`).innerText();
    assert.ok(texts[tool].length > 200, `${tool} shows its numbers`);
    if (tool === 'framework_op_stats') {
      // The CLI's CSV leaves IDLE out.
      await page.locator('#include-idle').uncheck();
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-op-stats')]);
      csv = fs.readFileSync(await download.path(), 'utf8');
    }
  }
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  const result = { texts, csv, started: started(), closed: closed(), page, close };
  return result;
}

/** The error the page shows for all hosts' overview of `folder`, at `?workers=N`. */
async function allHostsError(folder, workers) {
  const { page, close } = await openPage(env.browser, `${env.server.url}/?workers=${workers}#tool=overview_page`);
  await page.setInputFiles('#open-folder', folder);
  await page.locator('#error').waitFor({ timeout: 120_000 });
  assert.equal(await page.locator('#host').inputValue(), 'All hosts');
  const text = await page.locator('#error').innerText();
  await close();
  return text;
}

test('tools of all hosts: extra workers give the one worker\'s numbers, and the CLI\'s', async () => {
  const run = makeRun('pool');
  const one = await allHosts(run, 1);
  await one.close();
  assert.equal(one.started, 1, 'one analysis worker');
  const many = await allHosts(run, 3);
  await many.close();
  // The analysis worker and three extra ones, which are gone when done.
  assert.equal(many.started, 4);
  assert.equal(many.closed, 3);
  for (const tool of TOOLS) assert.equal(many.texts[tool], one.texts[tool], tool);
  // A worker renewed after every host (`?renew_after_mb=0`): two extra
  // workers for three hosts, the first to answer replaced for the third.
  const renewed = await allHosts(run, 2, '&renew_after_mb=0');
  await renewed.close();
  assert.equal(renewed.started, 4);
  assert.equal(renewed.closed, 3);
  for (const tool of TOOLS) assert.equal(renewed.texts[tool], one.texts[tool], tool);
  // The CLI's op stats of all hosts (IDLE included, as shown at first).
  const cli = execFileSync(CLI, ['tool', run, 'framework_op_stats', '--format', 'csv'], { encoding: 'utf8' });
  assert.equal(many.csv.replace(/\r\n/g, '\n').trim(), cli.replace(/\r\n/g, '\n').trim());
});

test('summaries beside the profiles are read instead of them; a stale one is not', async () => {
  const reference = await allHosts(makeRun('reference'), 1);
  await reference.close();
  const run = makeRun('summarised');
  execFileSync(CLI, ['summarize', run], { encoding: 'utf8' });
  const profiles = HOSTS.map(([host]) => path.join(run, 'plugins/profile/2026_11_26_08_00_00', `${host}.xplane.pb`));
  for (const p of profiles) zeroOut(p);
  // Four workers allowed, none needed: every host has its summary.
  const fromSummaries = await allHosts(run, 4);
  assert.equal(fromSummaries.started, 1, 'no extra worker');
  for (const tool of TOOLS) assert.equal(fromSummaries.texts[tool], reference.texts[tool], tool);
  // A host's timeline needs its events, which are zeros now.
  await fromSummaries.page.selectOption('#host', HOSTS[2][0]);
  await fromSummaries.page.selectOption('#tool', 'trace_viewer');
  await fromSummaries.page.locator('#error').waitFor({ timeout: 60_000 });
  assert.match(await fromSummaries.page.locator('#error').innerText(), /not an XSpace profile/);
  await fromSummaries.close();
  // A profile changed since: its summary is not used, and the zeros are read.
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(profiles[2], later, later);
  const stale = await allHostsError(run, 1);
  assert.match(stale, /not an XSpace profile/);
});

test('a host that cannot be read: the same error with extra workers as with one', async () => {
  const run = makeRun('damaged');
  zeroOut(path.join(run, 'plugins/profile/2026_11_26_08_00_00/loop.xplane.pb'));
  const one = await allHostsError(run, 1);
  const many = await allHostsError(run, 3);
  assert.equal(many, one);
  assert.match(one, /not an XSpace profile/);
});

/** Each tool of all ranks of `folder` at `?workers=N`: `{texts, started, page, close}`. */
async function allRanks(folder, workers) {
  const { page, seen, close, started } = await openCountingWorkers(`${env.server.url}/?workers=${workers}#tool=${RANK_TOOLS[0]}`);
  await page.setInputFiles('#open-folder', folder);
  const texts = {};
  for (const tool of RANK_TOOLS) {
    if (tool !== RANK_TOOLS[0]) await page.selectOption('#tool', tool);
    await page.locator(`#tool-${tool}`).waitFor({ timeout: 120_000 });
    assert.equal(await page.locator('#host').inputValue(), 'All hosts');
    assert.ok(await page.locator('#error').isHidden(), `${tool}: ${await page.locator('#error').textContent().catch(() => '')}`);
    texts[tool] = await page.locator(`#tool-${tool}`).innerText();
    assert.ok(texts[tool].length > 100, `${tool} shows its numbers`);
  }
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  return { texts, started: started(), page, close };
}

test('rank summaries beside a PyTorch job\'s traces are read instead of them', async () => {
  const job = path.join(dir, 'job');
  fs.mkdirSync(job, { recursive: true });
  for (const rank of RANKS) {
    fs.copyFileSync(path.join(DATA, 'kineto/kineto-multirank-sampled', `${rank}.json.gz`), path.join(job, `${rank}.json.gz`));
  }
  const reference = await allRanks(job, 1);
  await reference.close();
  execFileSync(CLI, ['summarize', job], { encoding: 'utf8' });
  for (const rank of RANKS) zeroOut(path.join(job, `${rank}.json.gz`));
  const fromSummaries = await allRanks(job, 4);
  assert.equal(fromSummaries.started, 1, 'no extra worker');
  for (const tool of RANK_TOOLS) assert.equal(fromSummaries.texts[tool], reference.texts[tool], tool);
  // A rank's timeline needs its events, which are zeros now.
  await fromSummaries.page.selectOption('#host', RANKS[0]);
  await fromSummaries.page.selectOption('#tool', 'trace_viewer');
  await fromSummaries.page.locator('#error').waitFor({ timeout: 60_000 });
  await fromSummaries.close();
});
