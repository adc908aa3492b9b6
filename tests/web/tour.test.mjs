// The tour, taken with the mouse: its card is never dimmed by its own spotlight,
// and one stop runs the kernel and lights up a wavelet actually moving.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, imageStats } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());
const centre = (r) => [r.x + r.w / 2, r.y + r.h / 2];
const TITLE = [255, 204, 102];   // the card's title colour (1.0, 0.8, 0.4)

test('every stop of the tour is readable, and one shows a wavelet on its way', async () => {
  const { page } = app;
  await page.mouse.click(...centre((await state()).layout.menu_help));
  await frames(page, 2);
  await page.mouse.click(...centre((await state()).layout.menu_tour));
  await frames(page, 3);
  let s = await state();
  assert.equal(s.help.tour_step, 0);
  assert.equal(s.example, 'hello');
  let sawWavelet = false;
  for (let step = 0; step < 5; ++step) {
    await frames(page, 3);
    s = await state();
    // A card that sits above its part is placed by its height, which Dear ImGui learns a frame
    // after the text changes: read it once it stays put.
    for (let prev = null; JSON.stringify(prev) !== JSON.stringify(s.layout.tour);) {
      prev = s.layout.tour;
      await frames(page, 1);
      s = await state();
    }
    assert.equal(s.help.tour_step, step);
    // The card's title is drawn at full brightness: no shade over it.
    const card = s.layout.tour;
    const shot = await page.screenshot({ clip: { x: card.x, y: card.y, width: card.w, height: Math.min(card.h, 40) } });
    assert.ok((await imageStats(page, shot, { rgb: TITLE, tol: 20 })).matching > 20, `the card of stop ${step + 1} is dimmed`);
    if (step === 3) {
      // The dataflow stop: the kernel runs, and the spotlight is on a dot in flight.
      await page.waitForFunction(() => {
        const st = window.waferlab.state(), d = st.canvas.dot, spot = st.help.spot;
        return st.running && d && spot && spot.w > 0 && d.x >= spot.x && d.x <= spot.x + spot.w && d.y >= spot.y && d.y <= spot.y + spot.h;
      }, null, { timeout: 20000, polling: 'raf' });
      sawWavelet = true;
    }
    await page.mouse.click(...centre(s.help.next));
  }
  await frames(page, 2);
  assert.equal((await state()).help.tour_step, null);
  assert.ok(sawWavelet);
});
