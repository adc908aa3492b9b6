// The browser half of the adversarial catalogue (tests/kernels/adversarial/, docs/reliability.md):
// hostile kernels loaded one after another into one page. For each, frames keep coming while it
// runs, Space pauses one that is still running, and its error is shown in the log (in red, with
// the PE) and in the editor (a marker at its line). Each kernel's verdict is read from its own
// `// expect fault` line, so the page is held to what the native and WASM suites check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp, frames, imageStats, pixelsNear, focusCanvas, onPage } from './browser.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = path.join(root, 'tests', 'kernels', 'adversarial');

// `long`: it cannot end within a few frames (a loop stopped by the app's 50M-cycle watchdog), so
// Space must find it running. The watchdog stops it at its loop's line, at whichever instruction
// the budget ends on (the catalogue's 200,000-cycle budget names another column). It takes about
// a minute in the page in cycle mode, so loop_main is run to it in fast mode; loop_task is paused,
// resumed and reset.
const FAULTS = [
  { file: 'loop_main.wk', long: true },
  { file: 'loop_task.wk', long: true, pauseOnly: true },
  { file: 'deadlock_recv_recv.wk' },
  { file: 'flood.wk' },
  { file: 'oob_scalar.wk' },
];

// The verdict a catalogue kernel states: `// expect fault KIND at PE (x,y) [file:line:col]`.
function expectedFault(src, file) {
  const m = src.match(/^\/\/ expect fault (\w+) at PE \((\d+),(\d+)\) \[([^\]:]+):(\d+):(\d+)\]$/m);
  assert.ok(m, `${file} states no fault`);
  return { kind: m[1], pe: { x: +m[2], y: +m[3] }, where: `${m[4]}:${m[5]}:${m[6]}`, line: +m[5] };
}

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

async function until(pred, what, timeout = 120000) {
  await app.page.waitForFunction(`(${pred})(window.waferlab.state())`, null, { timeout, polling: 100 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });
  return state();
}

// Pixels of the error marker's red in the editor's gutter (left of the text) beside 1-based `line`.
async function markerInGutter(page, line) {
  const s = await state();
  const g = s.editor.text_geometry, ed = s.places.editor;
  const y = g.y + (line - 1) * g.line_h;
  assert.ok(y >= ed.y && y + g.line_h <= ed.y + ed.h, `line ${line} is not on screen in the editor`);
  const at = await onPage(page, { x: ed.x, y });
  const png = await page.screenshot({ clip: { x: at.x, y: at.y, width: g.x - ed.x, height: g.line_h } });
  return (await pixelsNear(page, png, [255, 85, 85], 40)).length;
}

for (const { file, long, pauseOnly } of FAULTS) {
  test(`${file}: the page keeps drawing${long ? ', Space pauses it' : ''}${pauseOnly ? '' : ', and its error is in the log and the editor'}`, async () => {
    const { page } = app;
    const src = fs.readFileSync(path.join(dir, file), 'utf8');
    const want = expectedFault(src, file);
    await focusCanvas(page);                              // Space goes to the app, not the editor
    await page.evaluate(([f, text]) => {
      window.waferlab.set_mode('cycle');                  // the run before may have left fast mode, where a long one ends in a second
      window.waferlab.set_source(f, text);
      window.waferlab.compile();
      window.waferlab.call('run', null);
    }, [file, src]);
    const a = await state();
    assert.equal(a.loaded, true, `${file} did not load: ${JSON.stringify(a.diagnostics)}`);
    await frames(page, 5);                                // frames keep coming while it runs
    if (long) {
      const b = await state();
      assert.equal(b.running, true, `${file} stopped early: ${JSON.stringify(b.error)}`);
      assert.ok(b.cycle > a.cycle, `${b.cycle} > ${a.cycle}`);
      await page.keyboard.press('Space');                 // pause
      const c = await until((st) => !st.running, 'the pause');
      await frames(page, 3);
      const d = await state();
      assert.equal(d.cycle, c.cycle, 'a paused run went on');
      assert.equal(d.error, null);
      await page.evaluate(() => window.waferlab.call('run', null));   // on again, to its end (Space would play at 20 cycles/s)
      await frames(page, 3);
      assert.equal((await state()).running, true, 'it did not resume');
      if (pauseOnly) {
        await page.evaluate(() => window.waferlab.reset());
        assert.equal((await state()).cycle, 0);
        return;
      }
      // The watchdog fires after 50 M cycles: a minute of cycle mode in the page, a second or two of
      // fast mode (the same budget, the same fault). Fast mode reloads at cycle 0; run it to its end.
      await page.evaluate(() => { window.waferlab.set_mode('fast'); window.waferlab.call('run', null); });
    }
    const s = await until((st) => !st.running && st.error !== null, `${file}'s error`);
    assert.equal(s.error.kind, want.kind, s.error.message);
    assert.deepEqual(s.error.pe, want.pe, s.error.message);
    if (long) assert.ok(s.error.where.startsWith(`${file}:${want.line}:`), s.error.message);
    else assert.equal(s.error.where, want.where, s.error.message);
    await frames(page, 3);

    // The log: the error line in red, naming the PE.
    const t = await state();
    const line = t.layout.log_error;
    assert.ok(line, 'no error line in the log');
    const clip = { ...(await onPage(page, line)), width: line.w, height: line.h };
    assert.ok((await imageStats(page, await page.screenshot({ clip }))).red > 20, 'the error line is not red');
    assert.match(s.error.message, new RegExp(`\\(${want.pe.x},\\s*${want.pe.y}\\)`));

    // The editor: a marker at the fault's line. Clicking the log's error shows that line there;
    // the marker's red is on it until a reset clears the error.
    assert.deepEqual(t.editor.fault_marker && t.editor.fault_marker.line, want.line);
    assert.equal(t.editor.fault_marker.message, s.error.message);
    await page.mouse.click((await onPage(page, line)).x + 10, (await onPage(page, line)).y + 5);
    await frames(page, 3);
    assert.deepEqual((await state()).selected_pe, want.pe);
    const marked = await markerInGutter(page, want.line);
    await page.evaluate(() => { window.waferlab.reset(); window.waferlab.set_mode('cycle'); });
    await frames(page, 3);
    assert.equal((await state()).editor.fault_marker, null);
    const cleared = await markerInGutter(page, want.line);
    assert.ok(marked >= 4 && cleared === 0, `no marker at line ${want.line}: ${marked} marker px with the error, ${cleared} without`);
  });
}

test('print_megabytes.wk: 15 MB of prints are cut at the limit with a notice, and the page keeps drawing', async () => {
  const { page } = app;
  const file = 'print_megabytes.wk';
  const src = fs.readFileSync(path.join(dir, file), 'utf8');
  await page.evaluate(([f, text]) => {
    window.waferlab.set_source(f, text);
    window.waferlab.compile();
    window.waferlab.call('run', null);
  }, [file, src]);
  const s = await until((st) => st.done, 'the prints');
  assert.equal(s.error, null);
  const notice = s.output[s.output.length - 1];
  const m = notice.match(/^\.\.\. output truncated after (\d+) bytes/);
  assert.ok(m, `the output does not end with the notice: ${notice.slice(0, 80)}`);
  const kept = s.output.slice(0, -1).reduce((n, l) => n + l.length, 0);
  assert.equal(kept, +m[1], 'what is shown is not the limit');
  await frames(page, 10);                                 // drawing the log does not stall the page
  const log = (await state()).places.log;
  assert.ok(log, 'the log is not shown');
});

test('loop_main.wk: long before the watchdog, the log says the run has not finished and where each PE is', async () => {
  const { page } = app;
  const file = 'loop_main.wk';
  const src = fs.readFileSync(path.join(dir, file), 'utf8');
  await page.evaluate(([f, text]) => { window.waferlab.set_source(f, text); window.waferlab.compile(); }, [file, src]);
  await page.evaluate(() => window.waferlab.step(250000));   // a lesson's kernel ends within thousands of cycles
  await frames(page, 3);
  const s = await state();
  assert.equal(s.error, null);
  assert.ok(s.cycle >= 200000, `cycle ${s.cycle}`);
  assert.match(s.still_running ?? '', /^Still running after [\d,]+ cycles: .*PE \(0,0\): .* at loop_main\.wk:11:/, s.still_running);
  assert.ok(s.layout.log_still_running, 'the log shows it');
  await page.evaluate(() => window.waferlab.reset());
  await frames(page, 2);
  assert.equal((await state()).still_running, null);
});
