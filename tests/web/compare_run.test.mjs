// Wafer vs GPU describes the run on screen: after a few steps of gpt-nano on the Model window's
// mesh, its GPT step tab names that mesh, that run's vocabulary and batch and its measured step,
// and says in a sentence how the mesh's step relates to a full wafer's; unticking "the run on
// screen" goes back to the tab's own pickers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state, centreOf, clickAt } from './browser.mjs';

let app;
before(async () => { app = await openApp('', { width: 1366, height: 900 }); });
after(async () => { await app?.close(); });

const until = (page, fn, arg, timeout = 240000) => page.waitForFunction(fn, arg, { timeout, polling: 'raf' });

async function press(page, rect) {
  assert.ok(rect, 'the control is on screen');
  await clickAt(page, centreOf(rect));
  await frames(page, 3);
  return state(page);
}

test('the GPT step tab names the training run\'s mesh, vocabulary, batch and measured step', async () => {
  const { page } = app;
  await page.evaluate(() => window.waferlab.model_window({ open: true }));
  await frames(page, 3);
  await press(page, (await state(page)).model.layout.train_start);
  await until(page, () => window.waferlab.train_state().step >= 1);
  await page.evaluate(() => window.waferlab.train_pause());
  await until(page, () => window.waferlab.train_state().status === 'paused');
  const t = await page.evaluate(() => window.waferlab.train_state());

  // View > Wafer vs GPU, then its GPT step tab, with the mouse.
  await press(page, (await state(page)).layout.menu_view);
  let s = await press(page, (await state(page)).layout.menu_compare);
  assert.ok(s.layout.compare, 'the window opened');
  if (s.compare_window.view !== 'gpt') s = await press(page, s.compare_window.terms['GPT step']);
  assert.equal(s.compare_window.view, 'gpt');
  const g = s.compare_window.gpt;
  assert.equal(g.follows_run, true);
  assert.equal(g.config, 'gpt-nano');
  assert.equal(g.mesh, t.mesh, 'the mesh the Model window trains on');
  assert.equal(s.model.mesh, t.mesh);
  assert.equal(g.vocab, t.corpus.vocab, 'the run\'s vocabulary');
  assert.equal(g.vocab_assumed, false);
  assert.equal(g.training, true);
  assert.equal(g.execution, t.execution);
  const cycles = t.last.cycles;
  assert.ok(cycles > 0, JSON.stringify(t.last));
  assert.ok(Math.abs(g.measured_s - cycles / 1.1e9) < 1e-9, `${g.measured_s} s measured against ${cycles} cycles`);
  const [w, h] = t.mesh.split('x').map(Number);
  assert.ok(g.sentence.startsWith(`The emulated ${w} x ${h} mesh (${(w * h).toLocaleString('en-US')} PEs) measured `), g.sentence);
  assert.match(g.sentence, /the estimate for the same step on a full WSE-2 \(753,972 PEs\) is/);
  assert.ok(s.compare_window.terms['the run on screen'] && s.compare_window.terms.measured, 'both new terms explain themselves');

  // Unticked: the tab's own model and settings again.
  s = await press(page, s.compare_window.terms['the run on screen']);
  assert.equal(s.compare_window.gpt.follows_run, false);
  assert.equal(s.compare_window.gpt.measured_s, null);
  assert.match(s.compare_window.gpt.sentence, /is estimated at/);
});
