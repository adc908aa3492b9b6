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

test('odd URL parameters are reported and the defaults load', async () => {
  const app = await openApp('?mesh=9999x1&bogus=%ZZ');
  try {
    const s = await app.page.evaluate(() => window.waferlab.state());
    assert.deepEqual(s.mesh, { w: 8, h: 8 });
    const notice = await app.page.locator('#notice').textContent();
    assert.match(notice, /mesh=9999x1 ignored/);
    assert.match(notice, /unknown URL parameter 'bogus'/);
  } finally { await app.close(); }
});
