// The mesh canvas in the browser: colouring modes, the route overlay drawn from
// the live machine, the heatmap level of detail at 256x256, and a lost WebGL context.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, outDir, imageStats } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=summa'); });
after(async () => { await app?.close(); });

const call = (method, args) => app.page.evaluate(([m, a]) => window.waferlab.call(m, a), [method, args]);
const state = () => app.page.evaluate(() => window.waferlab.state());

// Pixels of the canvas within `tol` of an RGB colour (a palette colour drawn by the canvas).
async function countColour(rgb, tol = 24) {
  const png = await app.page.locator('#canvas').screenshot();
  return (await imageStats(app.page, png, { rgb, tol })).matching;
}

test('canvas settings round-trip through call("canvas") and bad ones are clear errors', async () => {
  const s = await call('canvas', { mode: 'task', overlay_colour: 1, anim_speed: 1, recent: false });
  assert.deepEqual(
    { mode: s.canvas.mode, overlay: s.canvas.overlay_colour, speed: s.canvas.anim_speed, recent: s.canvas.recent },
    { mode: 'task', overlay: 1, speed: 1, recent: false });
  const msg = await app.page.evaluate(() => { try { window.waferlab.canvas({ mode: 'rainbow' }); return 'no error'; } catch (e) { return e.message; } });
  assert.match(msg, /canvas: 'mode' must be one of activity, task, sram, stalls/);
  assert.equal((await state()).canvas.mode, 'task');   // a bad call changes nothing
});

test('the route overlay is drawn from the loaded machine in its colour', async () => {
  await call('load_example', { name: 'summa', discard: true });
  await call('editor', { open: false });
  await call('run', { cycles: 72 });
  await app.page.waitForFunction(() => !window.waferlab.state().running, null, { timeout: 30000 });
  await call('canvas', { mode: 'activity', overlay_colour: 1, wavelets: false });
  await frames(app.page, 3);
  const s = await state();
  assert.equal(s.cycle, 72);
  assert.equal(s.canvas.detail, 'full');
  assert.equal(s.canvas.visible_pes, 64);
  const png = await app.page.locator('#canvas').screenshot();
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'canvas-route.png'), png);
  const orange = [242, 142, 43];                       // colour 1 in the palette (ui/canvas_model.cpp)
  const on = await countColour(orange);
  await call('canvas', { overlay_colour: null });
  await frames(app.page, 3);
  const off = await countColour(orange);
  assert.ok(on > off + 500, `colour-1 pixels: ${on} with the overlay, ${off} without`);
});

test('the mesh shown is the loaded machine\'s: set_mesh unloads the kernel, compile brings its grid back', async () => {
  const loaded = await call('load_example', { name: 'summa', discard: true });
  assert.equal(loaded.loaded, true);
  const grid = loaded.mesh;
  const empty = await call('set_mesh', { w: grid.w + 3, h: grid.h + 1 });
  assert.equal(empty.loaded, false);
  assert.deepEqual(empty.mesh, { w: grid.w + 3, h: grid.h + 1 });
  assert.equal(empty.compiled, true);   // the editor keeps the kernel
  await frames(app.page, 3);
  assert.equal((await state()).canvas.visible_pes, (grid.w + 3) * (grid.h + 1));
  const again = await call('compile');
  assert.equal(again.loaded, true);
  assert.deepEqual(again.mesh, grid);
});

test('a 256x256 mesh is drawn as a heatmap, quickly', async () => {
  await call('set_mesh', { w: 256, h: 256 });
  await frames(app.page, 5);
  const s = await state();
  assert.equal(s.canvas.detail, 'heatmap');
  assert.equal(s.canvas.visible_pes, 256 * 256);
  console.log(`256x256 heatmap: canvas draw ${s.canvas.draw_ms.toFixed(2)} ms`);
});

test('a WebGL context the browser takes away comes back, and the canvas is drawn again', async () => {
  const { page } = app;
  await call('load_example', { name: 'summa', discard: true });
  await frames(page, 3);
  const shot = async () => imageStats(page, await page.locator('#canvas').screenshot());
  const before = await shot();
  // The extension is not to be had from a lost context: the one that lost it restores it.
  await page.evaluate(() => (window.loser = document.getElementById('canvas').getContext('webgl2').getExtension('WEBGL_lose_context')).loseContext());
  await frames(page, 3);   // the app runs on meanwhile
  assert.ok((await shot()).distinct < 4, 'the canvas was not blank with its context lost');
  await page.evaluate(() => window.loser.restoreContext());
  await page.waitForFunction(() => !document.getElementById('canvas').getContext('webgl2').isContextLost(), null, { timeout: 30000 });
  await frames(page, 3);
  const after = await shot();
  assert.ok(after.distinct >= before.distinct * 0.8 && Math.abs(after.mean - before.mean) < 10,
            `drawn again: ${JSON.stringify(after)} against ${JSON.stringify(before)} before`);
  assert.deepEqual(app.logs.filter((l) => /pageerror|restoration not allowed/.test(l)), []);
});
