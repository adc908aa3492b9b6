// Training gpt-nano on the emulated mesh in the browser (the Model window's Train): Start with
// a click, the start built over frames with a progress line (and held by Pause), a couple of
// steps while frames keep being drawn, Pause at a step boundary, the loss
// history finite and reported step by step; a text file to train on, refused when binary or
// empty with the run untouched (the refusal's notice gone once a start succeeds); the checkpoint as a download; a streamed step's time split into
// compute and streaming, and two wafers side by side with the one-wafer loss. Every wait is on state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, state, centreOf, clickAt, outDir } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const train = (page) => page.evaluate(() => window.waferlab.train_state());
const until = (page, fn, arg, timeout = 180000) => page.waitForFunction(fn, arg, { timeout, polling: 'raf' });

test('Start with a click trains on the mesh while frames go on; Pause stops at a step boundary', async () => {
  const { page } = app;
  await page.evaluate(() => window.waferlab.model_window({ open: true }));
  await frames(page, 3);
  let s = await state(page);
  assert.ok(s.model.layout.train_start, 'no Start training button');
  await clickAt(page, centreOf(s.model.layout.train_start));
  // The start (the plan, the kernels' compile, the mesh's loading) is built a unit a frame: it says
  // how far it is, and Pause holds it between two units. Caught and paused in one frame callback.
  const held = await page.evaluate(() => new Promise((ok) => {
    const f = () => {
      const w = window.waferlab;
      if (/^starting: compiling kernels/.test(w.train_state().activity)) ok(w.train_pause());
      else requestAnimationFrame(f);
    };
    f();
  }));
  assert.equal(held.status, 'paused');
  assert.match(held.activity, /^starting: compiling kernels: \d+ of \d+ \(\w+\.wk for [\w.]+\)/);
  assert.ok(held.progress >= 0 && held.progress <= 1, `progress ${held.progress}`);
  await frames(page, 5);
  s = await state(page);
  assert.ok(s.model.layout.train_progress, 'the start\'s progress line is drawn');
  assert.equal((await train(page)).activity, held.activity, 'paused: the start holds');
  await page.evaluate(() => window.waferlab.train_resume());
  await until(page, () => window.waferlab.train_state().status === 'running', null, 60000);
  await frames(page, 2);
  s = await state(page);
  assert.equal(s.model.train.on_canvas, true, 'the canvas shows the training mesh');
  assert.equal(s.canvas.legend[0].title, 'training: the op running now, by phase');

  // Frames keep coming while a step (hundreds of launches) runs: the step is sliced. Counted from
  // one step's end to the next's, so a quicker host (fewer frames a step) still measures a step.
  const framesPerStep = await page.evaluate(() => new Promise((ok) => {
    const w = window.waferlab;
    let step = w.train_state().step, from = null;
    const f = () => {
      const now = w.train_state().step;
      if (now > step && from !== null) return ok(w.state().frame - from);
      if (now > step) step = now, from = w.state().frame;
      requestAnimationFrame(f);
    };
    f();
  }));
  const mid = await train(page);
  // Frame by frame, the canvas lights the op the panel names (it once lagged a tick behind it).
  const shown = await page.evaluate(() => new Promise((ok) => {
    const out = [];
    const f = () => {
      out.push(window.waferlab.state().model.train.shown);
      if (out.length < 40) requestAnimationFrame(f);
      else ok(out);
    };
    f();
  }));
  const lit = new Set();
  for (const { canvas, panel, bar } of shown) {
    if (!canvas) continue;   // between jobs: nothing lit
    lit.add(canvas);
    assert.ok(bar >= 0 && bar <= 1, `a job runs: its bar at ${bar}`);
    assert.ok(panel === canvas || panel.startsWith(`${canvas}, `) || panel.endsWith(`, ${canvas}`), `the canvas lit '${canvas}', the panel said '${panel}'`);
  }
  assert.ok(lit.size >= 3, `40 frames lit ${[...lit].join('; ')}`);
  assert.ok(framesPerStep >= 3, `a step took ${framesPerStep} frames: frames go on while it runs`);
  assert.ok(['forward', 'backward', 'optimiser', null].includes(mid.phase), mid.phase);

  await until(page, () => window.waferlab.train_state().step >= 2);
  s = await state(page);
  await clickAt(page, centreOf(s.model.layout.train_pause));   // Pause
  await until(page, () => window.waferlab.train_state().status === 'paused');
  const t = await train(page);
  assert.equal(t.losses.length, t.step, 'a loss per step');
  assert.ok(t.step >= 2);
  for (const l of t.losses) assert.ok(Number.isFinite(l) && l > 0 && l < 10, `loss ${l}`);
  assert.equal(t.val_losses[0].step, 0, 'the validation loss before training');
  assert.ok(Number.isFinite(t.val_losses[0].loss));
  // Decreasing, or reported: the first steps of a fresh model fall below its starting loss.
  assert.ok(t.losses[t.losses.length - 1] < t.val_losses[0].loss + 0.1,
    `loss ${t.losses[t.losses.length - 1]} vs ${t.val_losses[0].loss} at the start`);
  assert.ok(t.steps_per_s > 0 && t.tokens_per_s > 0);
  assert.equal(t.corpus.name, 'stories');
  assert.ok((await state(page)).model.layout.train_corpus, 'the run\'s corpus, which the data line does not state');

  // Paused: frames go on, the step does not.
  await frames(page, 10);
  assert.equal((await train(page)).step, t.step);

  // The checkpoint downloads, in the reference's format (its envelope starts with the magic).
  s = await state(page);
  const [dl] = await Promise.all([page.waitForEvent('download'), clickAt(page, centreOf(s.model.layout.train_save))]);
  assert.match(dl.suggestedFilename(), /^gpt-nano-mesh-step\d+\.ckpt$/);
  const bytes = fs.readFileSync(await dl.path());
  assert.ok(bytes.length > 4 * 100000, `${bytes.length} bytes`);
});

test('a text file to train on: binary and empty ones are refused and the run is not lost', async () => {
  const { page } = app;
  const before = await train(page);
  const drop = (name, body) => page.evaluate(([n, b]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], n, { type: 'application/octet-stream' }));
    document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, Array.from(body)]);
  const said = (re) => page.waitForFunction((r) => window.waferlab.state().notices.some((n) => new RegExp(r).test(n)), re.source,
                                             { timeout: 20000, polling: 'raf' });
  await drop('photo.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 1, 2, 3]));
  await said(/^photo\.bin looks binary/);
  await drop('empty.txt', Buffer.alloc(0));
  await said(/^empty\.txt is empty: there is nothing to train on$/);
  let t = await train(page);
  assert.equal(t.status, before.status);
  assert.equal(t.step, before.step);
  assert.deepEqual(t.losses, before.losses);
  assert.equal(t.text, null);

  const text = 'the cat sat on the mat. the dog ran far away.\n'.repeat(40);
  await drop('cats.txt', Buffer.from(text));
  await until(page, () => window.waferlab.train_state().text !== null, null, 20000);
  t = await train(page);
  assert.deepEqual(t.text, { name: 'cats.txt', bytes: text.length, vocab: 18 });
  assert.equal(t.step, before.step, 'the run goes on as it was');

  // The next run trains on it; the JS hook drives it like a lesson would.
  t = await page.evaluate(() => window.waferlab.train_start({ steps: 1, eval_every: 1, sample_every: 1, sample_tokens: 8 }));
  assert.equal(t.status, 'starting');
  await until(page, () => window.waferlab.train_state().status !== 'starting');
  t = await train(page);
  assert.equal(t.corpus.name, 'cats.txt');
  assert.equal(t.corpus.vocab, 18);
  // The start succeeded: the refusals are stale, and went (a notice about anything else would stay).
  const notices = (await state(page)).notices;
  assert.ok(!notices.some((n) => /photo\.bin|empty\.txt/.test(n)), JSON.stringify(notices));
  await until(page, () => window.waferlab.train_state().status === 'done');
  t = await train(page);
  assert.equal(t.losses.length, 1);
  assert.ok(Number.isFinite(t.losses[0]));
  assert.equal(t.val_losses.length, 2);
  assert.equal(t.sample.step, 1);
});

// A small model (two layers, 16 tokens, two sequences a step, one evaluation batch) so each start
// and step takes a moment: one step streamed, then one step on one wafer and on two.
const small = { steps: 1, eval_every: 1, sample_every: 1, sample_tokens: 0, mesh: '32x32',
  set: 'model.n_layer=2,model.block_size=16,train_input.batch_size=2,runconfig.eval_steps=1' };
// Starts a run and waits for its end (done, failed, or a start that failed).
const runToEnd = (page, opts) => page.evaluate((o) => new Promise((ok, fail) => {
  const w = window.waferlab;
  try { w.train_start(o); } catch (e) { fail(e); return; }
  const f = () => {
    const t = w.train_state();
    if (t.status === 'done' || t.status === 'failed' || (t.status === 'idle' && t.error)) ok({ t });
    else requestAnimationFrame(f);
  };
  f();
}), opts);
const shot = async (page, name) => {
  await page.mouse.move(1, 1);   // no tooltip over it
  await frames(page, 2);
  const s = await state(page);
  const r = s.model.layout.train_execution, p = s.model.layout.train_plot;
  fs.mkdirSync(outDir, { recursive: true });
  const png = await page.screenshot({ clip: { x: Math.max(0, r.x - 8), y: r.y - 4, width: Math.max(r.w, p.x + p.w - r.x) + 16, height: p.y - r.y + 8 } });
  fs.writeFileSync(path.join(outDir, name), png);
  return s;
};

// What a step ran is asked of train_state().last.units (every kind of unit of the last step, kept
// whole), not of the progress line sampled once a frame: a frame runs many units, and a one-unit
// stream would be seen only by chance.
test('streamed weights: the step\'s time split into compute and streaming', async () => {
  const { page } = app;
  const { t } = await runToEnd(page, { ...small, execution: 'streaming', wafers: 1 });
  assert.equal(t.status, 'done', t.error);
  assert.equal(t.execution, 'streaming');
  assert.equal(t.wafers, 1);
  assert.ok(t.last.stream_cycles > 0 && t.last.stream_bytes > 0, JSON.stringify(t.last));
  assert.ok(t.last.stream_cycles < t.last.compute_cycles);
  assert.equal(t.last.cycles, t.last.compute_cycles, 'one wafer: no SwarmX time');
  for (const u of ['l0 forward, weights in', 'l1 forward, weights in', 'l0 backward, weights in again', 'l0 backward, activations back',
                   'l1 backward, gradients out', 'l0 backward, gradients out', 'optimiser'])
    assert.ok(t.last.units.includes(u), `${u} in ${JSON.stringify(t.last.units)}`);
  const s = await shot(page, 'train_streaming.png');
  assert.deepEqual(s.model.train.shown, { canvas: '', panel: 'between steps', bar: null }, 'done: no job, so no bar');
  assert.ok(s.model.layout.train_time, 'the time split is drawn');
  assert.ok(!s.model.layout.train_corpus, 'the run\'s corpus is the data line\'s cats.txt: stated once');
  assert.ok(s.model.layout.train_wafer_0, 'the wafer\'s panel');
});

test('two wafers: two panels side by side, the one-wafer loss, a batch that does not split refused', async () => {
  const { page } = app;
  const one = (await runToEnd(page, { ...small, execution: 'resident', wafers: 1 })).t;
  assert.equal(one.status, 'done', one.error);
  assert.deepEqual(one.last.units, ['backward', 'forward', 'optimiser']);
  const { t } = await runToEnd(page, { ...small, execution: 'resident', wafers: 2 });
  assert.equal(t.status, 'done', t.error);
  assert.equal(t.wafers, 2);
  assert.ok(Math.abs(t.losses[0] - one.losses[0]) <= 1e-5 * one.losses[0], `${t.losses[0]} vs ${one.losses[0]} on one wafer`);
  assert.equal(t.last.wafers, 2);
  assert.equal(t.last.shards.length, 2);
  for (const w of t.last.shards) assert.ok(w.cycles > 0 && w.pes_active > 0, JSON.stringify(w));
  assert.ok(t.last.swarmx_bytes > 0 && t.last.cycles === t.last.compute_cycles + t.last.swarmx_cycles);
  for (const u of ['wafer 1 of 2: forward', 'wafer 2 of 2: forward', 'wafer 2 of 2: backward',
                   'SwarmX: the 2 wafers\' gradients summed, the sum broadcast back', 'wafer 1 of 2: optimiser', 'wafer 2 of 2: optimiser'])
    assert.ok(t.last.units.includes(u), `${u} in ${JSON.stringify(t.last.units)}`);
  const s = await shot(page, 'train_wafers.png');
  const [a, b] = [s.model.layout.train_wafer_0, s.model.layout.train_wafer_1];
  assert.ok(a && b && !s.model.layout.train_wafer_2, 'two panels');
  assert.ok(b.x >= a.x + a.w && Math.abs(b.y - a.y) < 2, 'side by side');
  const refused = await page.evaluate((o) => { try { window.waferlab.train_start(o); return null; } catch (e) { return String(e.message || e); } },
    { ...small, wafers: 3 });
  assert.match(refused, /does not split over N = 3 wafers/);
  assert.equal((await train(page)).status, 'done', 'the run is as it was');
});
