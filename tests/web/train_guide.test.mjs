// The Train section's guide as a student reads it while gpt-nano trains: it names, in words, the
// op the canvas lights and train_state() runs, says why that row runs alone, where the loss starts
// (ln of the run's vocabulary), and explains each of its terms on hover.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, state, centreOf, clickAt, onPage, outDir } from './browser.mjs';

let app;
before(async () => { app = await openApp('', { width: 1366, height: 900 }); });
after(async () => { await app?.close(); });

const until = (page, fn, arg, timeout = 180000) => page.waitForFunction(fn, arg, { timeout, polling: 'raf' });

test('the guide names the running op in words, why it runs alone, the loss to expect, and its terms', async () => {
  const { page } = app;
  await page.evaluate(() => window.waferlab.model_window({ open: true }));
  await frames(page, 3);
  await clickAt(page, centreOf((await state(page)).model.layout.train_start));
  await until(page, () => window.waferlab.train_state().status === 'running' && window.waferlab.train_state().op);
  await frames(page, 2);

  // Frame by frame: what the guide drew, what the canvas lit in the same frame, and what
  // train_state() said runs next once that frame's work was done (the next frame draws it).
  const seen = await page.evaluate(() => new Promise((ok) => {
    const out = [];
    const f = () => {
      const w = window.waferlab, s = w.state();
      out.push({ frame: s.frame, guide: s.model.train.guide, canvas: s.model.train.shown.canvas, next: w.train_state() });
      if (out.length < 40) requestAnimationFrame(f);
      else ok(out);
    };
    f();
  }));
  let paired = 0;
  const ops = new Set();
  for (let i = 0; i < seen.length; i++) {
    const { guide, canvas } = seen[i];
    assert.ok(guide, 'the guide is drawn while the run goes on');
    assert.equal(guide.op ? `${guide.phase} ${guide.op}` : '', canvas, 'the guide describes the op the canvas lit');
    if (!guide.op) continue;
    ops.add(guide.op);
    assert.ok(guide.now.startsWith(`${guide.phase} ${guide.op}: `), guide.now);
    assert.ok(guide.now.length > guide.op.length + guide.phase.length + 20, `in words: ${guide.now}`);
    if (guide.phase !== 'optimiser') assert.match(guide.row, /^The lit (row|PEs): \d+/);
    assert.match(guide.why, guide.phase === 'optimiser' ? /update their own weights/ : /one op runs at a time/);
    const prev = seen[i - 1];
    if (prev && seen[i].frame === prev.frame + 1 && prev.next.op) {
      assert.equal(`${guide.phase} ${guide.op}`, `${prev.next.phase} ${prev.next.op}`, 'the op train_state() said runs next is the one the guide names');
      paired++;
    }
  }
  assert.ok(paired >= 10, `${paired} frames paired with train_state()`);
  assert.ok(ops.size >= 3, `the guide followed the run: ${[...ops].join(', ')}`);

  // The loss's start: ln of this run's vocabulary.
  const t = await page.evaluate(() => window.waferlab.train_state());
  const s = await state(page);
  const V = t.corpus.vocab;
  assert.ok(s.model.train.guide.loss.includes(`ln ${V} = ${Math.log(V).toFixed(2)}`), s.model.train.guide.loss);

  // Each term explains itself under the mouse.
  for (const term of ['grad norm', 'TRAIN = 1', 'emulator alone']) {
    const r = (await state(page)).model.layout[`term:${term}`];
    assert.ok(r, `${term} is on screen`);
    const p = await onPage(page, centreOf(r));
    await page.mouse.move(p.x, p.y);
    await until(page, (want) => window.waferlab.state().model.train.guide?.hovered_term === want, term, 20000);
  }
  await page.evaluate(() => window.waferlab.train_pause());
});

// Under wafer.schedule: pipelined a step's forward, loss and backward run as one pipeline over
// chunks: while a backward unit runs, the canvas lights every launch working beside it, each
// tagged with its chunk (a backward's "c3 back"), and the guide says why several rows are lit.
test('a pipelined step lights every op working, the backward\'s tagged, and the guide says why', async () => {
  const { page } = app;
  await page.evaluate(() => window.waferlab.model_window({ open: true }));
  await page.evaluate(() => window.waferlab.train_start({ steps: 2, eval_every: 100, sample_every: 100, set: 'wafer.schedule=pipelined,train_input.batch_size=1' }));
  const seen = await page.evaluate(() => new Promise((ok, fail) => {
    const t0 = performance.now();
    const f = () => {
      const s = window.waferlab.state();
      const canvas = s.model.train.shown.canvas, tags = s.canvas.tags || [];
      if (/^backward \S+ chunk \d+$/.test(canvas) && tags.some((t) => / back$/.test(t)) && tags.length > 1)
        return ok({ canvas, tags, guide: s.model.train.guide });
      if (performance.now() - t0 > 170000) return fail(new Error(`no pipelined backward unit drawn: ${canvas}`));
      requestAnimationFrame(f);
    };
    f();
  }));
  assert.match(seen.guide.now, /^backward \S+, chunk \d+: the gradient flowing back through/, seen.guide.now);
  assert.match(seen.guide.why, /pipelined/);
  assert.ok(seen.guide.why.includes('ops are lit now'), seen.guide.why);
  assert.ok(seen.tags.every((t) => /^c\d+( back)?$/.test(t)), seen.tags.join(', '));
  fs.mkdirSync(outDir, { recursive: true });   // the picture: the step goes on (a pause waits for its end)
  fs.writeFileSync(path.join(outDir, 'train-pipelined.png'), await page.locator('#canvas').screenshot());
  await page.evaluate(() => window.waferlab.train_pause());
});
