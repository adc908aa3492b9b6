// The page reads its URL: good parameters apply, odd ones are reported and ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp } from './browser.mjs';

test('?mesh=16x4 opens a 16x4 mesh', async () => {
  const app = await openApp('?mesh=16x4');
  try {
    assert.deepEqual((await app.page.evaluate(() => window.waferlab.state())).mesh, { w: 16, h: 4 });
  } finally { await app.close(); }
});

test('?example=gemv opens the GEMV kernel in the editor', async () => {
  const app = await openApp('?example=gemv');
  try {
    const s = await app.page.evaluate(() => window.waferlab.state());
    assert.equal(s.example, 'gemv');
    assert.equal(s.editor.open, true);
    assert.deepEqual(s.mesh, { w: 4, h: 2 });   // the canvas shows the kernel's grid
    assert.equal(s.loaded, true);               // loaded at cycle 0, paused
    assert.equal(s.cycle, 0);
    assert.equal(s.running, false);
    assert.deepEqual(s.diagnostics, []);
  } finally { await app.close(); }
});

test('odd URL parameters are reported and the defaults load', async () => {
  const app = await openApp('?mesh=9999x1&bogus=%ZZ&example=../etc');
  try {
    const s = await app.page.evaluate(() => window.waferlab.state());
    assert.deepEqual(s.mesh, { w: 8, h: 8 });
    const notice = await app.page.locator('#notice').textContent();
    assert.match(notice, /mesh=9999x1 ignored/);
    assert.match(notice, /unknown URL parameter 'bogus'/);
    assert.match(notice, /example=\.\.\/etc ignored/);
    assert.equal(s.example, null);
  } finally { await app.close(); }
});
