// A kernel that no longer compiles never runs the build before it: the student's
// typo in gemv (fmacs -> fmacz), then Ctrl+Enter, F5, Reset and F5 again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, imageStats } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=gemv'); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

// One key, then a frame: Dear ImGui 1.86 reads key state once a frame, so faster presses merge.
async function press(page, key) {
  await page.keyboard.press(key);
  await frames(page, 1);
}

// Moves the editor's cursor with keys (pages, then lines, then characters) to a 1-based line and column.
async function cursorTo(page, line, col) {
  for (let n = 0; n < 200; ++n) {
    const c = (await state()).editor.cursor;
    if (c.line === line && c.col === col) return;
    const key = c.line < line - 8 ? 'PageDown' : c.line > line + 8 ? 'PageUp' : c.line < line ? 'ArrowDown'
      : c.line > line ? 'ArrowUp' : c.col < col ? 'ArrowRight' : 'ArrowLeft';
    await press(page, key);
  }
  assert.fail(`the cursor never reached ${line}:${col}`);
}

test('an edited kernel with an error refuses to run and says why in the toolbar and the log', async () => {
  const { page } = app;
  let s = await state();
  assert.equal(s.loaded, true);
  assert.equal(s.loaded_matches_editor, true);
  assert.equal(s.not_compiled, null);

  // Click into the editor's text and make the typo with real keys.
  const ed = s.layout.editor;
  await page.mouse.click(ed.x + ed.w / 2, ed.y + ed.h / 2);
  await frames(page);
  assert.equal((await state()).editor.focused, true);
  const src = (await page.evaluate(() => window.waferlab.get_source())).text.split('\n');
  const line = src.findIndex((l) => l.includes('fmacs(mem(y)')) + 1;
  const col = src[line - 1].indexOf('fmacs') + 5;          // just before the 's'
  await cursorTo(page, line, col);
  await press(page, 'Delete');
  await page.keyboard.type('z');
  await press(page, 'Control+Enter');
  await frames(page);
  s = await state();
  assert.equal(s.compiled, false);
  assert.equal(s.loaded_matches_editor, false);
  assert.match(s.not_compiled, new RegExp(`^not compiled: 1 error at ${line}:\\d+$`));

  // F5, Step (F10), To end (F6), Reset then F5: none of them runs the old gemv.
  const cv = s.layout.canvas;
  await page.mouse.click(cv.x + cv.w - 40, cv.y + cv.h - 40);   // the canvas, not the editor
  for (const key of ['F5', 'F10', 'F6', 'Shift+F5', 'F5']) {
    await page.keyboard.press(key);
    await frames(page, 4);
    s = await state();
    assert.equal(s.cycle, 0, `${key} ran the old build`);
    assert.equal(s.running, false, `${key} started the old build`);
    assert.deepEqual(s.output, []);
  }
  // The script surface refuses with the same words.
  const refused = await page.evaluate(() => { try { window.waferlab.call('run', null); return 'ran'; } catch (e) { return e.message; } });
  assert.match(refused, /run: not compiled: 1 error at/);

  // The toolbar says it in red, where the run state usually is.
  const r = s.layout.run_status;
  const shot = await page.screenshot({ clip: { x: r.x, y: r.y, width: Math.max(r.w, 1), height: Math.max(r.h, 1) } });
  assert.ok((await imageStats(page, shot)).red > 20, 'the toolbar does not show the refusal in red');
  // The log says it too (its first line), in red.
  const log = s.layout.log;
  const logShot = await page.screenshot({ clip: { x: log.x, y: log.y + 20, width: log.w, height: 40 } });
  assert.ok((await imageStats(page, logShot)).red > 20, 'the log does not show the refusal in red');

  // Fixing the typo (undo) and pressing F5 compiles the fixed text and runs it.
  const ed2 = s.layout.editor;
  await page.mouse.click(ed2.x + ed2.w / 2, ed2.y + ed2.h / 2);
  await press(page, 'Control+z');
  await press(page, 'Control+z');
  await frames(page);
  assert.equal((await state()).not_compiled, null);
  await page.mouse.click(cv.x + cv.w - 40, cv.y + cv.h - 40);
  await page.keyboard.press('F6');
  await frames(page);   // the key reaches the app in a frame: only then is there a run to wait for
  s = await page.evaluate(() => window.waferlab.whenStopped());
  assert.equal(s.done, true);
  assert.equal(s.error, null);
  assert.equal(s.loaded_matches_editor, true);
  assert.ok(s.output.length > 0);
});
