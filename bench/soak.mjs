// soak.mjs: the web app under a long, repetitive session, watched for leaks (`make soak`, not in CI).
//   node bench/soak.mjs [--minutes 30] [--json out.json]        (SOAK_MINUTES for make soak)
// Opens the built page (build/web/ui) in Debian's Chromium and loops: SUMMA loaded, run part-way,
// rewound to half, reset, run to its end; then another example loaded and run to its end; round
// the examples in turn. Every minute it samples malloc's bytes in use and the WebAssembly memory
// (waferlab.memory()) and the JS heap after a forced collection (CDP Runtime.getHeapUsage), then
// prints the table and the growth from the first sample to the last. A steady leak shows as
// growth that keeps climbing; a cache filling up (the rewind snapshots, up to their budget)
// levels off.
import fs from 'node:fs';
import { openApp } from '../tests/web/browser.mjs';

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const minutes = Number(arg('minutes', process.env.SOAK_MINUTES || 30));
const jsonOut = arg('json', null);

const app = await openApp();
const { page } = app;
const cdp = await page.context().newCDPSession(page);
const mb = (b) => (b / 1048576).toFixed(1);

async function sample(minute, rounds) {
  await cdp.send('HeapProfiler.collectGarbage');
  const js = await cdp.send('Runtime.getHeapUsage');
  const m = await page.evaluate(() => window.waferlab.memory());
  return { minute, rounds, malloc_in_use: m.malloc_in_use, wasm_memory: m.wasm_memory, js_heap: js.usedSize };
}

// One round: SUMMA with a rewind and a reset, then the next other example, each run to its end.
async function round(others, k) {
  const ok = (s, what) => { if (s.error || !s.done) throw new Error(`${what}: ${JSON.stringify(s.error)} (done ${s.done})`); };
  await page.evaluate(() => window.waferlab.load_example('summa', true));
  const part = await page.evaluate(() => window.waferlab.run(400));
  await page.evaluate((c) => window.waferlab.rewind(c), Math.floor(part.cycle / 2));
  await page.evaluate(() => window.waferlab.whenStopped());
  await page.evaluate(() => window.waferlab.reset());
  ok(await page.evaluate(() => window.waferlab.run()), 'summa');
  const name = others[k % others.length];
  await page.evaluate((n) => window.waferlab.load_example(n, true), name);
  ok(await page.evaluate(() => window.waferlab.run()), name);
}

try {
  const examples = (await page.evaluate(() => window.waferlab.state())).examples;
  const others = examples.filter((n) => n !== 'summa');
  const samples = [await sample(0, 0)];
  const t0 = Date.now();
  let rounds = 0;
  while (Date.now() - t0 < minutes * 60000) {
    await round(others, rounds++);
    const minute = Math.floor((Date.now() - t0) / 60000);
    if (minute > samples[samples.length - 1].minute) {
      samples.push(await sample(minute, rounds));
      const s = samples[samples.length - 1];
      console.log(`minute ${String(s.minute).padStart(3)}: ${String(s.rounds).padStart(5)} rounds, malloc ${mb(s.malloc_in_use)} MB, ` +
                  `wasm memory ${mb(s.wasm_memory)} MB, JS heap ${mb(s.js_heap)} MB`);
    }
  }
  console.log('\n| minute | rounds | malloc in use (MB) | WASM memory (MB) | JS heap (MB) |');
  console.log('|---|---|---|---|---|');
  for (const s of samples) console.log(`| ${s.minute} | ${s.rounds} | ${mb(s.malloc_in_use)} | ${mb(s.wasm_memory)} | ${mb(s.js_heap)} |`);
  const first = samples[1] || samples[0], last = samples[samples.length - 1];
  const grow = (k) => `${mb(last[k] - first[k])} MB`;
  console.log(`\ngrowth from minute ${first.minute} to minute ${last.minute} (${last.rounds - first.rounds} rounds): ` +
              `malloc ${grow('malloc_in_use')}, WASM memory ${grow('wasm_memory')}, JS heap ${grow('js_heap')}`);
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ minutes, examples: ['summa', ...others], samples }, null, 1));
} finally {
  await app.close();
}
