// A kernel that hangs, read as a student reads it: lesson 11's deadlock run with F5, then a
// `while true {}` of one's own typed over it and run to its end (F6), in cycle mode to the early
// "still running" notice and in fast mode to the watchdog. The log says the kind, PE and cycle once, then each
// stuck place in plain words with the machine's word beside them ("main (the launched function)",
// "(instruction fmovs)", "(not quiescent)"): no line twice, no bare "task -1", "quiescent" or "jmp".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state as stateOf, clickAt, centreOf, focusCanvas, imageStats, onPage } from './browser.mjs';

let app;
before(async () => { app = await openApp('?lesson=11', { width: 1366, height: 768 }); });
after(async () => { await app?.close(); });

const state = () => stateOf(app.page);
const until = (pred, what) => app.page.waitForFunction(`(${pred})(window.waferlab.state())`, null, { timeout: 120000, polling: 100 })
  .then(state, () => { throw new Error(`timed out waiting for ${what}`); });

// Words a student can read: the machine's terms only in brackets beside them, nothing said twice.
function assertPlainWords(text, kind) {
  assert.doesNotMatch(text, /task -1/, text);
  assert.doesNotMatch(text.replaceAll('(not quiescent)', ''), /quiescent/, text);
  assert.doesNotMatch(text.replace(/\(instruction \w+\)/g, ''), /\b(jmp|bz|li|fmovs|recv)\b/, text);
  const lines = text.split('\n');
  assert.equal(new Set(lines).size, lines.length, `a line said twice:\n${text}`);
  if (kind) assert.equal(text.split(kind).length, 2, `"${kind}" said more than once:\n${text}`);
}

// The log's error line is on screen, inside the log, in red.
async function assertInLog(name) {
  const s = await state();
  const line = s.layout[name], log = s.places.log;
  assert.ok(line && log, `no ${name} in the log`);
  assert.ok(line.y >= log.y && line.y < log.y + log.h, `${name} is outside the log window`);
  return { s, line };
}

test('lesson 11\'s deadlock: the log names the PE, the colour and the line, in plain words, once', async () => {
  const { page } = app;
  await focusCanvas(page);
  await page.keyboard.press('F5');
  await until((st) => st.error !== null, 'the deadlock');
  await frames(page, 3);   // the log draws it
  const s = await state();
  const file = s.editor.file, m = s.error.message;
  assert.equal(s.error.kind, 'deadlock');
  assert.deepEqual(s.error.pe, { x: 1, y: 0 });
  assert.equal(s.error.colour, 2);
  assert.equal(s.status, 'stopped by an error');
  // The head, then the one place that waits, at the line the head names.
  const where = s.error.where.replace(/\./g, '\\.');
  assert.match(m, new RegExp(`^deadlock at PE \\(1,0\\) colour 2 \\[${where}\\] cycle \\d+: nothing can move any more, yet 1 place still waits:\\n` +
                             `  PE \\(1,0\\): main \\(the launched function\\) at ${where} \\(instruction fmovs\\) waits for wavelets on colour 2: 7 of 8 done$`), m);
  assert.ok(s.error.where.startsWith(`${file}:`), s.error.where);
  assertPlainWords(m, 'deadlock');
  const { line } = await assertInLog('log_error');
  const clip = { ...(await onPage(page, line)), width: line.w, height: line.h };
  assert.ok((await imageStats(page, await page.screenshot({ clip }))).red > 20, 'the error line is not red');
});

test('`while true {}` of one\'s own: "still running" early, then the watchdog, in plain words', async () => {
  const { page } = app;
  // Over the lesson's kernel: select all in the editor and type (Enter keeps the indent).
  await clickAt(page, centreOf((await state()).places.editor));
  await frames(page);
  assert.equal((await state()).editor.focused, true);
  await page.keyboard.press('Control+a');
  for (const l of ['layout { grid 1 x 1; place p at (0, 0); }', 'program p {', '    export fn main() {', '        while true {}', '}', '}',
                   'host { launch main at (0, 0); run; }']) {
    await page.keyboard.type(l.trimStart());
    await page.keyboard.press('Enter');
  }
  await page.keyboard.press('Control+Enter');
  await frames(page);
  let s = await state();
  assert.equal(s.compiled, true, JSON.stringify(s.diagnostics));
  const file = s.editor.file.replace(/\./g, '\\.');

  // Cycle mode, F6 (to the end): long before the watchdog the log says it has not finished, and where.
  await focusCanvas(page);
  await page.keyboard.press('F6');
  s = await until((st) => st.still_running !== null, 'the still-running notice');
  const early = s.still_running;
  assert.match(early, new RegExp('^Still running after [\\d,]+ cycles: a kernel that should have finished may be in a loop that never ends\\. ' +
                                 `PE \\(0,0\\): main \\(the launched function\\) runs at ${file}:4:\\d+ \\(instruction (li|bz|jmp)\\)$`), early);
  assertPlainWords(early, 'Still running');
  await frames(page, 2);   // the log draws it
  await assertInLog('log_still_running');

  // Fast mode (the toolbar's switch reloads at cycle 0), F6 to the end: the watchdog stops it.
  await clickAt(page, centreOf(s.layout.mode_fast));
  await until((st) => st.run_mode === 'fast' && st.cycle === 0, 'fast mode');
  await focusCanvas(page);
  await page.keyboard.press('F6');
  s = await until((st) => st.error !== null, 'the watchdog');
  const m = s.error.message;
  assert.equal(s.error.kind, 'watchdog');
  assert.deepEqual(s.error.pe, { x: 0, y: 0 });
  assert.match(m, new RegExp(`^watchdog at PE \\(0,0\\) \\[${file}:4:\\d+\\] cycle 50000000: still running \\(not quiescent\\) when its budget ` +
                             `of 50,000,000 cycles ran out:\\n  PE \\(0,0\\): main \\(the launched function\\) runs at ${file}:4:\\d+ ` +
                             '\\(instruction (li|bz|jmp)\\)$'), m);
  assertPlainWords(m, 'watchdog');
  await frames(page, 2);
  await assertInLog('log_error');
});
