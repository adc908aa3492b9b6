// The Model window in the browser: gpt-nano compiled onto a 32x32 mesh, a forward pass
// checked logit by logit against the reference, greedy generation checked against the
// reference's tokens, the placement on the canvas (hover, click), and a mesh that is too small.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, state, peCentre, onPage, centreOf, clickAt, outDir } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const shot = async (page, name) => {
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, name), await page.locator('#canvas').screenshot());
};
const call = (page, fn, ...args) => page.evaluate(([fn, args]) => window.waferlab[fn](...args), [fn, args]);
const error = (page, fn, ...args) => page.evaluate(([fn, args]) => {
  try { window.waferlab[fn](...args); return 'no error'; } catch (e) { return e.message; }
}, [fn, args]);

test('View > Model and its Compile button put gpt-nano on the mesh', async () => {
  const { page } = app;
  await clickAt(page, centreOf((await state(page)).layout.menu_view));
  await frames(page, 2);
  await clickAt(page, centreOf((await state(page)).layout.menu_model));
  await frames(page, 3);
  let s = await state(page);
  assert.equal(s.model.open, true);
  assert.equal(s.model.compiled, false);
  assert.equal(s.model.config, 'gpt-nano');
  assert.equal(s.model.mesh, '32x32');
  assert.ok(s.layout.model, 'the Model window is not drawn');
  await clickAt(page, centreOf(s.model.layout.compile_button));
  await page.waitForFunction(() => window.waferlab.state().model.compiled, null, { timeout: 60000 });
  await frames(page, 3);
  s = await state(page);
  assert.equal(s.model.error, null);
  assert.equal(s.model.on_canvas, true);
  assert.deepEqual(s.mesh, { w: 32, h: 32 }, 'the canvas shows the model\'s mesh');
  assert.equal(s.canvas.legend[0].title, 'placement: PEs by op');
  for (const title of ['1. graph', '2. placement', '3. memory plan', '4. kernels', '5. schedule', '6. executable'])
    assert.ok(s.model.layout[`stage:${title}`], `no section ${title}`);
  await shot(page, 'model.png');
});

test('a forward on the mesh gives every logit of the reference, bit for bit', async () => {
  const { page } = app;
  const plan = await call(page, 'model_compile', 'gpt-nano', '32x32', { show: true });
  assert.deepEqual(plan.mesh, { w: 32, h: 32 });
  assert.ok(plan.ops.length >= 10, `${plan.ops.length} ops`);
  const stages = await call(page, 'model_stages');
  assert.deepEqual(stages.map((s) => s.title),
    ['1. graph', '2. placement', '3. memory plan', '4. kernels', '5. schedule', '6. executable']);
  assert.equal(stages[0].rows.length, plan.ops.length);
  const prompt = 'Once upon a time';
  const f = await call(page, 'model_forward', prompt);
  assert.equal(f.T, prompt.length);
  assert.equal(f.logits, f.T * plan.shape.vocab_size);
  assert.equal(f.logits_identical, f.logits, `only ${f.logits_identical} of ${f.logits} identical (max |diff| ${f.max_abs_diff})`);
  assert.equal(f.ops.length, plan.ops.length);
  for (const op of f.ops) assert.ok(op.cycles > 0, `${op.name}: ${op.cycles} cycles`);
  assert.equal(f.cycles, f.ops.reduce((a, o) => a + o.cycles, 0));
});

// The Model window scrolled (the wheel over it) until the part `at` of the way down control
// `name` is in view; its rectangle then.
const scrolledTo = async (page, name, at) => {
  let s = await state(page), r = s.model.layout[name];
  const win = s.model.layout.window;
  for (let i = 0; i < 30 && (r.y + r.h * at > win.y + win.h - 20 || r.y + r.h * at < win.y + 30); ++i) {
    await page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
    await page.mouse.wheel(0, r.y + r.h * at < win.y + 30 ? -120 : 120);
    await frames(page, 2);
    s = await state(page);
    r = s.model.layout[name];
  }
  return r;
};

test('a pipelined forward: its timeline, clicked, lights every op working at that cycle with its chunk', async () => {
  const { page } = app;
  const plan = await call(page, 'model_compile', 'gpt-nano', '32x32', { show: true });
  await call(page, 'model_window', { colour: 'op' });
  assert.equal((await state(page)).model.schedule, 'sequential', 'gpt-nano.yaml\'s wafer.schedule');
  await call(page, 'model_schedule', 'pipelined');
  const prompt = 'Once upon a time there was a little girl who lived in a village n';   // 64 characters
  const f = await call(page, 'model_forward', prompt);
  assert.equal(f.schedule, 'pipelined');
  assert.equal(f.logits_identical, f.logits);
  const stages = f.ops.length, chunks = Math.max(...f.timeline.map((l) => l.chunk)) + 1;
  assert.equal(chunks, 8);
  assert.equal(f.timeline.length, stages * chunks);
  assert.equal(Math.max(...f.timeline.map((l) => l.end)), f.cycles);
  await frames(page, 3);
  let s = await state(page);
  assert.ok(s.model.layout.timeline, 'the timeline is not drawn');
  assert.equal(s.model.timeline.cursor, null);
  assert.equal(s.canvas.legend[0].title, 'placement: PEs by op');
  // A real click 60% along the chart (right of the op names), scrolled into view: the cursor, and the canvas lit.
  const r = await scrolledTo(page, 'timeline', 0.4);
  await clickAt(page, { x: r.x + r.w * 0.6, y: r.y + r.h * 0.4 });
  await frames(page, 3);
  s = await state(page);
  const at = s.model.timeline.cursor;
  assert.ok(at > 0 && at < f.cycles, `cursor ${at}`);
  const working = f.timeline.filter((l) => l.start <= at && at < l.end);
  assert.ok(working.length >= 2, `${working.length} launches at cycle ${at}`);
  assert.deepEqual(s.model.timeline.working.map((w) => `${w.op}:${w.chunk}`), working.map((w) => `${w.op}:${w.chunk}`));
  assert.match(s.canvas.legend[0].title, /^cycle [\d,]+: the ops working, by chunk$/);
  assert.ok(s.canvas.tags.length >= 1, 'no chunk written over an op');
  for (const t of s.canvas.tags) assert.ok(working.some((w) => `c${w.chunk}` === t), `tag ${t} is no working launch's`);
  await shot(page, 'model-pipeline.png');
  // Play runs the cursor along; Clear gives the canvas back to the placement.
  await call(page, 'model_timeline', { cycle: 0, play: true, seconds: 3 });
  await frames(page, 6);
  s = await state(page);
  assert.ok(s.model.timeline.cursor > 0 && s.model.timeline.playing, JSON.stringify(s.model.timeline));
  await call(page, 'model_timeline', { clear: true });
  await frames(page, 2);
  s = await state(page);
  assert.equal(s.model.timeline.cursor, null);
  assert.equal(s.canvas.legend[0].title, 'placement: PEs by op');
  // Replay in cycle mode (its button): several ops at once on the canvas, wavelets moving, then the reference's logits.
  await clickAt(page, centreOf(await scrolledTo(page, 'replay_button', 0.5)));
  await frames(page, 2);   // the click is the next frame's
  await call(page, 'model_replay', { speed: 200000 });
  let most = 0, dots = 0;
  for (let i = 0; i < 60 && (most < 2 || dots === 0); i++) {
    await frames(page, 2);
    s = await state(page);
    most = Math.max(most, s.model.replay.working.length);
    dots = Math.max(dots, s.canvas.dots);
  }
  assert.ok(most >= 2, `at most ${most} ops worked at once in the replay`);
  await shot(page, 'model-replay.png');
  assert.match(s.canvas.legend[0].title, /^cycle mode, cycle [\d,]+: the ops working, by chunk$/);
  assert.ok(dots > 0, 'no wavelet drawn during the replay');
  // Its end (the reference's logits, bit for bit) is the ui suite's, natively and in WebAssembly
  // (ModelSession.APipelinedForwardReplaysInCycleModeWithTheSameLogits): gpt-nano's 700 k cycles
  // in cycle mode take minutes at a frame's budget.
  assert.equal(s.model.replay.error, null);
  assert.equal(await call(page, 'model_replay', { stop: true }), null);
  await frames(page, 2);
  assert.equal((await state(page)).model.replay, null);
  assert.match(await error(page, 'model_schedule', 'fastest'), /'schedule' is sequential or pipelined/);
  // A batch of 3: the sequences stream through, the timeline and the canvas coloured by sequence.
  const b3 = await call(page, 'model_forward', prompt, { batch: 3 });
  assert.equal(b3.B, 3);
  assert.equal(b3.logits_identical, b3.logits);
  assert.equal(b3.timeline.length, 3 * stages * chunks);
  const two = b3.timeline.find((l) => l.sequence === 1 && b3.timeline.some((m) => m.sequence === 0 && m.start <= l.start && l.start < m.end));
  assert.ok(two, 'no two sequences in flight at once');
  await call(page, 'model_timeline', { cycle: two.start });
  await frames(page, 3);
  s = await state(page);
  assert.match(s.canvas.legend[0].title, /by sequence$/);
  assert.ok(s.canvas.tags.some((t) => /^s1 c\d$/.test(t)), JSON.stringify(s.canvas.tags));
  assert.match(await error(page, 'model_replay', { start: true }), /the replay runs one sequence/);
  assert.match(await error(page, 'model_forward', prompt, { batch: 17 }), /'batch' expects an integer in 1\.\.16, got 17/);
  // Sequential: one launch per op, end to end, one op lit at a time.
  await call(page, 'model_schedule', 'sequential');
  const g = await call(page, 'model_forward', prompt, { batch: 1 });   // the batch of 3 above set the field
  assert.equal(g.schedule, 'sequential');
  assert.equal(g.timeline.length, stages);
  assert.ok(g.cycles > f.cycles * 2, `sequential ${g.cycles}, pipelined ${f.cycles}`);
  const one = await call(page, 'model_timeline', { cycle: g.timeline[5].start });
  assert.deepEqual(one.working.map((w) => w.op), [g.timeline[5].op]);
  assert.equal(plan.mesh.w, 32);
});

test('Forward and Generate run when clicked, and the sequences typed beside Forward make a batch', async () => {
  const { page } = app;
  await call(page, 'model_compile', 'gpt-nano', '32x32', { show: true });
  await call(page, 'model_schedule', 'sequential');
  await frames(page, 3);
  const stages = (await state(page)).model.timeline;   // this compile's: no forward yet
  assert.equal(stages, null);
  // 2 typed into the field (its left part; "seqs" is its label), Enter, then Forward.
  const field = await scrolledTo(page, 'batch', 0.5);
  await clickAt(page, { x: field.x + 8, y: field.y + field.h / 2 });
  await frames(page, 2);
  await page.keyboard.press('Control+a');
  await page.keyboard.type('2');
  await page.keyboard.press('Enter');
  await frames(page, 2);
  await clickAt(page, centreOf((await state(page)).model.layout.forward_button));
  await page.waitForFunction(() => window.waferlab.state().model.timeline !== null, null, { timeout: 60000 });
  let s = await state(page);
  assert.equal(s.model.error, null);
  const ops = (await call(page, 'model_stages'))[0].rows.length;
  assert.equal(s.model.timeline.launches, 2 * ops, 'two sequences, one launch an op each');
  assert.equal(s.model.timeline.schedule, 'sequential');
  // Generate, clicked: tokens come.
  const gen = await scrolledTo(page, 'generate_button', 0.5);
  await clickAt(page, centreOf(gen));
  await page.waitForFunction(() => window.waferlab.state().model.generation.made > 0, null, { timeout: 60000 });
  await call(page, 'model_stop');
  assert.equal((await call(page, 'model_forward', 'The cat', { batch: 1 })).B, 1);   // the field back to 1 for the tests after
});

test('20 greedy tokens on the mesh are the reference\'s, and the same each time', async () => {
  const { page } = app;
  const options = { prompt: 'Once upon a time', tokens: 20, temperature: 0, check: true };
  const frame0 = (await state(page)).frame;
  const g1 = await call(page, 'model_generate', options);
  const frame1 = (await state(page)).frame;
  assert.equal(g1.made, 20);
  assert.equal(g1.error, null);
  assert.equal(g1.matches_reference, true, `mesh "${g1.text}" vs reference "${g1.reference_text}"`);
  assert.equal(g1.text, g1.reference_text);
  assert.ok(g1.text.length > 0);
  assert.ok(g1.cycles_per_token > 0 && g1.tokens_per_s > 0, JSON.stringify(g1));
  assert.ok(frame1 > frame0, 'no frame was drawn while generating');
  const g2 = await call(page, 'model_generate', options);
  assert.equal(g2.text, g1.text);
  assert.equal((await state(page)).model.generation.made, 20);
});

test('a mesh too small for the model is a clear error, and the app keeps working', async () => {
  const { page } = app;
  const plan = await call(page, 'model_compile', 'gpt-nano', '32x32');
  assert.equal(plan.mesh.w, 32);
  const msg = await error(page, 'model_compile', 'gpt-nano', '2x2');
  assert.match(msg, /^model_compile: .*(mesh|bytes)/, msg);
  let s = await state(page);
  // A failed compile loses nothing: the last one that worked stays loaded, and says so.
  assert.equal(s.model.compiled, true);
  assert.equal(s.model.compiled_mesh, '32x32');
  assert.equal(s.model.error, msg.replace(/^model_compile: /, ''));
  assert.match(await error(page, 'model_compile', 'gpt-nano', 'big'), /'mesh' expects WxH/);
  const f = await call(page, 'model_forward', 'The cat');
  assert.equal(f.logits_identical, f.logits);
  s = await state(page);
  assert.equal(s.model.error, null);
  assert.equal(s.model.compiled_mesh, '32x32');
});

test('on the canvas: hovering a PE names its op, a click shows its SRAM map, Open kernel edits its source', async () => {
  const { page } = app;
  const plan = await call(page, 'model_compile', 'gpt-nano', '32x32', { show: true });
  await call(page, 'model_window', { colour: 'layer' });
  await frames(page, 4);   // the canvas fits the model's mesh into what the windows leave
  let s = await state(page);
  assert.equal(s.canvas.legend[0].title, 'placement: PEs by layer');
  // A PE of an attention op whose centre no window covers.
  const covered = (p) => ['model', 'editor', 'log', 'inspector', 'help'].some((w) => {
    const r = s.layout[w];
    return r && p.x >= r.x && p.x < r.x + r.w && p.y >= r.y && p.y < r.y + r.h;
  });
  let pick = null;
  for (const op of plan.ops.filter((o) => o.kernel === 'attention.wk'))
    for (let x = op.rect.x; x < op.rect.x + op.rect.w && !pick; x++)
      if (!covered(peCentre(s, x, op.rect.y))) pick = { op, x, y: op.rect.y };
  assert.ok(pick, 'every attention PE is under a window');
  const at = await onPage(page, peCentre(s, pick.x, pick.y));
  await page.mouse.move(at.x, at.y);
  await frames(page, 3);
  s = await state(page);
  assert.deepEqual(s.model.hovered, { x: pick.x, y: pick.y, op: pick.op.name });
  await page.mouse.click(at.x, at.y);
  await frames(page, 3);
  s = await state(page);
  assert.deepEqual(s.model.selected, { x: pick.x, y: pick.y, op: pick.op.name });
  assert.equal(s.layout.inspector, undefined, 'the kernel\'s PE inspector opened over the model');
  const pe = await call(page, 'model_pe', pick.x, pick.y);
  assert.equal(pe.kernel, 'attention.wk');
  assert.ok(pe.sram.length >= 3, JSON.stringify(pe.sram));
  for (let i = 1; i < pe.sram.length; i++) assert.ok(pe.sram[i].offset >= pe.sram[i - 1].offset + pe.sram[i - 1].bytes);
  assert.ok(s.model.layout.pe_open_kernel, 'no Open kernel button for the selected PE');
  await clickAt(page, centreOf(s.model.layout.pe_open_kernel));
  await frames(page, 3);
  s = await state(page);
  assert.equal(s.editor.file, 'attention.wk');
  assert.equal(s.editor.open, true);
  const src = await call(page, 'get_source');
  assert.match(src.text, /attention/);
  // Closing the window gives the canvas back to the kernel.
  await call(page, 'model_window', { open: false });
  await frames(page, 3);
  s = await state(page);
  assert.equal(s.model.on_canvas, false);
  assert.notEqual(s.canvas.legend[0]?.title, 'placement: PEs by layer');
});

test('an op animated in cycle mode moves wavelets on the canvas and ends with the fast run\'s output', async () => {
  const { page } = app;
  await call(page, 'editor', false);   // room for the mesh (fitted at the compile): PEs big enough for wavelet dots
  await frames(page, 2);
  await call(page, 'model_compile', 'gpt-nano', '32x32', { show: true });
  await call(page, 'model_forward', 'Once');
  await call(page, 'canvas', { wavelets: true });
  let a = await call(page, 'model_animate', { op: 'l0.qkv', speed: 200 });
  assert.equal(a.op, 'l0.qkv');
  assert.equal(a.done, false);
  // Wavelet dots in flight on the canvas, a frame or two after the first hops.
  await frames(page, 3);
  assert.notEqual((await state(page)).canvas.detail, 'heatmap');
  await page.waitForFunction(() => window.waferlab.state().canvas.dots > 0, null, { timeout: 40000 });
  await shot(page, 'model_animation.png');
  let s = await state(page);
  assert.ok(s.model.animation.cycles > 0);
  assert.equal(s.model.animation.done, false);
  a = await call(page, 'model_animate', { to_end: true });
  await page.waitForFunction(() => window.waferlab.state().model.animation.done, null, { timeout: 60000 });
  s = await state(page);
  assert.equal(s.model.animation.error, null);
  assert.equal(s.model.animation.matches_fast, true);
  assert.match(await error(page, 'model_animate', { op: 'nope' }), /no op named 'nope'/);
  await call(page, 'model_animate', { stop: true });
  assert.equal((await state(page)).model.animation, null);
});

test('weight streaming: one layer on the mesh, each layer\'s weights in over the edge links, replayed on the canvas', async () => {
  const { page } = app;
  const plan = await call(page, 'model_compile', 'gpt-nano', '32x32', { execution: 'streaming', show: true });
  assert.equal(plan.execution, 'streaming');
  assert.equal(plan.ops.filter((o) => o.layer > 0).length, 0, 'one layer of ops serves the three');
  const f = await call(page, 'model_forward', 'Once');
  assert.equal(f.logits_identical, f.logits, 'the reference\'s logits, bit for bit');
  const streams = f.ops.filter((o) => o.op === 'weight_stream');
  assert.deepEqual(streams.map((o) => o.name), ['l0.weights', 'l1.weights', 'l2.weights']);
  assert.ok(streams.every((o) => o.stream_bytes > 0 && o.cycles > 0));
  assert.match(await error(page, 'model_animate', { op: 'l0.qkv' }), /holds layer 2's weights/);
  await call(page, 'canvas', { wavelets: true });
  await call(page, 'model_animate', { op: 'l2.weights', speed: 100000 });
  await page.waitForFunction(() => window.waferlab.state().canvas.dots > 0, null, { timeout: 40000 });
  await shot(page, 'model_weight_stream.png');
  await call(page, 'model_animate', { to_end: true });
  await page.waitForFunction(() => window.waferlab.state().model.animation.done, null, { timeout: 120000 });
  const a = (await state(page)).model.animation;
  assert.equal(a.error, null);
  assert.equal(a.matches_fast, true, 'every load_w kept the weights the fast run did');
  await call(page, 'model_animate', { stop: true });
  await call(page, 'model_compile', 'gpt-nano', '32x32', { execution: 'resident' });   // as the other tests expect
});
