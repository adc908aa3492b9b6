// The app in headless Chromium: it starts, draws, and answers real input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, outDir, imageStats } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

test('window.waferlab.state() reports version, mesh and frame', async () => {
  const s = await app.page.evaluate(() => window.waferlab.state());
  assert.equal(s.ready, true);
  assert.match(s.version, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(s.mesh, { w: 8, h: 8 });
  assert.ok(s.frame >= 1, `frame ${s.frame}`);
});

test('the canvas is drawn (not blank)', async () => {
  await frames(app.page);
  const png = await app.page.locator('#canvas').screenshot();
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'app.png'), png);
  const { distinct } = await imageStats(app.page, png);
  assert.ok(distinct >= 16, `only ${distinct} distinct colours: the canvas looks blank`);
});

test('a real click on a PE selects it', async () => {
  const before = await app.page.evaluate(() => window.waferlab.state());
  assert.equal(before.selected_pe, null);
  // Where the mesh is drawn (it fits the part of the canvas the windows leave free): PE (4, 4)'s middle.
  const m = before.canvas.mesh_rect;
  await app.page.mouse.click(m.x + 4.5 * m.cell, m.y + 4.5 * m.cell);
  await frames(app.page);
  const after = await app.page.evaluate(() => window.waferlab.state());
  assert.deepEqual(after.selected_pe, { x: 4, y: 4 });
});

test('a real key press zooms the canvas', async () => {
  const z0 = (await app.page.evaluate(() => window.waferlab.state())).view.zoom;
  await app.page.locator('#canvas').focus();
  await app.page.keyboard.press('+');
  await frames(app.page);
  const z1 = (await app.page.evaluate(() => window.waferlab.state())).view.zoom;
  assert.ok(z1 > z0, `zoom ${z0} -> ${z1}`);
});

test('bad calls return clear errors and the app keeps running', async () => {
  const msg = await app.page.evaluate(() => { try { window.waferlab.select_pe(99, 0); return 'no error'; } catch (e) { return e.message; } });
  assert.match(msg, /select_pe: 'x' must be in 0\.\.7/);
  const unknown = await app.page.evaluate(() => { try { window.waferlab.call('no_such_method'); return 'no error'; } catch (e) { return e.message; } });
  assert.match(unknown, /unknown method 'no_such_method'/);
  await frames(app.page);
});
