// serve.mjs: serves the built web app on 127.0.0.1 with correct MIME types.
//   node web/serve.mjs [--root build/web/ui] [--port 8000]
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

export function startServer({ root, port = 0, host = '127.0.0.1', quiet = true } = {}) {
  root = path.resolve(root);
  if (!fs.existsSync(path.join(root, 'index.html')))
    throw new Error(`${root}/index.html not found: build the web app first (make web)`);
  const server = http.createServer((req, res) => {
    let rel;
    try { rel = decodeURIComponent(new URL(req.url, 'http://x').pathname); } catch { rel = null; }
    const file = rel === null ? null : path.join(root, rel.endsWith('/') ? rel + 'index.html' : rel);
    // Anything outside the root, or odd, is a plain 404: never a crash, never a leak.
    if (!file || !file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
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
  startServer({ root, port, quiet: false }).then(({ url }) => {
    console.log(`WaferLab is served at ${url}  (Ctrl+C to stop)`);
  }).catch((e) => {
    console.error(`serve: ${e.code === 'EADDRINUSE' ? `port ${port} is in use; try --port ${port + 1}` : e.message}`);
    process.exit(1);
  });
}
