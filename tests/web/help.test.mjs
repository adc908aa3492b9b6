// Help: F1 opens the keys window; the tour dims everything but the part it explains.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, imageStats, focusCanvas, onPage } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

// Mean brightness of the File menu's title, where state() says it is: outside the tour's first
// stop (the canvas), and drawn the same with or without a kernel loaded.
async function menuBrightness() {
  const t = (await state()).places.file_menu;
  const clip = { ...(await onPage(app.page, t)), width: t.w, height: t.h };
  return (await imageStats(app.page, await app.page.screenshot({ clip }))).mean;
}

test('F1 opens and closes the help window', async () => {
  await focusCanvas(app.page);   // keys go to the app
  assert.equal((await state()).help.open, false);
  await app.page.keyboard.press('F1');
  await frames(app.page);
  assert.equal((await state()).help.open, true);
  await app.page.keyboard.press('F1');
  await frames(app.page);
  assert.equal((await state()).help.open, false);
});

test('the tour loads a kernel when none is loaded and dims the screen around its first stop', async () => {
  await app.page.evaluate(() => window.waferlab.set_mesh(8, 8));   // an empty mesh: no kernel loaded
  await frames(app.page);
  assert.equal((await state()).loaded, false);
  const before = await menuBrightness();
  await app.page.evaluate(() => window.waferlab.call('help', { tour: true }));
  await frames(app.page, 3);
  const s = await state();
  assert.equal(s.help.tour_step, 0);
  assert.equal(s.example, 'hello');
  assert.equal(s.loaded, true);
  assert.ok(s.places.canvas, 'the first stop is the canvas');
  const during = await menuBrightness();
  assert.ok(during < before * 0.7, `the menu bar is not dimmed: brightness ${before.toFixed(1)} -> ${during.toFixed(1)}`);
});
