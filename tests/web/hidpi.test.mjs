// High-DPI: on a 2x screen the canvas renders at device pixels, so text stays sharp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

test('a devicePixelRatio of 2 gives a canvas with twice the pixels', async () => {
  const app = await openApp('', { scale: 2 });
  try {
    await frames(app.page);
    const dims = await app.page.evaluate(() => {
      const c = document.getElementById('canvas');
      return { w: c.width, h: c.height, cssW: window.innerWidth, cssH: window.innerHeight, dpr: devicePixelRatio };
    });
    assert.equal(dims.dpr, 2);
    assert.equal(dims.w, dims.cssW * 2, JSON.stringify(dims));
    assert.equal(dims.h, dims.cssH * 2, JSON.stringify(dims));
    // Layout is in CSS pixels: a click still lands on the PE under the pointer.
    const m = (await app.page.evaluate(() => window.waferlab.state())).canvas.mesh_rect;
    await app.page.mouse.click(m.x + 4.5 * m.cell, m.y + 4.5 * m.cell);
    await frames(app.page);
    assert.deepEqual((await app.page.evaluate(() => window.waferlab.state())).selected_pe, { x: 4, y: 4 });
  } finally { await app.close(); }
});
