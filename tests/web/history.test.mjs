// Scrubbing the cycle slider moves through history and never destroys it: the
// student's drag from cycle 96 to 48, to 0 and back to 24, with a real mouse.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, imageStats } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=gemv&run=96'); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());
const GRAB = [61, 133, 224];   // Dear ImGui's dark style: SliderGrab

// The slider's screen x for a cycle: the grab travels the frame less its padding and half a grab.
function xFor(slider, extent, cycle) {
  const pad = 2 + 5;   // grab_padding + half of GrabMinSize (imgui_widgets.cpp, SliderBehaviorT)
  return slider.x + pad + (slider.w - 2 * pad) * (cycle / extent);
}

test('dragging the cycle slider back and forth keeps every cycle reached', async () => {
  const { page } = app;
  let s = await page.evaluate(() => window.waferlab.whenStopped());
  assert.equal(s.cycle, 96);
  assert.deepEqual(s.extent, { cycle: 96, end: false });
  const sl = s.layout.cycle_slider;
  const y = sl.y + sl.h / 2;

  await page.mouse.move(xFor(sl, 96, 96), y);
  await page.mouse.down();
  for (const c of [48, 0, 24]) {
    await page.mouse.move(xFor(sl, 96, c), y, { steps: 6 });
    await frames(page, 2);
    s = await state();
    assert.equal(s.extent.cycle, 96, `the slider's range shrank while dragging to ${c}`);
    assert.equal(s.layout.cycle_slider.w, sl.w);
  }
  await page.mouse.up();
  s = await page.evaluate(() => window.waferlab.whenStopped());
  assert.ok(Math.abs(s.cycle - 24) <= 2, `released near 24 but sat at ${s.cycle}`);
  assert.equal(s.extent.cycle, 96);

  // Dragging to the right end comes back to 96 without running anything new.
  await page.mouse.move(xFor(sl, 96, s.cycle), y);
  await page.mouse.down();
  await page.mouse.move(sl.x + sl.w + 20, y, { steps: 6 });
  await page.mouse.up();
  s = await page.evaluate(() => window.waferlab.whenStopped());
  assert.equal(s.cycle, 96);
  assert.equal(s.extent.cycle, 96);
});

test('after Reset the slider sits at cycle 0 with the whole extent still there', async () => {
  const { page } = app;
  const cv = (await state()).layout.canvas;
  await page.mouse.click(cv.x + cv.w - 40, cv.y + cv.h - 40);
  await page.keyboard.press('Shift+F5');
  const s = await page.evaluate(() => window.waferlab.whenStopped());
  assert.equal(s.cycle, 0);
  assert.equal(s.extent.cycle, 96);
  await frames(page);
  // The grab is a small block at the left end, not half the bar.
  const sl = s.layout.cycle_slider;
  const left = await imageStats(page, await page.screenshot({ clip: { x: sl.x, y: sl.y, width: sl.w * 0.1, height: sl.h } }), { rgb: GRAB, tol: 40 });
  const rest = await imageStats(page, await page.screenshot({ clip: { x: sl.x + sl.w * 0.1, y: sl.y, width: sl.w * 0.9, height: sl.h } }), { rgb: GRAB, tol: 40 });
  assert.ok(left.matching > 10, 'no grab at the left end');
  assert.equal(rest.matching, 0, 'the grab reaches past the left tenth of the slider');
});

test('a new build of the kernel starts a new history', async () => {
  const { page } = app;
  const s = await page.evaluate(() => window.waferlab.load_example('hello', true));
  assert.deepEqual(s.extent, { cycle: 0, end: false });
});
