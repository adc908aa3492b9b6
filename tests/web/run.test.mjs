// Running kernels in the page: an example runs to completion with the same
// output as the native CLI; a runtime error names its PE and line while the
// page stays responsive; a kernel that never stops can be paused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp, frames, imageStats, focusCanvas, onPage } from './browser.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = process.env.WAFERLAB_CLI || path.join(root, 'build', 'native', 'cli', 'waferlab-cli');

let app;
before(async () => { app = await openApp('?example=gemv'); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

// Polls state() until pred holds (the page renders frames meanwhile).
async function until(pred, what, timeout = 60000) {
  await app.page.waitForFunction(`(${pred})(window.waferlab.state())`, null, { timeout, polling: 50 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });
  return state();
}

test('an example runs to completion with F6 and prints what the native CLI prints', async () => {
  await app.page.evaluate(() => window.waferlab.load_example('gemv', true));
  const s0 = await state();
  assert.equal(s0.example, 'gemv');
  assert.equal(s0.loaded, true);
  assert.equal(s0.cycle, 0);
  assert.equal(s0.running, false);
  await focusCanvas(app.page);                        // keys go to the app, not the editor
  await app.page.keyboard.press('F6');                // run to completion
  const s = await until((st) => st.done, 'the run to finish');
  assert.equal(s.error, null);
  assert.equal(s.running, false);
  const native = JSON.parse(execFileSync(cli, ['run', path.join(root, 'examples', 'gemv.wk'), '--json']).toString());
  assert.deepEqual(s.output, native.output, 'WASM and native print different results');
  assert.equal(s.cycle, native.cycles);
});

test('run(cycles) stops exactly, rewind and reset go back, and a second pass gives the same output', async () => {
  const { page } = app;
  await page.evaluate(() => window.waferlab.load_example('gemv', true));
  assert.equal((await state()).cycle, 0);
  const s50 = await page.evaluate(() => window.waferlab.run(50));
  assert.equal(s50.cycle, 50);
  assert.equal(s50.done, false);
  await page.evaluate(() => window.waferlab.rewind(20));
  const s20 = await page.evaluate(() => window.waferlab.whenStopped());
  assert.equal(s20.cycle, 20);
  const end = await page.evaluate(() => window.waferlab.run());
  assert.equal(end.done, true);
  const first = (await state()).output;
  assert.ok(first.length > 0);
  await page.evaluate(() => window.waferlab.reset());
  const again = await page.evaluate(() => window.waferlab.run());
  assert.deepEqual(again.output, first);
  const bad = await page.evaluate(() => { try { window.waferlab.call('run', { cycles: -3 }); return 'ran'; } catch (e) { return e.message; } });
  assert.match(bad, /'cycles' expects an integer in 1\.\.1000000000000, got -3/);
});

const OOB = `// an out-of-bounds store on one PE of four
layout {
    grid 2 x 2;
    place p at (0..2, 0..2) with (me = x + 2 * y);
}

program p(me: i32) {
    var a: [f32; 4];
    export fn main() {
        let i: i32 = 3;
        if me == 3 { i = 40000; }
        a[i] = 1.0;
    }
}

host {
    launch main at (0..2, 0..2);
    run;
}
`;

test('a runtime error names its PE and line, shows on screen, and the page stays responsive', async () => {
  const { page } = app;
  await page.evaluate((src) => window.waferlab.set_source('oob.wk', src), OOB);
  await focusCanvas(page);                            // the canvas has focus: keys go to the app
  await page.keyboard.press('Control+Enter');         // compile and load
  const loaded = await until((st) => st.loaded && st.compiled && st.mesh.w === 2, 'the kernel to load');
  assert.deepEqual(loaded.diagnostics, []);
  await page.keyboard.press('F5');                    // run
  const s = await until((st) => st.error !== null, 'the error');
  assert.equal(s.running, false);
  assert.equal(s.done, true);
  assert.deepEqual(s.error.pe, { x: 1, y: 1 });
  assert.equal(s.error.line, 12);
  assert.match(s.error.where, /^oob\.wk:12:\d+$/);
  assert.match(s.error.message, /\(1,\s*1\)/);
  // On screen: the log window shows the error in red.
  await frames(page, 3);
  const log = (await state()).places.log;
  const png = await page.screenshot({ clip: { ...(await onPage(page, log)), width: log.w, height: log.h } });
  assert.ok((await imageStats(page, png)).red > 20, 'no red error text in the log window');
  // Still responsive: frames keep coming, a click selects a PE, another kernel loads and runs.
  await frames(page, 5);
  await page.evaluate(() => window.waferlab.load_example('hello', true));
  const ok = await page.evaluate(() => window.waferlab.run());
  assert.equal(ok.error, null);
  assert.equal(ok.done, true);
});

const SPIN = fs.readFileSync(path.join(root, 'tests', 'fixtures', 'spin.wk'), 'utf8');

test('a kernel that never stops runs in slices: the page keeps drawing, and pause stops it', async () => {
  const { page } = app;
  await focusCanvas(page);                            // Space below goes to the app
  await page.evaluate((src) => { window.waferlab.set_source('spin.wk', src); window.waferlab.compile(); window.waferlab.call('run', null); }, SPIN);
  const a = await state();
  assert.equal(a.running, true);
  await frames(page, 10);                             // frames render while it runs
  const b = await state();
  assert.ok(b.cycle > a.cycle, `${b.cycle} > ${a.cycle}`);
  assert.equal(b.running, true);
  await page.keyboard.press('Space');                 // pause
  const c = await until((st) => !st.running, 'the pause');
  await frames(page, 3);
  assert.equal((await state()).cycle, c.cycle);
  assert.equal(c.error, null);
});

test('odd run URL parameters are reported and ignored', async () => {
  const other = await openApp('?example=hello&run=lots');
  try {
    const s = await other.page.evaluate(() => window.waferlab.state());
    assert.equal(s.example, 'hello');
    assert.equal(s.cycle, 0);
    const notice = await other.page.evaluate(() => document.getElementById('notice')?.textContent || '');
    assert.match(notice, /run=lots ignored/);
  } finally {
    await other.close();
  }
});

test('?run=all runs the example to its end on load', async () => {
  const other = await openApp('?example=broadcast&run=all');
  try {
    await other.page.waitForFunction(() => window.waferlab.state().done, null, { timeout: 60000 });
    const s = await other.page.evaluate(() => window.waferlab.state());
    assert.equal(s.error, null);
    assert.ok(s.output.length > 0);
  } finally {
    await other.close();
  }
});
