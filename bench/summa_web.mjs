// summa_web.mjs: a large SUMMA in fast mode through the web app's own run loop, in headless
// Chromium (issue 11: a 64x64-PE SUMMA finishes in under 2 s in a browser tab).
//   node bench/summa_web.mjs [--p 64] [--b 4] [--optimise] [--json]
// Loads examples/summa.wk with `const P` and `const B` set (its print removed), switches to fast
// mode (and with --optimise to Run > Optimised code), compiles, runs it to the end with waferlab.run(), and reports the compile and run times
// and the frames drawn during the run.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp } from '../tests/web/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
const P = opt('p', 64), B = opt('b', 4), json = args.includes('--json'), optimise = args.includes('--optimise');
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = fs.readFileSync(path.join(root, 'examples', 'summa.wk'), 'utf8').replace(/const P = \d+;/, `const P = ${P};`)
  .replace(/const B = \d+;/, `const B = ${B};`).replace(/\s*print C at[^\n]*\n/, '\n');

const app = await openApp();
try {
  const r = await app.page.evaluate(async ({ src, optimise }) => {
    const w = window.waferlab;
    w.set_mode('fast');
    w.set_optimise(optimise);
    w.set_source('summa_big.wk', src);
    const t0 = performance.now();
    const s0 = w.compile();
    const t1 = performance.now();
    if (!s0.loaded) return { error: JSON.stringify(s0.diagnostics) };
    const f0 = w.state().frame;
    const s = await w.run();
    return { compile_s: (t1 - t0) / 1000, run_s: (performance.now() - t1) / 1000, frames: w.state().frame - f0,
             cycles: s.cycle, status: s.status };
  }, { src, optimise });
  if (json) console.log(JSON.stringify(r));
  else if (r.error) console.log(`summa did not compile: ${r.error}`);
  else console.log(`SUMMA on ${P}x${P} PEs (B = ${B}) in fast mode${optimise ? ', optimised code,' : ''} in headless Chromium: compile ${r.compile_s.toFixed(1)} s, ` +
                   `run ${r.run_s.toFixed(1)} s (${r.frames} frames, ${r.cycles} cycles estimated, ${r.status})`);
} finally {
  await app.close();
}
