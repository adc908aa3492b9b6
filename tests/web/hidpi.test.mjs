// High-DPI: on a 2x screen the canvas renders at device pixels, so text stays sharp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state, peCentre, clickAt } from './browser.mjs';

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
    // Layout is in CSS pixels: a click where state() says PE (4, 3) is lands on it.
    await clickAt(app.page, peCentre(await state(app.page), 4, 3));
    await frames(app.page);
    assert.deepEqual((await state(app.page)).selected_pe, { x: 4, y: 3 });
  } finally { await app.close(); }
});
