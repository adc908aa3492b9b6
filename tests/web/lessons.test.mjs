// The guided lessons in the browser: a student opens ?lesson=1, checks the starter (it fails),
// types the fix with the keyboard, presses Check with the mouse and sees the pass; hints come one
// at a time, the solution after a confirmation and without losing the student's text; progress
// survives a reload; a lesson number that does not exist is said in the app and loses nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state, clickAt, centreOf } from './browser.mjs';

const source = (page) => page.evaluate(() => window.waferlab.get_source().text);

// Clicks a control of the Lessons panel where state().layout says it was drawn.
async function press(page, name) {
  let s = await state(page);
  // Where the button is once the panel stops moving (a verdict or a hint changes its layout, and
  // Dear ImGui sizes a window from the frame before).
  for (let prev = null; JSON.stringify(prev) !== JSON.stringify(s.layout[name]);) {
    prev = s.layout[name];
    await frames(page, 1);
    s = await state(page);
  }
  assert.ok(s.layout[name], `${name} is on screen: ${Object.keys(s.layout).join(' ')}`);
  await clickAt(page, centreOf(s.layout[name]));
  await frames(page);
  return state(page);
}

test('lesson 1 the way a student does it: the starter fails, the typed fix passes', async () => {
  const app = await openApp('?lesson=1');
  const { page } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.equal(s.lesson.current, 1);
    assert.equal(s.lesson.panel_open, true);
    assert.equal(s.editor.file, 'lesson01.wk');
    assert.deepEqual(s.lesson.headings, ['One PE: SRAM, scalars, a loop', 'Where the cycles go']);   // Markdown, parsed
    assert.ok(s.layout.lessons && s.layout.lesson_text.h > 60, JSON.stringify(s.layout.lesson_text));
    assert.equal(s.lesson.verdict, null);

    // The starter as it comes fails, and the verdict says how.
    s = await press(page, 'lesson_check');
    assert.equal(s.lesson.verdict?.passed, false, JSON.stringify(s.lesson.verdict));
    const values = s.lesson.verdict.checks.find((c) => c.kind === 'values');
    assert.equal(values.ok, false);
    assert.match(values.message, /y @ \(0,0\) should be 1 3 5 7 9 11 13 15; you got 0 2 4/);
    assert.deepEqual(s.lesson.done, []);

    // The fix, typed: a click just before the ';' of the line that computes y[i], then " + 1.0".
    const lines = (await source(page)).split('\n');
    const line = lines.findIndex((l) => /^\s*y\[i\] = 2\.0 \* x\[i\];/.test(l)) + 1;
    assert.ok(line > 0, 'the starter has the line to fix');
    const col = lines[line - 1].indexOf(';') + 1;
    const g = s.editor.text_geometry;
    await clickAt(page, { x: g.x + (col - 1 + 0.3) * g.char_w, y: g.y + (line - 0.5) * g.line_h });
    await frames(page);
    s = await state(page);
    assert.equal(s.editor.focused, true);
    assert.deepEqual(s.editor.cursor, { line, col });
    await page.keyboard.type(' + 1.0');
    await frames(page);
    assert.match((await source(page)).split('\n')[line - 1], /^\s*y\[i\] = 2\.0 \* x\[i\] \+ 1\.0;/);
    s = await state(page);
    assert.equal(s.lesson.verdict.stale, true);   // the verdict shown is for the text before the fix

    s = await press(page, 'lesson_check');
    assert.equal(s.lesson.verdict.passed, true, JSON.stringify(s.lesson.verdict));
    assert.equal(s.lesson.verdict.stale, false);
    assert.ok(s.lesson.verdict.checks.every((c) => c.ok));
    assert.match(s.lesson.verdict.summary, /^Passed/);
    assert.deepEqual(s.lesson.done, [1]);
    assert.equal(s.lesson.lessons.find((l) => l.number === 1).done, true);
  } finally { await app.close(); }
});

test('hints one at a time, the solution after a confirmation (undo brings the text back), Next, and a reload', async () => {
  const app = await openApp('?lesson=1');
  const { page } = app;
  try {
    await frames(page);
    let s = await press(page, 'lesson_hint');
    assert.equal(s.lesson.hints_shown, 1);
    assert.equal(s.lesson.hints.length, 1);
    s = await press(page, 'lesson_hint');
    assert.equal(s.lesson.hints_shown, 2);
    assert.notEqual(s.lesson.hints[1], s.lesson.hints[0]);

    // Some work of the student's own, then Show solution: it asks first, and changes nothing until confirmed.
    const mine = (await source(page)) + '// my attempt\n';
    await page.evaluate((t) => window.waferlab.set_source(t), mine);
    s = await press(page, 'lesson_solution');
    assert.equal(s.lesson.confirming_solution, true);
    assert.equal(await source(page), mine);
    s = await press(page, 'lesson_solution_confirm');
    assert.equal(s.lesson.solution_shown, true);
    const solution = await source(page);
    assert.notEqual(solution, mine);
    assert.equal(s.editor.file, 'lesson01.wk');

    // Ctrl+Z in the editor brings the student's text back; Ctrl+Y the solution again.
    await clickAt(page, centreOf(s.places.editor));
    await frames(page);
    await page.keyboard.press('Control+z');
    await frames(page);
    assert.equal(await source(page), mine);
    await page.keyboard.press('Control+y');
    await frames(page);
    assert.equal(await source(page), solution);

    s = await press(page, 'lesson_check');
    assert.equal(s.lesson.verdict.passed, true, JSON.stringify(s.lesson.verdict));
    // Next keeps the lesson's work (it comes back with the lesson) and never asks.
    s = await press(page, 'lesson_next');
    assert.equal(s.lesson.current, 2);
    assert.equal(s.lesson.pending, null);
    assert.equal(s.editor.file, 'lesson02.wk');
    assert.equal(s.lesson.verdict, null);
    assert.equal(s.lesson.hints_shown, 0);

    // Progress and the open lesson come back after a reload (no ?lesson= this time).
    await page.evaluate(() => window.waferlab.save_state());
    await page.goto(page.url().replace(/\?.*$/, ''));
    await page.waitForFunction(() => window.waferlab && window.waferlab.ready === true, null, { timeout: 60000 });
    s = await state(page);
    assert.deepEqual(s.lesson.done, [1]);
    assert.equal(s.lesson.current, 2);
    assert.equal(s.lesson.panel_open, true);
    assert.equal(s.editor.file, 'lesson02.wk');
  } finally { await app.close(); }
});

test('a lesson that does not exist is said in the app, and nothing is lost', async () => {
  const app = await openApp('?lesson=99');
  const { page } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.ok(s.notices.some((n) => /there is no lesson 99: the lessons are 1 to 1\d/.test(n)), JSON.stringify(s.notices));
    assert.equal(s.lesson.current, null);
    assert.equal(s.lesson.panel_open, true);   // the list, to pick one from
    assert.ok(s.layout['lesson:1'], 'the panel lists the lessons');

    // Unsaved work in the editor: a bad number and an unconfirmed switch both leave it alone.
    await page.evaluate(() => window.waferlab.set_source('mine.wk', '// my own kernel\n'));
    await assert.rejects(page.evaluate(() => window.waferlab.open_lesson(0)), /there is no lesson 0/);
    await assert.rejects(page.evaluate(() => window.waferlab.open_lesson(2)), /mine\.wk has unsaved edits/);
    await assert.rejects(page.evaluate(() => window.waferlab.check_lesson()), /no lesson is open/);
    s = await state(page);
    assert.equal(s.lesson.current, null);
    assert.equal(s.editor.file, 'mine.wk');
    assert.equal(await source(page), '// my own kernel\n');

    // Picking a lesson in the panel asks before replacing the work; "Keep my edits" keeps it.
    s = await press(page, 'lesson:3');
    assert.equal(s.lesson.current, 3);
    assert.equal(s.lesson.pending, 'kernel');   // lesson 3's file, over edits to a file that is no lesson's
    await page.keyboard.press('Escape');
    await frames(page);
    s = await state(page);
    assert.equal(s.lesson.pending, null);
    assert.equal(await source(page), '// my own kernel\n');
  } finally { await app.close(); }
});

test('?lesson=abc is reported by the page and ignored', async () => {
  const app = await openApp('?lesson=abc');
  try {
    const notice = await app.page.locator('#notice').textContent();
    assert.match(notice, /lesson=abc ignored: expected a lesson number such as lesson=1/);
    assert.equal((await state(app.page)).lesson.current, null);
  } finally { await app.close(); }
});

test('lesson 13 in the browser: Check trains a step a frame under a progress bar, then says the loss', async () => {
  const app = await openApp('?lesson=13');
  const { page } = app;
  try {
    await frames(page);
    let s = await state(page);
    assert.equal(s.lesson.current, 13);
    assert.match(await source(page), /program crossentropy/);   // the editor holds the model's kernel
    s = await press(page, 'lesson_check');
    // A few frames in, the training is under way and the app still draws.
    assert.match(s.lesson.checking ?? '', /^Training (step \d+ of 20, batch loss \d\.\d\d|20 steps on the mesh)$/, JSON.stringify(s.lesson));
    assert.ok(s.layout.lesson_progress, 'the progress bar is drawn');
    assert.equal(s.lesson.verdict, null);
    await page.waitForFunction(() => window.waferlab.state().lesson.checking === null, null, { timeout: 60000 });
    s = await state(page);
    assert.equal(s.lesson.verdict.passed, false, JSON.stringify(s.lesson.verdict));
    const loss = s.lesson.verdict.checks.find((c) => c.kind === 'loss');
    assert.match(loss.message, /^After 20 steps on the mesh the loss is 3\.\d\d \(it started at 3\.81\); the check wants it below 3\.40\./);
    assert.ok(s.lesson.verdict.loss > 3.4);

    // The JS method runs the whole training before it returns: the solution passes.
    await page.evaluate(() => window.waferlab.show_solution(true));
    const v = await page.evaluate(() => window.waferlab.check_lesson());
    assert.equal(v.passed, true, JSON.stringify(v));
    assert.ok(v.loss < 3.4 && v.loss_start > 3.8, JSON.stringify(v));
  } finally { await app.close(); }
});

test('lesson 14 in the browser: the verdict times the kernel against the A100 model', async () => {
  const app = await openApp('?lesson=14');
  const { page } = app;
  try {
    await frames(page);
    let v = await page.evaluate(() => window.waferlab.check_lesson());
    assert.equal(v.passed, false);
    const gpu = v.checks.find((c) => c.kind === 'gpu');
    assert.match(gpu.message, /launch-bound/);
    assert.ok(v.wafer_s > v.gpu_s);
    await page.evaluate(() => window.waferlab.show_solution(true));
    v = await page.evaluate(() => window.waferlab.check_lesson());
    assert.equal(v.passed, true, JSON.stringify(v));
    assert.ok(v.wafer_s < v.gpu_s);
  } finally { await app.close(); }
});
