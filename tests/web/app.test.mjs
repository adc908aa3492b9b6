// The app in headless Chromium: it starts, draws, and answers real input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, outDir, imageStats, state, peCentre, clickAt } from './browser.mjs';

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
  await app.page.evaluate(() => window.waferlab.select_pe(null));
  await frames(app.page);
  const before = await state(app.page);
  assert.equal(before.selected_pe, null);
  await clickAt(app.page, peCentre(before, 4, 3));   // where state() says PE (4, 3) is drawn
  await frames(app.page);
  assert.deepEqual((await state(app.page)).selected_pe, { x: 4, y: 3 });
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
  const { mesh } = await state(app.page);
  const msg = await app.page.evaluate(() => { try { window.waferlab.select_pe(99, 0); return 'no error'; } catch (e) { return e.message; } });
  assert.match(msg, new RegExp(`select_pe: 'x' expects an integer in 0\\.\\.${mesh.w - 1}, got 99`));
  const unknown = await app.page.evaluate(() => { try { window.waferlab.call('no_such_method'); return 'no error'; } catch (e) { return e.message; } });
  assert.match(unknown, /unknown method 'no_such_method'/);
  await frames(app.page);
});

// One table (ui/app_methods.cpp) makes the methods: each row is a window.waferlab method, and
// docs/js-api.md names each one, so the manual cannot fall behind the table.
test('every method in the table is on window.waferlab and in docs/js-api.md', async () => {
  const rows = await app.page.evaluate(() => [...window.waferlab._methods.values()].map((m) => m.row));
  assert.ok(rows.length >= 40, `${rows.length} rows`);
  const doc = fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'docs', 'js-api.md'), 'utf8');
  for (const row of rows.filter((r) => !r.internal)) {
    assert.equal(await app.page.evaluate((n) => typeof window.waferlab[n], row.name), 'function', row.name);
    assert.ok(doc.includes('`' + row.name + '('), `docs/js-api.md does not document ${row.name}()`);
  }
});
