// serve.mjs: serves the built web app on 127.0.0.1 with correct MIME types, and the
// documentation site (make docs) at /docs/ beside it, so its live demos embed the app.
//   node web/serve.mjs [--root build/web/ui] [--docs build/site] [--port 8000]
// Also imported by the browser tests (startServer), so both use one server.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.data': 'application/octet-stream',
  '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8',
  '.wk': 'text/plain; charset=utf-8', '.md': 'text/markdown; charset=utf-8', '.ico': 'image/x-icon',
};

export function startServer({ root, docs = null, port = 0, host = '127.0.0.1', quiet = true } = {}) {
  root = path.resolve(root);
  if (!fs.existsSync(path.join(root, 'index.html')))
    throw new Error(`${root}/index.html not found: build the web app first (make web)`);
  if (docs) {
    docs = path.resolve(docs);
    if (!fs.existsSync(path.join(docs, 'index.html'))) throw new Error(`${docs}/index.html not found: build the docs first (make docs)`);
  }
  const server = http.createServer((req, res) => {
    let rel;
    try { rel = decodeURIComponent(new URL(req.url, 'http://x').pathname); } catch { rel = null; }
    let base = root;
    if (docs && rel !== null && (rel === '/docs' || rel.startsWith('/docs/'))) base = docs, rel = rel.slice('/docs'.length) || '/';
    const file = rel === null ? null : path.join(base, rel.endsWith('/') ? rel + 'index.html' : rel);
    // Anything outside the root, or odd, is a plain 404: never a crash, never a leak.
    if (!file || !file.startsWith(base + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
      if (!quiet) console.log(`404 ${req.url}`);
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] || 'application/octet-stream',
      'Cache-Control': 'no-cache',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}/` }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : def; };
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = arg('root', path.join(here, '..', 'build', 'web', 'ui'));
  const port = Number(arg('port', process.env.PORT || 8000));
  const docs = arg('docs', null);
  startServer({ root, docs, port, quiet: false }).then(({ url }) => {
    console.log(`WaferLab is served at ${url}${docs ? `, its documentation at ${url}docs/` : ''}  (Ctrl+C to stop)`);
  }).catch((e) => {
    console.error(`serve: ${e.code === 'EADDRINUSE' ? `port ${port} is in use; try --port ${port + 1}` : e.message}`);
    process.exit(1);
  });
}
