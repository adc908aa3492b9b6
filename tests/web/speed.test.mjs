// The speed control speaks cycles per second: typed values are taken as they
// are (clamped to the range), and a drag moves smoothly on the log scale.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=hello'); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());
const MIN = 1, MAX = 1e6;

// Where a speed sits on the slider (Dear ImGui's logarithmic mapping, grab inset 2 + 10/2 px).
function xFor(r, speed) {
  const pad = 2 + 5;
  return r.x + pad + (r.w - 2 * pad) * (Math.log(speed / MIN) / Math.log(MAX / MIN));
}

async function typeSpeed(page, text) {
  const r = (await state()).layout.speed;
  // A frame between the steps, so the app sees Ctrl held when the click lands (a loaded machine
  // can deliver all three in one frame).
  await page.keyboard.down('Control');
  await frames(page);
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  await frames(page);
  await page.keyboard.up('Control');
  await frames(page);
  await page.keyboard.press('Control+a');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await frames(page);
  return (await state()).speed;
}

test('typed speeds are cycles per second, clamped to the range', async () => {
  const { page } = app;
  assert.equal(await typeSpeed(page, '5'), 5);
  assert.equal(await typeSpeed(page, '20'), 20);
  assert.equal(await typeSpeed(page, '100000000000'), MAX);
  assert.equal(await typeSpeed(page, '0'), MIN);
});

test('a drag moves the speed smoothly along the log scale', async () => {
  const { page } = app;
  assert.equal(await typeSpeed(page, '100'), 100);
  const r = (await state()).layout.speed;
  const y = r.y + r.h / 2, x0 = xFor(r, 100);
  await page.mouse.move(x0, y);
  await page.mouse.down();
  const seen = [];
  for (const dx of [-10, -20, -30, -40]) {
    await page.mouse.move(x0 + dx, y, { steps: 3 });
    await frames(page, 2);
    seen.push((await state()).speed);
  }
  await page.mouse.up();
  for (let i = 1; i < seen.length; ++i) assert.ok(seen[i] < seen[i - 1], `not monotonic: ${seen}`);
  assert.ok(seen[0] >= 50, `10 px took 100 to ${seen[0]}`);
  assert.ok(seen[3] >= 8 && seen[3] < 100, `40 px took 100 to ${seen[3]}`);
});
