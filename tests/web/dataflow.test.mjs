// The dataflow picture reads: wavelets move on the links they use (not beside
// them), the activity window is short enough to show a wave passing, and every
// colour is named as the kernel names it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, pixelsNear } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=gemv'); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

test('wavelets travel on the links, in colours named as the kernel names them', async () => {
  const { page } = app;
  let s = await state();
  const cv = s.layout.canvas;
  await page.mouse.click(cv.x + cv.w / 2, cv.y + cv.h - 20);   // keys to the app, not the editor
  // Slow hops (2 s each), so the dots are mid-link when the picture is taken.
  await page.evaluate(() => window.waferlab.canvas({ anim_speed: 2 }));
  // Step (F10) until the first wavelets move: x leaving the top row down its columns.
  const moving = (st) => st.canvas.legend.some((l) => l.title === 'wavelets by colour');
  for (let i = 0; i < 40 && !moving(s); ++i) {
    await page.keyboard.press('F10');
    await frames(page);   // the key reaches the app in a frame: only then is there a step to wait for
    await page.evaluate(() => window.waferlab.whenStopped());
    await frames(page, 3);
    s = await state();
  }
  assert.ok(moving(s), `nothing moved by cycle ${s.cycle}`);
  const waves = s.canvas.legend.find((l) => l.title === 'wavelets by colour');
  const names = waves.swatches.map((w) => w.label);
  for (const n of names) assert.ok(['xdown', 'ea', 'eb'].includes(n), `a colour goes by '${n}', not its kernel name`);
  const xdown = waves.swatches.find((w) => w.label === 'xdown');
  assert.ok(xdown, `xdown is not moving: ${names}`);
  // Every xdown pixel on the mesh lies on a link's centre line (or at a router). Look mid-hop,
  // a cycle at a time, until a hop along a link (not only down a ramp) has been seen.
  let onLinks = 0;
  for (let i = 0; i < 8 && onLinks <= 20; ++i) {
    await page.keyboard.press('F10');
    await page.waitForFunction(() => { const c = window.waferlab.state().canvas; return c.dots > 0 && c.anim_phase > 0.3 && c.anim_phase < 0.6; },
      null, { timeout: 8000, polling: 'raf' }).catch(() => {});   // a ramp-only cycle: try the next
    s = await state();
    const m = s.canvas.mesh_rect, W = s.mesh.w, H = s.mesh.h;
    const clip = { x: m.x, y: m.y, width: m.cell * W, height: m.cell * H };
    const pts = await pixelsNear(page, await page.screenshot({ clip }), xdown.rgb);
    const L = s.canvas.legend_rect;
    const inLegend = ([x, y]) => x + m.x >= L.x && x + m.x <= L.x + L.w && y + m.y >= L.y && y + m.y <= L.y + L.h;
    const tol = 0.06 * m.cell + 2;
    onLinks = 0;
    for (const p of pts) {
      if (inLegend(p)) continue;
      const cx = p[0] / m.cell - 0.5, cy = p[1] / m.cell - 0.5;          // in cells from PE (0,0)'s centre
      const dx = Math.abs(cx - Math.round(cx)) * m.cell, dy = Math.abs(cy - Math.round(cy)) * m.cell;
      if (Math.hypot(dx, dy) < 0.2 * m.cell) continue;                   // at a router: a ramp's ring
      assert.ok(Math.min(dx, dy) <= tol, `an xdown pixel at (${p}) is ${Math.min(dx, dy).toFixed(1)} px off its link`);
      ++onLinks;
    }
  }
  assert.ok(onLinks > 20, `only ${onLinks} xdown pixels on the links`);

  // The route picker names the colour too.
  s = await page.evaluate(() => window.waferlab.canvas({ overlay_colour: 1 }));
  await frames(page, 2);
  assert.equal((await state()).canvas.route_label, 'route xdown');
});

test('"busy, last N cycles" covers a short window, so the wave shows as it passes', async () => {
  const { page } = app;
  await page.evaluate(() => window.waferlab.canvas({ mode: 'activity', recent: true, overlay_colour: null }));
  await page.keyboard.press('F5');                             // play at the default speed, as a student does
  await page.waitForFunction(() => window.waferlab.state().cycle >= 70, null, { timeout: 30000 });
  const s = await state();
  const busy = s.canvas.legend.find((l) => /^busy/.test(l.title));
  const n = +/last (\d+) cycles/.exec(busy.title)[1];
  assert.ok(n >= 16 && n <= 40, `the window is ${n} cycles`);
});
