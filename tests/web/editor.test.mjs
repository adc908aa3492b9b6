// The kernel editor takes real typing, undo and redo from the keyboard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state, clickAt, centreOf } from './browser.mjs';

test('typing into the kernel editor, then undo and redo', async () => {
  const app = await openApp();
  const { page } = app;
  try {
    await page.evaluate(() => window.waferlab.editor(true, true));
    await frames(page);
    // A real click inside the editor window, where state() says it is, focuses it.
    await clickAt(page, centreOf((await state(page)).places.editor));
    await frames(page);
    assert.equal((await page.evaluate(() => window.waferlab.state())).editor.focused, true);
    await page.keyboard.type('task hello() {');
    await page.keyboard.press('Enter');
    await page.keyboard.type('x = 1;');
    await frames(page);
    let s = await page.evaluate(() => window.waferlab.state());
    assert.equal(s.editor.lines, 2);
    assert.equal(s.editor.modified, true);
    assert.equal((await page.evaluate(() => window.waferlab.get_source())).text, 'task hello() {\nx = 1;');
    await page.keyboard.press('Control+z');
    await frames(page);
    assert.equal((await page.evaluate(() => window.waferlab.get_source())).text, 'task hello() {\nx = 1');
    await page.keyboard.press('Control+y');
    await frames(page);
    assert.equal((await page.evaluate(() => window.waferlab.get_source())).text, 'task hello() {\nx = 1;');
    // Shortcuts meant for the canvas do not fire while typing: '+' went into the text.
    const zoom = s.view.zoom;
    await page.keyboard.type('+');
    await frames(page);
    s = await page.evaluate(() => window.waferlab.state());
    assert.equal(s.view.zoom, zoom);
  } finally { await app.close(); }
});

// A second part appears as it is typed, its tab renamed with each key ("program", "program p"):
// the cursor stays where the keys go (a renamed tab was a new tab, and the bar moved the cursor
// to the first part's line, so the rest was typed there).
test('typing a new part of the file keeps the cursor where the keys go', async () => {
  const app = await openApp();
  const { page } = app;
  try {
    await page.evaluate(() => window.waferlab.editor(true, true));
    await frames(page);
    await clickAt(page, centreOf((await state(page)).places.editor));
    await frames(page);
    await page.keyboard.type('layout { grid 1 x 1; }');
    await page.keyboard.press('Enter');
    await page.keyboard.type('program p {');
    await page.keyboard.press('Enter');
    await page.keyboard.type('export fn main() {}');
    await frames(page);
    assert.equal((await page.evaluate(() => window.waferlab.get_source())).text,
                 'layout { grid 1 x 1; }\nprogram p {\nexport fn main() {}');
    const s = await state(page);
    assert.deepEqual(s.editor.cursor, { line: 3, col: 20 });
    assert.ok(s.layout['tab:p'], 'the second part has its tab, named after the program');
  } finally { await app.close(); }
});
