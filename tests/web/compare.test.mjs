// Wafer vs GPU explains itself: its bars have a labelled time axis, and every
// term (launch-bound, roofline, batch (0: config), ...) has hover help.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

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
