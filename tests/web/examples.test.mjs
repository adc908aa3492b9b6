// Choosing an example from the menu opens it paused at cycle 0 with a hint that
// says how to start it, and Run then plays slowly enough to watch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());
const centre = (r) => [r.x + r.w / 2, r.y + r.h / 2];

test('an example chosen from the menu waits at cycle 0 and says how to start it', async () => {
  const { page } = app;
  await page.mouse.click(...centre((await state()).layout.menu_examples));
  await frames(page, 3);
  const item = (await state()).layout['example:gemv'];
  assert.ok(item, 'the Examples menu did not open');
  await page.mouse.click(...centre(item));
  await frames(page, 60);                    // a second at 60 fps: nothing has run by itself
  let s = await state();
  assert.equal(s.example, 'gemv');
  assert.equal(s.loaded, true);
  assert.equal(s.cycle, 0);
  assert.equal(s.running, false);
  assert.match(s.status, /press F5 \(Run\) or F10 \(Step\)/);

  // F5 plays at the default speed: a few seconds for gemv, not a blink.
  const cv = s.layout.canvas;
  await page.mouse.click(cv.x + cv.w - 30, cv.y + cv.h - 30);
  const t0 = Date.now();
  await page.keyboard.press('F5');
  await frames(page, 30);
  s = await state();
  const seconds = (Date.now() - t0) / 1000;
  assert.equal(s.speed, 20);
  assert.equal(s.running, true);
  assert.ok(s.cycle > 0 && s.cycle <= 20 * seconds + 1, `after ${seconds} s gemv is at cycle ${s.cycle}`);
  assert.equal(s.status, 'running');
});
