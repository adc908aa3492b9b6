// The canvas's legend is where it can be read: beside a lesson's editor, panel and log (not under
// them), so the colours a lesson's run paints on its PEs are explained on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state, imageStats } from './browser.mjs';

const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test('a lesson\'s run: the legend sits in the free part of the canvas, under no window', async () => {
  const app = await openApp('?lesson=5', { width: 1366, height: 768 });
  const { page } = app;
  try {
    await frames(page, 3);
    await page.keyboard.press('F6');   // the starter runs (to its deadlock): its PEs are coloured by how busy they were
    await page.waitForFunction(() => !window.waferlab.state().running && window.waferlab.state().cycle > 0, null, { timeout: 30000 });
    await frames(page, 3);
    const s = await state(page);
    assert.match(s.canvas.legend[0].title, /^busy/);
    const L = s.canvas.legend_rect, free = s.layout.free_area;
    assert.ok(L.w > 0 && L.h > 0, 'a legend is drawn');
    for (const name of ['editor', 'lessons', 'log']) {
      assert.ok(s.layout[name], `${name} is open`);
      assert.ok(!overlap(L, s.layout[name]), `the ${name} window ${JSON.stringify(s.layout[name])} covers the legend ${JSON.stringify(L)}`);
    }
    assert.ok(L.x >= free.x && L.x + L.w <= free.x + free.w && L.y + L.h <= free.y + free.h, `the legend ${JSON.stringify(L)} is in the free area ${JSON.stringify(free)}`);
    // Drawn, not just placed: its title and ramp are on screen.
    const shot = await page.screenshot({ clip: { x: L.x, y: L.y, width: L.w, height: L.h } });
    assert.ok((await imageStats(page, shot)).distinct > 20, 'the legend shows its title and its colour ramp');
  } finally {
    await app.close();
  }
});
