// trace_train_start.mjs: what the page does when Train is pressed and in the frames after it, in
// headless Chromium: a DevTools trace (Chrome DevTools Protocol `Tracing`) from just before
// train_start to --seconds after, summarised as the longest main-thread tasks and the longest
// gaps between frames, with what ran in them (top-level events by duration: scripts, GC, GPU
// waits, layout), and the sampler's hottest functions when --profile is given (`Profiler`; a
// build linked with --profiling-funcs names the WebAssembly functions).
//   node bench/trace_train_start.mjs [--seconds 8] [--profile] [--out trace.json]
import fs from 'node:fs';
import { openApp } from '../tests/web/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const seconds = Number(opt('seconds', 8)), out = opt('out', ''), profile = args.includes('--profile');

const app = await openApp();
try {
  const cdp = await app.context.newCDPSession(app.page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await app.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: [
    'devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'v8', 'v8.wasm',
    'disabled-by-default-v8.gc', 'blink.user_timing', 'gpu', 'toplevel', 'cc', 'viz'] } });
  if (profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  const r = await app.page.evaluate(async (seconds) => {
    const w = window.waferlab, frame = () => new Promise((r) => requestAnimationFrame(r));
    performance.mark('train_start');
    const t0 = performance.now();
    w.train_start({ config: 'gpt-nano', mesh: '32x32', steps: 100000, eval_every: 10, sample_every: 1000000 });
    const call = performance.now() - t0;
    performance.mark('train_start_returned');
    const frames = [];
    let prev = await frame();
    while (performance.now() - t0 < seconds * 1000) {
      const now = await frame();
      frames.push({ at: prev - t0, ms: now - prev, busy: w.state().frame_ms.busy, activity: w.train_state().activity });
      prev = now;
    }
    w.train_pause();
    return { call_ms: call, frames };
  }, seconds);
  let prof = null;
  if (profile) prof = (await cdp.send('Profiler.stop')).profile;
  await cdp.send('Tracing.end');
  await done;
  if (out) fs.writeFileSync(out, JSON.stringify({ traceEvents: events }));
  console.log(`train_start: ${r.call_ms.toFixed(0)} ms in the call`);
  console.log('the longest frame intervals after it (ms, from the call; the app\'s own time; activity after):');
  for (const f of [...r.frames].sort((a, b) => b.ms - a.ms).slice(0, 6))
    console.log(`  ${f.ms.toFixed(0)} ms at +${f.at.toFixed(0)} ms (app ${f.busy.toFixed(0)} ms) ${f.activity}`);
  // The main thread's top-level tasks: the renderer's main thread is the one running the page's scripts.
  const mainTid = (() => {
    const n = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
    return n ? [n.pid, n.tid] : null;
  })();
  const mark = events.find((e) => e.name === 'train_start' && e.cat?.includes('user_timing'));
  const base = mark ? mark.ts : Math.min(...events.filter((e) => e.ts).map((e) => e.ts));
  const on = (e, pid, tid) => e.pid === pid && e.tid === tid;
  const long = events.filter((e) => e.ph === 'X' && e.dur > 50000 && e.ts >= base - 1e5);
  console.log('events over 50 ms (thread, name, start from train_start, duration):');
  const threads = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  for (const e of long.sort((a, b) => a.ts - b.ts).slice(0, 60))
    console.log(`  ${(threads.get(`${e.pid}:${e.tid}`) || e.tid).padEnd(20)} ${e.name.padEnd(34)} +${((e.ts - base) / 1000).toFixed(0)} ms  ${(e.dur / 1000).toFixed(1)} ms` +
                (e.args?.data?.functionName ? ` ${e.args.data.functionName}` : ''));
  if (mainTid) {
    const gc = events.filter((e) => on(e, ...mainTid) && /GC|Gc|gc/.test(e.name) && e.ph === 'X' && e.ts >= base);
    console.log(`main-thread GC events after the call: ${gc.length}, ${(gc.reduce((s, e) => s + (e.dur || 0), 0) / 1000).toFixed(0)} ms`);
  }
  if (prof) {
    const self = new Map(), byId = new Map(prof.nodes.map((n) => [n.id, n]));
    const dt = prof.timeDeltas;
    prof.samples.forEach((id, i) => {
      const n = byId.get(id), name = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber})`;
      self.set(name, (self.get(name) || 0) + (dt[i + 1] || 0) / 1000);
    });
    const short = (n) => (n.length > 110 ? n.slice(0, 110) + '...' : n);
    console.log('the sampler: self time (ms) by function, the top 25, with the callers of the top 5:');
    const parent = new Map();
    for (const n of prof.nodes) for (const c of n.children || []) parent.set(c, n);
    const callers = new Map();   // function -> caller chain (3 up) -> ms
    prof.samples.forEach((id, i) => {
      let n = byId.get(id);
      const name = n.callFrame.functionName;
      const chain = [];
      for (let p = parent.get(n.id); p && chain.length < 3; p = parent.get(p.id)) chain.push(p.callFrame.functionName.split('(')[0]);
      const m = callers.get(name) || new Map();
      m.set(chain.join(' < '), (m.get(chain.join(' < ')) || 0) + (dt[i + 1] || 0) / 1000);
      callers.set(name, m);
    });
    [...self].sort((a, b) => b[1] - a[1]).slice(0, 25).forEach(([n, ms], k) => {
      console.log(`  ${ms.toFixed(1).padStart(8)}  ${short(n)}`);
      if (k < 5 && callers.get(n)) for (const [c, cm] of [...callers.get(n)].sort((a, b) => b[1] - a[1]).slice(0, 3))
        console.log(`            ${cm.toFixed(1).padStart(8)} from ${short(c)}`);
    });
  }
} finally {
  await app.close();
}
