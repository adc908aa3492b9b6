// Wafer vs GPU is about what is loaded: with a kernel loaded it compares that
// kernel's measured run (its cycles at the WSE clock) with the same FLOPs and
// bytes on the GPU model, and says "run the kernel to compare" until it has run.
// The GPT step stays as a second tab. Its bars have labelled time axes, and
// every term (launch-bound, roofline, batch (0: config), ...) has hover help.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, focusCanvas } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());
const centre = (r) => [r.x + r.w / 2, r.y + r.h / 2];

test('the Wafer vs GPU window labels its axis and explains its words on hover', async () => {
  const { page } = app;
  await page.mouse.click(...centre((await state()).layout.menu_view));
  await frames(page, 2);
  await page.mouse.click(...centre((await state()).layout.menu_compare));
  await frames(page, 4);
  let s = await state();
  assert.ok(s.layout.compare, 'the window did not open');
  if (s.compare_window.view !== 'gpt') {   // a kernel restored at start opens on its own view
    await page.mouse.click(...centre(s.compare_window.terms['GPT step']));
    await frames(page, 4);
    s = await state();
  }
  assert.equal(s.compare_window.view, 'gpt');
  assert.ok(s.compare_window.axis_ticks >= 3, `${s.compare_window.axis_ticks} tick labels on the time axis`);
  for (const term of ['launch-bound', 'roofline', 'batch (0: config)', 'profile']) {
    let r = s.compare_window.terms[term];
    assert.ok(r, `${term} is not in the window`);
    const win = s.layout.compare;
    for (let i = 0; i < 20 && (r.y + r.h > win.y + win.h - 20 || r.y < win.y + 30); ++i) {   // out of view: scroll to it
      await page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
      await page.mouse.wheel(0, r.y < win.y + 30 ? -120 : 120);
      await frames(page, 2);
      r = (await state()).compare_window.terms[term];
    }
    await page.mouse.move(r.x + Math.min(r.w / 2, 10), r.y + r.h / 2);
    await frames(page, 3);
    s = await state();
    assert.equal(s.compare_window.term, term, `no help on hovering ${term}`);
  }
});

test('in inference mode the window measures the forward on the mesh and says it is fast mode', async () => {
  const { page } = app;
  const out = await page.evaluate(() => window.waferlab.compare('gpt-nano', 'a100', { mode: 'infer', mesh: '32x32', show: true }));
  assert.equal(out.emulated.ran, true, out.emulated.why_not);
  assert.deepEqual(out.emulated.mesh, { w: 32, h: 32 });
  assert.ok(out.emulated.cycles > 0);
  await frames(page, 4);
  let s = await state();
  let r = s.compare_window.terms.emulated;
  assert.ok(r, 'no emulated line in the window');
  assert.ok(s.compare_window.terms.mesh, 'no mesh picker in inference mode');
  await page.mouse.move(r.x + Math.min(r.w / 2, 10), r.y + r.h / 2);
  await frames(page, 3);
  s = await state();
  assert.equal(s.compare_window.term, 'emulated');
  // A mesh the model does not fit says why, in the window, instead of a number.
  const small = await page.evaluate(() => window.waferlab.compare('gpt-nano', 'a100', { mode: 'infer', mesh: '4x4', show: true }));
  assert.equal(small.emulated.ran, false);
  assert.match(small.emulated.why_not, /mesh|bytes/);
});

test('with gemv loaded and run, the window compares that kernel, and the GPT step is a second tab', async () => {
  const { page } = app;
  // Load gemv as a student does: Examples > gemv.
  await page.mouse.click(...centre((await state()).layout.menu_examples));
  await frames(page, 3);
  await page.mouse.click(...centre((await state()).layout['example:gemv']));
  await frames(page, 4);
  let s = await state();
  assert.equal(s.example, 'gemv');
  assert.equal(s.cycle, 0);
  // Open Wafer vs GPU (it may still be open from the test above: View > Wafer vs GPU toggles it).
  if (!s.layout.compare) {
    await page.mouse.click(...centre(s.layout.menu_view));
    await frames(page, 2);
    await page.mouse.click(...centre((await state()).layout.menu_compare));
    await frames(page, 4);
    s = await state();
  }
  assert.equal(s.compare_window.view, 'kernel', 'a newly loaded kernel brings its view forward');
  assert.equal(s.compare_window.kernel.name, 'gemv.wk');
  assert.equal(s.compare_window.kernel.status, 'not run', 'nothing to compare before the run');
  assert.equal(s.compare_window.kernel.comparison, undefined);

  // Run it to the end with F6, as the hint says.
  await focusCanvas(page);
  await page.keyboard.press('F6');
  await page.waitForFunction(() => window.waferlab.state().done, null, { timeout: 60000 });
  await frames(page, 4);
  s = await state();
  const k = s.compare_window.kernel;
  assert.equal(k.status, 'compared');
  const c = k.comparison;
  assert.equal(c.cycles, s.cycle, 'the comparison is of the run just made');
  assert.equal(c.estimated, false);
  assert.equal(c.flops, 280, 'gemv: 8 x 16 fmacs (2 FLOPs each) and 24 fadds');
  assert.equal(c.bytes, 4 * (8 * 16 + 16 + 8), 'A and x filled in, y printed out');
  assert.ok(Math.abs(c.wafer_s - c.cycles / c.clock_hz) < 1e-15);
  assert.equal(c.gpu.bound, 'launch');
  assert.ok(c.gpu.time_s > c.wafer_s);
  assert.ok(s.compare_window.axis_ticks >= 3, `${s.compare_window.axis_ticks} tick labels on the kernel's time axis`);
  for (const term of ['cycles', 'WSE clock', 'FLOPs', 'bytes in and out', 'launch-bound', 'roofline', 'launch overhead'])
    assert.ok(s.compare_window.terms[term], `${term} is not explained in the kernel view`);
  // Bring the window to the front, as a student would: loading gemv raised its editor over it.
  const win = s.layout.compare;
  await page.mouse.click(win.x + win.w / 2, win.y + 10);
  await frames(page, 3);
  let r = (await state()).compare_window.terms.FLOPs;
  for (let i = 0; i < 20 && (r.y + r.h > win.y + win.h - 20 || r.y < win.y + 30); ++i) {   // out of view: scroll to it
    await page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
    await page.mouse.wheel(0, r.y < win.y + 30 ? -120 : 120);
    await frames(page, 2);
    r = (await state()).compare_window.terms.FLOPs;
  }
  await page.mouse.move(r.x + Math.min(r.w / 2, 10), r.y + r.h / 2);
  await frames(page, 3);
  assert.equal((await state()).compare_window.term, 'FLOPs');

  // The GPT comparison is still there, one click away.
  await page.mouse.click(...centre((await state()).compare_window.terms['GPT step']));
  await frames(page, 4);
  s = await state();
  assert.equal(s.compare_window.view, 'gpt');
  assert.ok(s.compare_window.terms['batch (0: config)'], 'the GPT view has its settings');
  assert.ok(s.compare_window.axis_ticks >= 3);
});
