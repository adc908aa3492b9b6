// Help: F1 opens the keys window; the tour dims everything but the part it explains.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, imageStats } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

const brightness = async () => (await imageStats(app.page, await app.page.screenshot())).mean;

test('F1 opens and closes the help window', async () => {
  await app.page.mouse.click(900, 400);
  assert.equal((await state()).help.open, false);
  await app.page.keyboard.press('F1');
  await frames(app.page);
  assert.equal((await state()).help.open, true);
  await app.page.keyboard.press('F1');
  await frames(app.page);
  assert.equal((await state()).help.open, false);
});

test('the tour loads a kernel when none is loaded and dims the screen around its first stop', async () => {
  const before = await brightness();
  await app.page.evaluate(() => window.waferlab.call('help', { tour: true }));
  await frames(app.page, 3);
  const s = await state();
  assert.equal(s.help.tour_step, 0);
  assert.equal(s.example, 'hello');
  assert.equal(s.loaded, true);
  const during = await brightness();
  assert.ok(during < before * 0.9, `the screen is not dimmed: brightness ${before.toFixed(1)} -> ${during.toFixed(1)}`);
});
