// fps_web.mjs: the frame rate the web app keeps in the three states a student spends time in,
// in one run of one page (1366 x 768, headless Chromium, SwiftShader: drawing costs CPU):
//   idle      SUMMA 8x8 loaded, editor and log open, nothing running or typed
//   editing   typing into SUMMA's editor at a quick typist's pace (--cps keys a second)
//   training  View > Model > Train: gpt-nano on a 32x32 mesh (clicked, as a student does)
//   node bench/fps_web.mjs [--seconds 10] [--cps 8] [--json]
//   node bench/fps_web.mjs --before DIR [--rounds 3] [--json]     (DIR: another build's build/web/ui)
// Each state is measured for --seconds by the page's own frame callbacks (requestAnimationFrame,
// which the app's main loop runs on): frames/s at the median and at the 5th percentile (the
// median and 95th-percentile frame interval), and the longest interval. A sample of
// state().frame_ms once a second says where a frame's time goes: busy (the app's main-thread time,
// drawing and work), draw (its drawing part, as the frame budget measures it), wait (the rest of
// the interval: the browser's compositing and SwiftShader's rasterising).
// With --before, the same three states are measured on that build and on this one in turn, --rounds
// times each (the order alternating, so a change in the machine's load falls on both), and each
// figure is the median of its rounds, with after / before.
import { openApp, frames, state, clickAt, centreOf } from '../tests/web/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
const seconds = opt('seconds', 10), cps = opt('cps', 8), rounds = opt('rounds', 3), json = args.includes('--json');
const before = args.includes('--before') ? args[args.indexOf('--before') + 1] : null;

// Starts the page's frame recorder: each frame's interval, and frame_ms once a second.
const record = (page) => page.evaluate(() => {
  const r = window.__fps = { intervals: [], samples: [], on: true, frame0: window.waferlab.state().frame };
  let prev = null, lastSample = performance.now();
  const tick = (now) => {
    if (!r.on) return;
    if (prev !== null) r.intervals.push(now - prev);
    prev = now;
    if (now - lastSample > 1000) {
      lastSample = now;
      const f = window.waferlab.state().frame_ms;
      r.samples.push({ busy: f.busy, draw: f.draw, wait: f.wait });
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});
const stop = (page) => page.evaluate(() => {
  const r = window.__fps;
  r.on = false;
  return { intervals: r.intervals, samples: r.samples, app_frames: window.waferlab.state().frame - r.frame0 };
});

const pct = (xs, p) => { const v = [...xs].sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.floor(p * v.length))]; };
const r1 = (x) => Math.round(x * 10) / 10;
function summary(name, { intervals, samples, app_frames }) {
  const p50 = pct(intervals, 0.5), p95 = pct(intervals, 0.95);
  const mean = (k) => r1(samples.reduce((s, x) => s + x[k], 0) / Math.max(1, samples.length));
  return { state: name, frames: intervals.length, app_frames, fps_median: r1(1000 / p50), fps_p5: r1(1000 / p95),
           interval_ms: { p50: r1(p50), p95: r1(p95), max: r1(Math.max(...intervals)) },
           frame_ms_mean: { busy: mean('busy'), draw: mean('draw'), wait: mean('wait') } };
}

// The three states on one page of the build at `root` (undefined: this one).
async function measure(root) {
  const app = await openApp('?example=summa', { width: 1366, height: 768, root });
  const { page } = app;
  const out = [];
  try {
    await frames(page, 10);

    await record(page);
    await page.waitForTimeout(seconds * 1000);   // a bench measures over wall time; no test waits on it
    out.push(summary('idle', await stop(page)));

    // Editing: a comment line typed at the end of the kernel, at the typist's pace.
    await clickAt(page, centreOf((await state(page)).places.editor));
    await frames(page);
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await frames(page);
    await record(page);
    const words = '// typing at a quick typist\'s pace while the frames are counted ';
    const keys = Math.round(seconds * cps);
    await page.keyboard.type(words.repeat(Math.ceil(keys / words.length)).slice(0, keys), { delay: 1000 / cps });
    out.push(summary('editing', await stop(page)));

    // Training: View > Model, then Train's start button; measured once the steps run.
    await clickAt(page, centreOf((await state(page)).layout.menu_view));
    await frames(page, 2);
    await clickAt(page, centreOf((await state(page)).layout.menu_model));
    await frames(page, 3);
    await clickAt(page, centreOf((await state(page)).model.layout.train_start));
    await page.waitForFunction(() => window.waferlab.train_state().step >= 1, null, { timeout: 300000, polling: 500 });
    const step0 = await page.evaluate(() => window.waferlab.train_state().step);
    await record(page);
    await page.waitForTimeout(seconds * 1000);
    const t = await stop(page);
    const steps = (await page.evaluate(() => window.waferlab.train_state().step)) - step0;
    out.push({ ...summary('training', t), steps_per_s: r1(steps / seconds * 100) / 100 });   // the work the frames leave room for
    await page.evaluate(() => window.waferlab.train_pause());
  } finally {
    await app.close();
  }
  return out;
}

const line = (r, tag = '') =>
  `${(tag + r.state).padEnd(16)} ${String(r.fps_median).padStart(5)} frames/s median, ${String(r.fps_p5).padStart(5)} at the 5th percentile ` +
  `(interval p50 ${r.interval_ms.p50} ms, p95 ${r.interval_ms.p95} ms, max ${r.interval_ms.max} ms; ${r.frames} frames); ` +
  `a frame: busy ${r.frame_ms_mean.busy} ms, draw ${r.frame_ms_mean.draw} ms, wait ${r.frame_ms_mean.wait} ms` +
  (r.steps_per_s !== undefined ? `; ${r.steps_per_s} training steps/s` : '');

if (!before) {
  const states = await measure(undefined);
  if (json) console.log(JSON.stringify({ bench: 'fps_web', seconds, cps, states }));
  else for (const r of states) console.log(line(r));
} else {
  const runs = { before: [], after: [] };
  for (let i = 0; i < rounds; ++i)
    for (const which of i % 2 ? ['after', 'before'] : ['before', 'after']) {
      runs[which].push(await measure(which === 'before' ? before : undefined));
      if (!json) for (const r of runs[which].at(-1)) console.log(line(r, `${which} ${i + 1} `));
    }
  const med = (xs) => pct(xs, 0.5);
  const keys = ['fps_median', 'fps_p5', 'steps_per_s'];
  const fold = (list) => list[0].map((r, k) => Object.fromEntries([['state', r.state],
    ...keys.filter((q) => r[q] !== undefined).map((q) => [q, med(list.map((l) => l[k][q]))])]));
  const b = fold(runs.before), a = fold(runs.after);
  const ratio = (x, y) => Math.round(x / y * 100) / 100;
  const ratios = a.map((r, k) => Object.fromEntries([['state', r.state],
    ...keys.filter((q) => r[q] !== undefined).map((q) => [q, ratio(r[q], b[k][q])])]));
  if (json) console.log(JSON.stringify({ bench: 'fps_web', seconds, cps, rounds, before: b, after: a, ratios, runs }));
  else for (let k = 0; k < a.length; ++k)
    console.log(`${a[k].state.padEnd(8)} median of ${rounds}: ${b[k].fps_median} -> ${a[k].fps_median} frames/s (x${ratios[k].fps_median}), ` +
                `5th percentile ${b[k].fps_p5} -> ${a[k].fps_p5} (x${ratios[k].fps_p5})` +
                (a[k].steps_per_s !== undefined ? `; steps/s ${b[k].steps_per_s} -> ${a[k].steps_per_s} (x${ratios[k].steps_per_s})` : ''));
}
