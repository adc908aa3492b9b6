// The Cycle / Fast switch in the page: clicked with the mouse or set by set_mode(), fast mode
// prints what cycle mode prints, labels its cycles as estimated, reloads at cycle 0, and is
// remembered across a reload; an unknown mode name is refused and changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state as stateOf, clickAt, centreOf } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=summa'); });
after(async () => { await app?.close(); });

const state = () => stateOf(app.page);
const run = () => app.page.evaluate(() => window.waferlab.run());   // to the end, a slice per frame
const setMode = (m) => app.page.evaluate((m) => window.waferlab.set_mode(m), m);
const errorOf = (fn, arg) => app.page.evaluate(([src, arg]) => {
  try { new Function(`return (${src})`)()(arg); return null; } catch (e) { return e.message; }
}, [fn.toString(), arg]);

// Cycle mode's output and cycle count for the loaded example, from a fresh run.
async function cycleModeRun() {
  await setMode('cycle');
  await app.page.evaluate(() => window.waferlab.reset());
  const s = await run();
  assert.equal(s.run_mode, 'cycle');
  assert.equal(s.done, true);
  assert.equal(s.error, null);
  assert.ok(s.output.length > 0);
  return s;
}

function assertSameRun(fast, cycle) {
  assert.equal(fast.run_mode, 'fast');
  assert.equal(fast.done, true);
  assert.equal(fast.error, null);
  assert.deepEqual(fast.output, cycle.output, 'fast mode printed something else');
  // The estimate is held to 10% of the real count (docs/engine.md, Fast mode).
  assert.ok(Math.abs(fast.cycle - cycle.cycle) <= 0.1 * cycle.cycle, `estimate ${fast.cycle} vs ${cycle.cycle} cycles`);
}

test('a click on Fast reloads at cycle 0, runs to the same output, and the cycles read as estimated', async () => {
  const { page } = app;
  const s0 = await state();
  assert.equal(s0.example, 'summa');
  assert.equal(s0.run_mode, 'cycle', 'cycle mode is the default');
  const cycle = await cycleModeRun();
  assert.ok(!cycle.canvas.legend[0].title.includes('estimated'), cycle.canvas.legend[0].title);

  await frames(page);
  await clickAt(page, centreOf((await state()).layout.mode_fast));   // where the toolbar drew it
  await page.waitForFunction(() => window.waferlab.state().run_mode === 'fast', null, { timeout: 20000 });
  const loaded = await state();
  assert.equal(loaded.cycle, 0, 'a switch reloads the kernel at cycle 0');
  assert.equal(loaded.done, false);
  assert.equal(loaded.loaded, true);
  assert.deepEqual(loaded.output, []);

  const fast = await run();
  assertSameRun(fast, cycle);
  await frames(page);
  const legend = (await state()).canvas.legend[0].title;
  assert.match(legend, /^busy, .*estimated$/, 'the canvas legend does not say the cycles are estimated');

  await clickAt(page, centreOf((await state()).layout.mode_cycle));
  await page.waitForFunction(() => window.waferlab.state().run_mode === 'cycle', null, { timeout: 20000 });
  assert.equal((await state()).cycle, 0);
});

test('set_mode("fast") runs to the same output, and reads back in state()', async () => {
  const cycle = await cycleModeRun();
  const s = await setMode('fast');
  assert.equal(s.run_mode, 'fast');
  assert.equal(s.cycle, 0);
  assert.equal(s.done, false);
  assertSameRun(await run(), cycle);
  assert.equal((await state()).run_mode, 'fast');
  assert.equal((await setMode('fast')).done, true, 'the same mode again reloads nothing');
});

test('an unknown mode is refused with a clear error and changes nothing', async () => {
  await setMode('cycle');
  await app.page.evaluate(() => window.waferlab.reset());
  const mid = await app.page.evaluate(() => window.waferlab.run(50));
  assert.equal(mid.cycle, 50);
  const turbo = await errorOf((m) => window.waferlab.set_mode(m), 'turbo');
  assert.equal(turbo, 'set_mode: unknown mode "turbo": use "cycle" or "fast"');
  const none = await errorOf(() => window.waferlab.set_mode());
  assert.match(none, /^set_mode: unknown mode .*: use "cycle" or "fast"$/);
  const s = await state();
  assert.equal(s.run_mode, 'cycle');
  assert.equal(s.cycle, 50, 'a refused mode must not reload the kernel');
});

test('the chosen mode survives a reload', async () => {
  const { page } = app;
  await setMode('fast');
  await page.evaluate(() => window.waferlab.save_state());
  assert.equal((await state()).persisted, true);
  await page.reload();
  await page.waitForFunction(() => window.waferlab && window.waferlab.ready === true, null, { timeout: 60000 });
  const s = await state();
  assert.equal(s.run_mode, 'fast');
  assert.equal(s.example, 'summa');
  assert.equal(s.cycle, 0);
  await setMode('cycle');
});

test('set_optimise(true) rebuilds the kernel with the optimising code generator: the same output in fewer cycles, remembered', async () => {
  const { page } = app;
  const plain = await cycleModeRun();
  let s = await page.evaluate(() => window.waferlab.set_optimise(true));
  assert.equal(s.optimise, true);
  assert.equal(s.cycle, 0, 'a rebuilt kernel starts at cycle 0');
  const opt = await run();
  assert.equal(opt.done, true);
  assert.equal(opt.error, null);
  assert.deepEqual(opt.output, plain.output, 'optimised code printed something else');
  assert.ok(opt.cycle < plain.cycle, `optimised ${opt.cycle} cycles, plain ${plain.cycle}`);
  assert.match(await errorOf((v) => window.waferlab.set_optimise(v), 'yes'), /^set_optimise: 'on' must be true or false$/);
  assert.equal((await state()).optimise, true, 'a refused value changes nothing');
  await page.evaluate(() => window.waferlab.save_state());
  await page.reload();
  await page.waitForFunction(() => window.waferlab && window.waferlab.ready === true, null, { timeout: 60000 });
  assert.equal((await state()).optimise, true, 'remembered across a reload');
  s = await page.evaluate(() => window.waferlab.set_optimise(false));
  assert.equal(s.optimise, false);
});
