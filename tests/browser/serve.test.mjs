// `proflens serve LOGDIR`: the CLI serves the built page and a log directory
// on 127.0.0.1; the page lists the runs from the index it builds on each
// request and reads a profile when it is chosen, nothing from another origin.
// A real HTTP client then tries what a hostile page or a stray path would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, DATA, DIST } from './harness.mjs';

const CLI = process.env.PROFLENS_CLI ?? path.resolve(DATA, '../../target/debug/proflens');
const INPUT_BOUND = path.join(DATA, 'xspace/input_bound/plugins/profile/2026_11_22_09_04_29/vm.xplane.pb');

let env;
let root;
let server;
let origin;

before(async () => {
  assert.ok(fs.existsSync(CLI), `the proflens CLI is built (${CLI}); set PROFLENS_CLI`);
  // The log directory, and a file beside it that must stay unreadable.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-serve-'));
  const run = path.join(root, 'logs/plugins/profile/2026_11_23_07_00_00');
  fs.mkdirSync(run, { recursive: true });
  fs.copyFileSync(INPUT_BOUND, path.join(run, 'vm.xplane.pb'));
  fs.writeFileSync(path.join(root, 'secret.txt'), 'not for the page');
  fs.symlinkSync(path.join(root, 'secret.txt'), path.join(root, 'logs/link-out.txt'));
  server = spawn(CLI, ['serve', path.join(root, 'logs'), '--port', '0', '--page', DIST], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const found = out.match(/http:\/\/127\.0\.0\.1:\d+\/\S*/);
      if (found) resolve(found[0]);
    });
    server.on('exit', (code) => reject(new Error(`proflens serve exited with ${code}: ${out}`)));
  });
  origin = new URL(url).origin;
  env = await launch();
});

after(async () => {
  server?.kill();
  await env?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A GET (or `method`) with the given headers: its status and body. */
function request(target, headers = {}, method = 'GET') {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method, headers }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the printed URL opens the page on the log directory, and a host loads from it', async () => {
  const { page, seen, close } = await openPage(env.browser, `${origin}/?logdir=logdir/#tool=overview_page`);
  await page.locator('#tool-overview_page').waitFor({ timeout: 30_000 });
  const runs = await page.$$eval('#run option', (o) => o.map((x) => x.value));
  assert.deepEqual(runs, ['2026_11_23_07_00_00']);
  assert.ok(seen.requests.some((u) => u.endsWith('/logdir/proflens-index.json')));
  assert.ok(seen.requests.some((u) => u.endsWith('/logdir/plugins/profile/2026_11_23_07_00_00/vm.xplane.pb')));
  assertOwnOrigin(seen, origin);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('the server is read-only, stays inside its folders and answers no other origin', async () => {
  const own = { Host: new URL(origin).host };
  const profile = await request('/logdir/plugins/profile/2026_11_23_07_00_00/vm.xplane.pb', own);
  assert.equal(profile.status, 200);
  for (const target of ['/logdir/../secret.txt', '/logdir/%2e%2e/secret.txt', '/logdir/link-out.txt', '/../secret.txt']) {
    const { status, body } = await request(target, own);
    assert.equal(status, 404, target);
    assert.ok(!body.includes('not for the page'), target);
  }
  assert.equal((await request('/', { ...own, Origin: 'http://evil.example' })).status, 403);
  assert.equal((await request('/', { Host: 'evil.example' })).status, 403);
  assert.equal((await request('/logdir/proflens-index.json', own, 'POST')).status, 405);
  assert.equal((await request('/', own)).status, 200);
});
