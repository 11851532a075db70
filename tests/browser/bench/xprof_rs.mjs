// xprof-rs (PROFLENS_XPROF_RS names its binary) on the same file in the
// same benchmark: a temporary log directory holding the file (run `run1`),
// a fresh server process per cold run, and each tool's request timed from
// sending it to the last byte of the answer, the first (overview_page) on
// a server that has read nothing yet. The server's memory is read from /proc.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { memoryOf } from './procs.mjs';

export const RUN = 'run1';

/** Proflens's tool id → xprof-rs's tag (its trace viewer answers in one request as `trace_viewer@`). */
export const tagOf = (tool) => (tool === 'trace_viewer' ? 'trace_viewer@' : tool);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A log directory with `profile`'s files in `plugins/profile/run1` (hard links, else copies). */
function makeLogdir(profile) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'proflens-bench-xprof-'));
  const run = path.join(root, 'plugins', 'profile', RUN);
  fs.mkdirSync(run, { recursive: true });
  const files = fs.statSync(profile).isDirectory()
    ? fs.readdirSync(profile).filter((n) => n.endsWith('.xplane.pb')).map((n) => path.join(profile, n))
    : [profile];
  for (const file of files) {
    const to = path.join(run, path.basename(file));
    try {
      fs.linkSync(file, to);
    } catch {
      fs.copyFileSync(file, to);
    }
  }
  return { root, hosts: files.map((f) => path.basename(f).replace(/\.xplane\.pb$/, '')) };
}

async function get(url, timeoutMs) {
  const started = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const body = await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status, bytes: body.byteLength, text: () => Buffer.from(body).toString('utf8') };
}

/** Waits for the server to answer its runs list; ms from spawn. */
async function started(base, child, spawnedAt) {
  for (;;) {
    if (child.exitCode != null) throw new Error(`xprof-rs exited (${child.exitCode}) before answering`);
    try {
      const r = await fetch(`${base}/data/plugin/profile/runs`);
      if (r.ok) {
        await r.arrayBuffer();
        return performance.now() - spawnedAt;
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * One cold run per `runs`: `[{startup_ms, tools: {tool: {ms, status, bytes}}, rss_bytes, peak_bytes}]`.
 * `tools` are Proflens's ids, overview_page first; those xprof-rs does not list for the run are left out.
 */
export async function xprofRsRuns(binary, profile, tools, { runs, timeoutMs }) {
  const { root, hosts } = makeLogdir(profile);
  const results = [];
  try {
    for (let i = 0; i < runs; i++) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const spawnedAt = performance.now();
      const child = spawn(binary, ['--logdir', root, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-2000); });
      try {
        const startupMs = await started(base, child, spawnedAt);
        // What xprof-rs offers for the run (asked after the cold overview, so that one stays cold).
        const result = { startup_ms: startupMs, tools: {}, host: hosts[0] };
        const ask = async (tool) => {
          const url = `${base}/data/plugin/profile/data?run=${RUN}&tag=${encodeURIComponent(tagOf(tool))}&host=${encodeURIComponent(hosts[0])}`;
          const r = await get(url, timeoutMs);
          result.tools[tool] = { ms: r.ms, status: r.status, bytes: r.bytes, rss_bytes: memoryOf(child.pid)?.rss ?? null };
        };
        await ask('overview_page');
        const served = JSON.parse((await get(`${base}/data/plugin/profile/run_tools?run=${RUN}`, timeoutMs)).text());
        result.served = served;
        for (const tool of tools.filter((t) => t !== 'overview_page' && served.includes(tagOf(t)))) await ask(tool);
        const memory = memoryOf(child.pid);
        result.rss_bytes = memory?.rss ?? null;
        result.peak_bytes = memory?.peak ?? null;
        results.push(result);
      } catch (e) {
        throw new Error(`xprof-rs: ${e.message}${stderr ? `\n${stderr}` : ''}`);
      } finally {
        child.kill();
        await new Promise((r) => (child.exitCode != null ? r() : child.once('exit', r)));
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return results;
}
