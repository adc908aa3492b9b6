// The Model window's two views in the browser: Density (gpt-nano's weights, at a quarter
// of its context and batch, swept to densities 1, 0.5, 0.25 and 0.1 beside the dense plan: one
// matmul and a training step, cycles and wavelets against the ideal) and Resident vs streaming (one forward both ways). Each runs in units
// between frames, so frames go on while it works, and a cancel stops it; the figures are the
// engine's, checked here for what must hold. Screenshots of both in tests/web/out/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, state, outDir } from './browser.mjs';

let app;
before(async () => { app = await openApp('', { width: 1600, height: 1100 }); });
after(async () => { await app?.close(); });

const call = (page, fn, ...args) => page.evaluate(([fn, args]) => window.waferlab[fn](...args), [fn, args]);
const until = (page, fn, arg, timeout = 600000) => page.waitForFunction(fn, arg, { timeout, polling: 500 });
// The Model window scrolled to its end (the two views are its last sections), then the canvas.
const shot = async (page, name) => {
  const w = (await state(page)).layout.model;
  await page.mouse.move(w.x + w.w / 2, w.y + w.h / 2);
  for (let i = 0; i < 12; i++) {   // ImGui scrolls a few lines a wheel event
    await page.mouse.wheel(0, 500);
    await frames(page, 2);
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, name), await page.locator('#canvas').screenshot());
};

test('Density: the sweep runs between frames, cancels, and gives cycles and wavelets against the ideal', async () => {
  const { page } = app;
  // gpt-nano at a quarter of its context and batch: the same plans, a quarter of the work.
  await call(page, 'model_compile', 'gpt-nano', '32x32', { show: true, set: 'model.block_size=16,train_input.batch_size=2' });
  // A cancel stops it where it is; frames went on meanwhile.
  let d = await call(page, 'model_density', { start: true });
  assert.equal(d.running, true);
  const f0 = (await state(page)).frame;
  await until(page, (f) => window.waferlab.state().frame >= f + 10, f0, 120000);
  d = await call(page, 'model_density', {});
  assert.match(d.activity, /^(dense plan|density \d\.\d\d): /, d.activity);
  d = await call(page, 'model_density', { cancel: true });
  assert.equal(d.running, false);
  assert.equal(d.cancelled, true);
  const p = d.progress;
  await frames(page, 5);
  assert.equal((await call(page, 'model_density', {})).progress, p, 'cancelled: nothing more runs');

  // The whole sweep, while frames keep being drawn.
  await call(page, 'model_density', { start: true });
  let frame = (await state(page)).frame, seen = 0;
  while (!(d = await call(page, 'model_density', {})).done && d.error === null) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = (await state(page)).frame;
    if (now > frame) seen++;
    frame = now;
    if ((await state(page)).model.layout.density_progress) assert.ok(d.progress >= 0 && d.progress <= 1);
  }
  assert.equal(d.error, null);
  assert.ok(seen >= 3, `frames were drawn in ${seen} of the seconds the sweep took`);
  assert.deepEqual(d.points.map((x) => x.plan), ['dense', 'sparse', 'sparse', 'sparse', 'sparse']);
  assert.equal(d.op, 'l0.fch');
  assert.equal(d.T, 16);
  assert.equal(d.B, 2);
  const [dense, ...sparse] = d.points;
  assert.ok(dense.op.cycles > 0 && dense.op.wavelets > 0 && dense.train_step.cycles > dense.op.cycles);
  for (const x of d.points) {
    assert.equal(x.logits_differ, 0, `density ${x.density}: the sparse forward is the reference's`);
    assert.ok(Math.abs(x.op.ideal_cycles - x.density * dense.op.cycles) < 1, 'ideal = density x dense');
  }
  for (const [i, want] of [1, 0.5, 0.25, 0.1].entries()) assert.ok(Math.abs(sparse[i].density - want) < 0.01);
  // (At T = 64, gpt-nano's sparse training layout at density 1 does not fit 32x32, and the view says so: docs/performance.md.)
  for (const x of sparse) assert.ok(x.train_step.cycles > 0 && x.train_error === null, `density ${x.density} trained`);
  assert.ok(sparse[3].op.cycles < dense.op.cycles && sparse[3].train_step.cycles < dense.train_step.cycles,
    'density 0.1 is cheaper than dense for the matmul and the step');
  assert.ok(sparse[3].op.cycles > sparse[3].op.ideal_cycles, 'but not as cheap as the ideal');
  await frames(page, 3);
  const s = await state(page);
  for (const k of ['density_header', 'density_op_table', 'density_step_table', 'density_plot'])
    assert.ok(s.model.layout[k], `${k} is not drawn`);
  await shot(page, 'model_density.png');
});

test('Resident vs streaming: one forward both ways, split into compute and streaming, logits bit for bit', async () => {
  const { page } = app;
  const plan = await call(page, 'model_compile', 'gpt-nano', '32x32', { show: true });
  let c = await call(page, 'model_execution', { start: true });
  assert.equal(c.running, true);
  await until(page, () => window.waferlab.model_execution({}).done, null, 300000);
  c = await call(page, 'model_execution', {});
  const { resident: r, streaming: st } = c;
  assert.equal(r.ran, true, r.error);
  assert.equal(st.ran, true, st.error);
  assert.equal(c.logits_differ, 0, 'the same logits, bit for bit');
  assert.equal(c.logits, 64 * plan.shape.vocab_size);
  assert.equal(r.stream_cycles, 0);
  assert.ok(st.stream_cycles > 0 && st.stream_bytes > 0);
  assert.equal(st.compute_cycles + st.stream_cycles, st.cycles);
  assert.ok(st.pes > 0 && r.pes > 0);
  await frames(page, 3);
  const s = await state(page);
  for (const k of ['compare_header', 'compare_table', 'compare_logits']) assert.ok(s.model.layout[k], `${k} is not drawn`);
  await shot(page, 'model_execution.png');

  // A model too big to be resident on the mesh says so, and streaming still runs.
  await call(page, 'model_compile', 'gpt-nano', '16x16', { show: true, execution: 'streaming', set: 'model.n_layer=8' });
  await call(page, 'model_execution', { start: true });
  await until(page, () => window.waferlab.model_execution({}).done, null, 300000);
  c = await call(page, 'model_execution', {});
  assert.equal(c.resident.ran, false);
  assert.equal(c.resident.too_big, true);
  assert.ok(c.resident.error.length > 0);
  assert.equal(c.streaming.ran, true, c.streaming.error);
  assert.equal(c.logits_differ, null);
  await frames(page, 3);
  await shot(page, 'model_execution_too_big.png');
});
