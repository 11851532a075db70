// A static server for dist/ on 127.0.0.1 with a random port, for the browser tests.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/** Serves `root` at `/`, and each `mounts[prefix]` folder at `/<prefix>/`. */
export function serveStatic(root, mounts = {}) {
  const server = http.createServer((req, res) => {
    let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let base = root;
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (rel.startsWith(`/${prefix}/`)) {
        base = dir;
        rel = rel.slice(prefix.length + 1);
      }
    }
    const file = path.join(base, rel.endsWith('/') ? `${rel}index.html` : rel);
    if (!file.startsWith(base) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({ url, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
