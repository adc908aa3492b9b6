// A bug the compiler can see (issue: a loop with constant bounds wrote y[4] into a 4-element
// array): the editor marks the index as the student types, before anything runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state } from './browser.mjs';

test('an index past the array, with constant loop bounds, is marked in the editor as it is typed', async () => {
  const app = await openApp('?example=hello');
  const { page } = app;
  try {
    await frames(page);
    const kernel = [
      'layout { grid 1 x 1; place p at (0, 0); }',
      'program p {',
      '    export var y: [f32; 4];',
      '    export fn main() {',
      '        for i in 0..5 {',
      '            y[i] = 1.0;',
      '        }',
      '    }',
      '}',
      'host { launch main at (0, 0); run; print y at (0, 0); }',
      '',
    ].join('\n');
    await page.evaluate((t) => window.waferlab.set_source('mine.wk', t), kernel);
    await frames(page);
    const s = await state(page);
    const d = s.diagnostics.find((x) => /index out of range/.test(x.message));
    assert.ok(d, JSON.stringify(s.diagnostics));
    assert.equal(d.severity, 'warning');
    assert.deepEqual([d.line, d.col], [6, 13]);
    assert.match(d.message, /the index reaches 4 \(i runs from 0 to 4\); 'y' has 4 elements, 0 to 3/);

    // The list under the editor cuts a long message at its edge: hovering the row shows all of it.
    const row = s.layout.diagnostic;
    assert.ok(row, 'the diagnostics list is drawn');
    const box = await page.locator('#canvas').boundingBox();
    await page.mouse.move(box.x + row.x + Math.min(row.w / 2, 100), box.y + row.y + row.h / 2);
    await frames(page);
    assert.equal((await state(page)).editor.hover_diagnostic, d.message);
  } finally { await app.close(); }
});
