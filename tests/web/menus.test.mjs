// The menus as a student meets them: examples beginner first with a line on each,
// the Mesh menu showing the loaded kernel's grid, no developer tools, and a page
// that loads without a missing file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=gemv'); });
after(async () => { await app?.close(); });

const state = (page = app.page) => page.evaluate(() => window.waferlab.state());
const centre = (r) => [r.x + r.w / 2, r.y + r.h / 2];

async function openMenu(page, name) {
  await page.keyboard.press('Escape');
  await frames(page, 2);
  await page.mouse.click(...centre((await state(page)).layout[name]));
  await frames(page, 3);
  return state(page);
}

test('the page asks for no file that is not there', async () => {
  await frames(app.page, 3);
  const missing = app.logs.filter((l) => /404|Failed to load resource/.test(l));
  assert.deepEqual(missing, []);
});

test('examples come beginner first, each with a line saying what it does', async () => {
  const s = await openMenu(app.page, 'menu_examples');
  assert.deepEqual(s.examples.slice(0, 4), ['hello', 'broadcast', 'reduction', 'gemv']);
  for (const n of s.examples) assert.ok(s.example_summaries[n].length > 10, `${n} has no description`);
  assert.match(s.example_summaries.hello, /^two PEs\. The left one sends four numbers east;/);
  const ys = s.examples.map((n) => s.layout[`example:${n}`].y);
  for (let i = 1; i < ys.length; ++i) assert.ok(ys[i] > ys[i - 1], 'the menu is not in that order');
});

test('the Mesh menu shows the loaded kernel\'s grid and does not change it', async () => {
  const { page } = app;
  let s = await openMenu(page, 'menu_mesh');
  assert.ok(s.layout['mesh:kernel'], 'the kernel\'s grid is not in the menu');
  await page.mouse.click(...centre(s.layout['mesh:8 x 8']));
  await frames(page, 3);
  s = await state();
  assert.deepEqual(s.mesh, { w: 4, h: 2 });
});

test('the Dear ImGui demo is a developer tool: only with ?dev=1', async () => {
  let s = await openMenu(app.page, 'menu_view');
  assert.ok(s.layout.menu_reset_layout, 'the View menu did not open');
  assert.equal(s.layout.menu_demo, undefined);
  const dev = await openApp('?dev=1');
  try {
    s = await openMenu(dev.page, 'menu_view');
    assert.ok(s.layout.menu_demo, 'no demo with ?dev=1');
  } finally { await dev.close(); }
});
