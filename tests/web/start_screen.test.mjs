// The start screen as a first visitor meets it, with the mouse: a fresh profile opens on it; its
// three actions (lesson 1, an example, training a GPT) and the tour each open what they say;
// Help > Start screen brings it back; and a visitor with a saved workspace gets that instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state, imageStats, pressLayout } from './browser.mjs';

const TITLE = [255, 204, 102];   // the examples page's heading colour (1.0, 0.8, 0.4)

const press = pressLayout;

// Help > Start screen.
async function reopen(page) {
  await press(page, 'menu_help');
  const s = await press(page, 'menu_start');
  assert.equal(s.start_screen.open, true, 'Help > Start screen opens it again');
  assert.equal(s.start_screen.page, 'actions');
  return s;
}

test('a first visit opens on the start screen; each action opens what it says', async () => {
  const app = await openApp('', { startScreen: true, width: 1366, height: 768 });
  const { page, context, url } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.equal(s.start_screen.open, true, 'a fresh profile sees the start screen');
    for (const name of ['start_lesson', 'start_train', 'start_examples', 'start_tour', 'start_close'])
      assert.ok(s.layout[name], `${name} is drawn`);
    const win = s.layout.start_window;
    assert.ok(win.w > 300 && win.h > 200, `the window is big enough to read: ${JSON.stringify(win)}`);
    const shot = await page.screenshot({ clip: { x: win.x, y: win.y, width: win.w, height: win.h } });
    assert.ok((await imageStats(page, shot)).distinct > 8, 'the start screen is drawn');

    // Start lesson 1: the Lessons panel at lesson 1, its starter in the editor.
    s = await press(page, 'start_lesson');
    assert.equal(s.start_screen.open, false);
    assert.equal(s.lesson.panel_open, true);
    assert.equal(s.lesson.current, 1);
    assert.equal(s.editor.file, 'lesson01.wk');

    // Close: the X-free way out, and it stays closed.
    await reopen(page);
    s = await press(page, 'start_close');
    assert.equal(s.start_screen.open, false);
    await frames(page, 5);
    assert.equal((await state(page)).start_screen.open, false);

    // Open an example: the list, beginner first, then one of them loaded.
    await reopen(page);
    s = await press(page, 'start_examples');
    assert.equal(s.start_screen.page, 'examples');
    assert.ok(s.layout['start_example:hello'] && s.layout['start_example:gemv'], 'the examples are listed');
    const heading = s.layout.start_window;
    const top = await page.screenshot({ clip: { x: heading.x, y: heading.y, width: heading.w, height: 60 } });
    assert.ok((await imageStats(page, top, { rgb: TITLE, tol: 20 })).matching > 20, 'the examples page has its heading');
    s = await press(page, 'start_example:gemv');
    assert.equal(s.start_screen.open, false);
    assert.equal(s.example, 'gemv');
    assert.equal(s.loaded, true);

    // Train a GPT on the wafer: the Model window opens and a run starts.
    await reopen(page);
    s = await press(page, 'start_train');
    assert.equal(s.start_screen.open, false);
    assert.equal(s.model.open, true, 'the Model window is open');
    assert.ok(s.model.layout.train_header, 'on its Train section');
    const t = await page.evaluate(() => window.waferlab.train_state());
    assert.ok(['starting', 'running'].includes(t.status), `training starts: ${t.status}`);
    assert.equal(t.error, null);
    await page.evaluate(() => window.waferlab.train_pause());   // the rest of the test need not wait on it

    // Take the tour: its first stop.
    await reopen(page);
    s = await press(page, 'start_tour');
    assert.equal(s.start_screen.open, false);
    assert.equal(s.help.tour_step, 0);

    // A returning visitor (the same profile, its workspace saved) gets the workspace, not the start screen.
    await page.waitForFunction(() => window.waferlab.state().persisted, null, { timeout: 20000 });
    const again = await context.newPage();
    await again.goto(url);
    await again.waitForFunction(() => window.waferlab && window.waferlab.ready === true, null, { timeout: 60000 });
    await frames(again);
    const r = await state(again);
    assert.equal(r.start_screen.open, false, 'a saved workspace opens as it was left');
    assert.equal(r.example, 'gemv');
    assert.equal(r.layout.start_window, undefined);
    await again.close();
  } finally {
    await app.close();
  }
});

test('?start=0 opens a first visit on the empty mesh', async () => {
  const app = await openApp('?start=0', { startScreen: true });
  try {
    await frames(app.page);
    const s = await state(app.page);
    assert.equal(s.start_screen.open, false);
    assert.equal(s.loaded, false);
  } finally {
    await app.close();
  }
});
