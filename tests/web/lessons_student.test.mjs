// Lessons 12–17 as a student meets them, with real clicks and keys: lesson 13's fix found with the
// editor's find and typed, its Check watched (the loss falling, the mesh training), then Next
// lesson with the page alive; a lesson's edits kept across lessons and asked about before Load
// starter replaces them; the lesson text's code names jumping to their definitions; a table
// drawn as a grid; a double-click taking the word under the pointer; the editor's tabs going to
// their parts; fast typing taken in full;
// and an exception in a frame reported in the app with the work saved, the page going on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state, clickAt, centreOf, pressLayout } from './browser.mjs';

const source = (page) => page.evaluate(() => window.waferlab.get_source().text);
const pageErrors = (logs) => logs.filter((l) => l.startsWith('pageerror'));

const press = pressLayout;   // the lesson panel's buttons stay put

// Clicks into the editor's text at 1-based (line, col).
async function clickText(page, line, col) {
  const g = (await state(page)).editor.text_geometry;
  await clickAt(page, { x: g.x + (col - 1 + 0.3) * g.char_w, y: g.y + (line - 0.5) * g.line_h });
  await frames(page);
}

test('lesson 13: find the line, type the fix, watch Check train, then Next lesson; the edits come back', async () => {
  const app = await openApp('?lesson=13', { width: 1366, height: 768 });
  const { page, logs } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.equal(s.lesson.current, 13);
    // A model kernel runs only inside the GPT: the toolbar says so rather than "finished".
    assert.match(s.status, /^nothing to run: no host block/);
    const starter = await source(page);

    // Ctrl+F in the editor, the line the hint names, Enter: the match is selected and in view.
    await clickText(page, 1, 1);
    await page.keyboard.press('Control+f');
    await frames(page);
    s = await state(page);
    assert.equal(s.editor.find.open, true);
    await page.keyboard.type('pt[t0 + t] = dx[j];');
    await page.keyboard.press('Enter');
    await frames(page);
    s = await state(page);
    assert.equal(s.editor.selection, 'pt[t0 + t] = dx[j];');
    const line = s.editor.cursor.line;
    assert.match(starter.split('\n')[line - 1], /pt\[t0 \+ t\] = dx\[j\];/);
    // Escape closes the bar and gives the text the keys; the fix goes on a new line below.
    await page.keyboard.press('Escape');
    await frames(page);
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('dx[j] = dx[j] - 1.0;');
    await frames(page);
    const fixed = await source(page);
    assert.match(fixed.split('\n')[line], /^\s+dx\[j\] = dx\[j\] - 1\.0;$/, 'the fix typed in full, once');

    // Check: the progress, the loss plot and the training's mesh on the canvas while it runs.
    const before = s.layout.lesson_next;
    s = await press(page, 'lesson_check');
    assert.match(s.lesson.checking ?? '', /^Training/, JSON.stringify(s.lesson));
    await page.waitForFunction(() => window.waferlab.state().layout.lesson_loss_plot, null, { timeout: 60000 });
    s = await state(page);
    assert.equal(s.mesh.w, 32, 'the canvas shows the mesh the check trains on');
    assert.match(s.status, /^the canvas shows the lesson's check training; the kernel: /, 'the toolbar says what the canvas shows');
    assert.deepEqual(s.layout.lesson_next, before, 'the buttons stay where they were');
    await page.waitForFunction(() => window.waferlab.state().lesson.checking === null, null, { timeout: 120000 });
    s = await state(page);
    assert.equal(s.lesson.verdict.passed, true, JSON.stringify(s.lesson.verdict));
    assert.deepEqual(s.layout.lesson_next, before, 'a verdict below the text moves no button');

    // Next lesson: the page goes on (frames, menus), nothing was caught, lesson 14's kernel is in.
    s = await press(page, 'lesson_next');
    await frames(page, 10);
    s = await state(page);
    assert.deepEqual(pageErrors(logs), []);
    assert.deepEqual(s.recovered, []);
    assert.equal(s.lesson.current, 14);
    assert.equal(s.editor.file, 'lesson14.wk');
    assert.equal(s.lesson.pending, null, 'moving between lessons never asks');
    assert.deepEqual(s.lesson.kept_work, [13]);

    // Back to 13 through the picker: the fix is there, as typed (Ctrl+Z: the starter).
    await clickAt(page, centreOf(s.layout.lesson_picker));
    await frames(page);
    s = await press(page, 'lesson:13');
    assert.equal(s.lesson.current, 13);
    assert.equal(await source(page), fixed);
    assert.equal(s.editor.modified, true);
  } finally { await app.close(); }
});

test('Load starter asks before replacing a lesson\'s edits; Keep my edits keeps them', async () => {
  const app = await openApp('?lesson=12', { width: 1366, height: 768 });
  const { page } = app;
  try {
    await frames(page);
    let s = await state(page);
    const starter = await source(page);
    // Double-click the 2 of "const P = 2;" and type 8: the whole number is replaced.
    const lines = starter.split('\n');
    const line = lines.findIndex((l) => /^const P = 2;/.test(l)) + 1;
    assert.ok(line > 0, 'the starter tiles over P = 2');
    const g = s.editor.text_geometry;
    const col = lines[line - 1].indexOf('2') + 1;
    const at = await page.locator('#canvas').boundingBox();
    await page.mouse.dblclick(at.x + g.x + (col - 1 + 0.2) * g.char_w, at.y + g.y + (line - 0.5) * g.line_h);
    await frames(page);
    assert.equal((await state(page)).editor.selection, '2');
    await page.keyboard.type('8');
    await frames(page);
    const mine = await source(page);
    assert.match(mine.split('\n')[line - 1], /^const P = 8;/);

    s = await press(page, 'lesson_starter');
    assert.equal(s.lesson.pending, 'starter');
    assert.equal(await source(page), mine, 'nothing replaced before the answer');
    s = await press(page, 'lesson_keep');
    assert.equal(s.lesson.pending, null);
    assert.equal(await source(page), mine);
    s = await press(page, 'lesson_starter');
    s = await press(page, 'lesson_replace');
    assert.equal(await source(page), starter);

    // The editor's tabs go to their parts, one after another (a tab took a click only when the
    // mouse had rested on it a frame: the second tab clicked stayed where the first went).
    for (const [tab, re] of [['tab:host', /^host \{/], ['tab:linear', /^program linear/], ['tab:layout', /^layout \{/]]) {
      s = await press(page, tab);
      await frames(page, 2);
      s = await state(page);
      assert.match(starter.split('\n')[s.editor.cursor.line - 1], re, `${tab} goes to its part`);
    }
  } finally { await app.close(); }
});

test('lesson 15: the text\'s load_w() shows its definition; a new lesson opens at its title; the table is a grid', async () => {
  const app = await openApp('?lesson=12', { width: 1366, height: 768 });
  const { page } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.ok(s.layout.lesson_text.h > 250, `the lesson text has room at 1366x768: ${JSON.stringify(s.layout.lesson_text)}`);
    const shot = await page.screenshot();
    assert.ok(shot.length > 0);
    const text = await page.evaluate(() => window.waferlab.state().lesson.text_blocks);
    assert.ok(text.includes('table'), `lesson 12's table is parsed as one: ${text}`);

    // Scroll lesson 12's text down, then open 15: it starts at its title.
    const t = s.layout.lesson_text;
    const box = await page.locator('#canvas').boundingBox();
    await page.mouse.move(box.x + t.x + t.w / 2, box.y + t.y + t.h / 2);
    await page.mouse.wheel(0, 300);
    await frames(page);
    assert.ok((await state(page)).lesson.text_scroll > 0, 'the wheel scrolls the text');
    await page.evaluate(() => window.waferlab.open_lesson(15, true));
    await frames(page);
    s = await state(page);
    assert.equal(s.lesson.current, 15);
    assert.equal(s.lesson.text_scroll, 0);

    // The code name in the text is a link to its definition in the editor: scrolled into view, clicked.
    const t15 = s.layout.lesson_text;
    await page.mouse.move(box.x + t15.x + t15.w / 2, box.y + t15.y + t15.h / 2);
    let link = null;
    for (let i = 0; i < 10 && !link; ++i) {
      link = (await state(page)).lesson.code_links.find((l) => l.name === 'load_w()');
      if (!link) await page.mouse.wheel(0, 100), await frames(page);
    }
    assert.ok(link, 'load_w() scrolls into view and is a link');
    await clickAt(page, centreOf(link));
    await frames(page);
    s = await state(page);
    const lineText = (await source(page)).split('\n')[s.editor.cursor.line - 1];
    assert.match(lineText, /fn load_w\(\)/);
    assert.equal(s.editor.selection, 'load_w');
  } finally { await app.close(); }
});

test('an exception or a trap in a frame is reported in the app, the work saved first, and the page goes on', async () => {
  const app = await openApp('?lesson=1');
  const { page, logs } = app;
  try {
    await frames(page);
    await page.evaluate(() => window.waferlab.set_source('// work in progress\n'));
    await page.evaluate(() => window.waferlab.call('raise_in_frame'));
    await frames(page, 5);
    let s = await state(page);
    assert.deepEqual(pageErrors(logs), []);
    assert.equal(s.recovered.length, 1);
    assert.match(s.recovered[0], /drawing a frame: raise_in_frame/);
    assert.ok(s.notices.some((n) => /Something went wrong while drawing a frame .*Your kernel is saved/.test(n)), JSON.stringify(s.notices));
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('waferlab/workspace.json')));
    assert.equal(saved.text, '// work in progress\n');
    // The app goes on: the menus open, a click still works.
    const f = (await state(page)).frame;
    await clickAt(page, centreOf(s.layout.menu_view));
    await frames(page);
    assert.ok((await state(page)).frame > f);

    // A trap (no C++ exception: an out-of-bounds access would be one) the same, the edits since
    // kept: it would have ended the browser's main loop, the page frozen with them in it.
    await page.keyboard.press('Escape');
    await page.evaluate(() => window.waferlab.set_source('// more work\n'));
    await page.evaluate(() => window.waferlab.call('raise_in_frame', { trap: true }));
    await frames(page, 5);
    s = await state(page);
    assert.equal(s.recovered.length, 2);
    assert.equal(s.recovered[1], 'drawing a frame: the browser stopped it: RuntimeError: unreachable');
    assert.ok(s.notices.some((n) => /while drawing a frame \(the browser stopped it: RuntimeError: unreachable\)\. Your kernel is saved/.test(n)), JSON.stringify(s.notices));
    assert.ok(logs.some((l) => /^error: \[waferlab\] a frame stopped: .*unreachable/.test(l)), logs.join('\n'));
    assert.deepEqual(pageErrors(logs), []);
    assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('waferlab/workspace.json'))).text, '// more work\n');
    await clickAt(page, centreOf(s.layout.menu_view));
    await frames(page);
    assert.ok((await state(page)).frame > s.frame);
  } finally { await app.close(); }
});

test('a frame that traps every time stops the page, in its words over the canvas, the work saved', async () => {
  const app = await openApp('?lesson=1');
  const { page, logs } = app;
  try {
    await frames(page);
    await page.evaluate(() => window.waferlab.set_source('// my work\n'));
    await page.evaluate(() => window.waferlab.call('raise_in_frame', { trap: true, frames: 50 }));
    // Such frames draw nothing, not even the app's notice: after five in a row the page says it.
    await page.locator('#fatal').waitFor({ state: 'visible', timeout: 60000 });
    assert.equal(await page.locator('#fatal').textContent(),
                 'WaferLab stopped: every frame fails (the browser stopped it: RuntimeError: unreachable). Your kernel is saved: ' +
                 'reload the page to go on, and if it happens again, please report these words.');
    const s = await state(page);
    assert.equal(s.recovered.length, 5);
    assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('waferlab/workspace.json'))).text, '// my work\n');
    assert.deepEqual(pageErrors(logs), []);
  } finally { await app.close(); }
});

test('typing while the mesh trains: every key arrives, once and in order', async () => {
  const app = await openApp('?lesson=13', { width: 1366, height: 768 });
  const { page } = app;
  try {
    await frames(page);
    let s = await press(page, 'lesson_check');   // a training step between frames: slow frames
    assert.ok(s.lesson.checking, JSON.stringify(s.lesson));
    await clickText(page, 1, 1);
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    const typed = '// typed while the mesh trains: abcdefghijklmnopqrstuvwxyz 0123456789';
    await page.keyboard.type(typed);   // no delay between keys
    // The same key again at once: each press counts (one was lost while the last was held).
    for (const key of ['Backspace', 'Backspace', 'Backspace', 'Enter', 'Enter']) await page.keyboard.press(key);
    await page.keyboard.type('end');
    await frames(page);
    const lines = (await source(page)).split('\n');
    assert.deepEqual(lines.slice(-3), [typed.slice(0, -3), '', 'end']);
    assert.equal(lines.filter((l) => l.startsWith('// typed while')).length, 1, `the last lines: ${JSON.stringify(lines.slice(-4))}`);
    assert.ok((await state(page)).lesson.checking !== undefined);
  } finally { await app.close(); }
});

test('what the screen says is what is loaded: lesson 3 with its route error does not show lesson 2\'s PE', async () => {
  const app = await openApp('?lesson=2');
  const { page } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.deepEqual(s.mesh, { w: 1, h: 1 });   // lesson 2's one PE
    s = await press(page, 'lesson_next');
    assert.equal(s.lesson.current, 3);
    assert.ok(s.diagnostics.some((d) => d.severity === 'error'), 'lesson 3\'s starter has its route error');
    assert.equal(s.loaded, false, 'lesson 2\'s kernel is not left on the mesh');
    assert.match(s.status, /^not compiled/);
  } finally { await app.close(); }
});

test('lesson 17: the starter is right but slow pipelined; the query loop started at t0 passes', async () => {
  const app = await openApp('?lesson=17', { width: 1366, height: 768 });
  const { page, logs } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.equal(s.lesson.current, 17);
    s = await press(page, 'lesson_check');
    await page.waitForFunction(() => window.waferlab.state().lesson.verdict, null, { timeout: 60000 });
    s = await state(page);
    let v = s.lesson.verdict;
    assert.equal(v.passed, false, JSON.stringify(v));
    assert.ok(v.checks.some((c) => c.ok && /equal the reference's bit for bit/.test(c.message)), JSON.stringify(v.checks));
    assert.ok(v.checks.some((c) => !c.ok && /531,794 emulated cycles; the check wants fewer than 250,000/.test(c.message)), JSON.stringify(v.checks));
    // Find the loop the last hint names; the match selected, typing replaces it.
    await clickText(page, 1, 1);
    await page.keyboard.press('Control+f');
    await frames(page);
    await page.keyboard.type('for t in 0..t0 + tlen {');
    await page.keyboard.press('Enter');
    await frames(page);
    s = await state(page);
    assert.equal(s.editor.selection, 'for t in 0..t0 + tlen {');
    await page.keyboard.press('Escape');
    await frames(page);
    await page.keyboard.type('for t in t0..t0 + tlen {');
    await frames(page);
    assert.ok((await source(page)).includes('for t in t0..t0 + tlen {\n            let n = t + 1;'), 'the fix is in');
    s = await press(page, 'lesson_check');
    await page.waitForFunction(() => window.waferlab.state().lesson.verdict?.passed === true, null, { timeout: 60000 });
    v = (await state(page)).lesson.verdict;
    assert.ok(v.checks.some((c) => c.ok && /190,262 emulated cycles/.test(c.message)), JSON.stringify(v.checks));
    assert.deepEqual(pageErrors(logs), []);
  } finally { await app.close(); }
});

test('Check shows its run: after lesson 1\'s Check the canvas has run the kernel to its end', async () => {
  const app = await openApp('?lesson=1');
  const { page } = app;
  try {
    await frames(page);
    assert.equal((await state(page)).cycle, 0);
    await press(page, 'lesson_check');
    await page.waitForFunction(() => window.waferlab.state().done === true, null, { timeout: 60000 });
    const s = await state(page);
    assert.ok(s.cycle > 0 && s.extent.end, JSON.stringify(s.extent));
    assert.match(s.status, /^finished/);
    assert.ok(s.output.length > 0, 'the run printed what the check judged');
  } finally { await app.close(); }
});
