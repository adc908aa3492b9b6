// app_frames.mjs: frame times of the web app while a 32 x 32 SUMMA runs.
//   node bench/app_frames.mjs [--p 32] [--seconds 10] [--json]
// Opens the built page (build/web/ui) in Debian's Chromium (SwiftShader GL,
// so drawing costs CPU like a machine without a GPU), loads examples/summa.wk
// with `const P` set to --p, runs it to completion, and reports the frame
// interval and the emulation's share of each frame (state().frame_ms).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp } from '../tests/web/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
const P = opt('p', 32), seconds = opt('seconds', 10), json = args.includes('--json');

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = fs.readFileSync(path.join(root, 'examples', 'summa.wk'), 'utf8').replace(/const P = \d+;/, `const P = ${P};`);

const app = await openApp();
try {
  const { page } = app;
  const result = await page.evaluate(async ({ src, seconds }) => {
    const w = window.waferlab;
    w.set_source(`summa${src.length}.wk`, src);
    const s0 = w.compile();
    if (!s0.loaded || s0.diagnostics.length) return { error: JSON.stringify(s0.diagnostics) };
    // First the same view paused, for what drawing alone costs per frame.
    const idle = [];
    await new Promise((resolve) => {
      let prev = performance.now();
      const tick = (now) => {
        idle.push(now - prev);
        prev = now;
        if (idle.length > 60) resolve();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    w.call('run', null);                       // to completion, a slice per frame
    const frames = [], emu = [], slices = [];
    const t0 = performance.now();
    let last = t0;
    await new Promise((resolve) => {
      const tick = (now) => {
        const s = w.state();
        frames.push(now - last);
        emu.push(s.frame_ms.emulation);
        slices.push(s.frame_ms.longest_slice);
        last = now;
        if (!s.running || now - t0 > seconds * 1000) resolve();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const s = w.state();
    return { idle: idle.slice(1), frames, emu, slices, cycle: s.cycle, done: s.done, error: s.error, wall_ms: performance.now() - t0, mesh: s.mesh };
  }, { src, seconds });
  if (result.error) throw new Error(`the kernel did not run: ${JSON.stringify(result.error)}`);
  const pct = (xs, p) => { const v = [...xs].sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.floor(p * v.length))]; };
  const r2 = (x) => Math.round(x * 100) / 100;
  const stats = (xs) => ({ p50: r2(pct(xs, 0.5)), p95: r2(pct(xs, 0.95)), max: r2(Math.max(...xs)) });
  const out = {
    bench: 'app_frames',
    mesh: result.mesh,
    frames: result.frames.length,
    frame_interval_paused_ms: stats(result.idle),
    frame_interval_ms: stats(result.frames.slice(1)),
    emulation_ms_per_frame: stats(result.emu),
    longest_slice_ms: stats(result.slices),
    cycles: result.cycle,
    finished: result.done,
    emulated_cycles_per_s: Math.round(result.cycle / (result.wall_ms / 1000)),
    pe_cycles_per_s: Math.round(result.cycle * P * P / (result.wall_ms / 1000)),
  };
  if (json) console.log(JSON.stringify(out));
  else {
    console.log(`SUMMA ${P} x ${P}: ${out.cycles} cycles in ${r2(result.wall_ms / 1000)} s over ${out.frames} frames (${out.finished ? 'finished' : 'stopped at the time limit'})`);
    console.log(`frame interval ms, paused   p50 ${out.frame_interval_paused_ms.p50}  p95 ${out.frame_interval_paused_ms.p95}  max ${out.frame_interval_paused_ms.max}`);
    console.log(`frame interval ms, running  p50 ${out.frame_interval_ms.p50}  p95 ${out.frame_interval_ms.p95}  max ${out.frame_interval_ms.max}`);
    console.log(`emulation ms/frame         p50 ${out.emulation_ms_per_frame.p50}  p95 ${out.emulation_ms_per_frame.p95}  max ${out.emulation_ms_per_frame.max}`);
    console.log(`longest slice ms           p50 ${out.longest_slice_ms.p50}  p95 ${out.longest_slice_ms.p95}  max ${out.longest_slice_ms.max}`);
    console.log(`emulated ${out.emulated_cycles_per_s} cycles/s = ${out.pe_cycles_per_s} PE-cycles/s`);
  }
} finally {
  await app.close();
}
