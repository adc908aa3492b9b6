// The PE inspector through window.waferlab: inspect(x, y) reads a PE of the loaded kernel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const call = (method, args = null) => app.page.evaluate(([m, a]) => {
  try { return window.waferlab.call(m, a); } catch (e) { return { thrown: e.message }; }
}, [method, args]);

test('inspect before anything is loaded is a clear error', async () => {
  await call('set_mesh', { w: 8, h: 8 });   // an empty mesh: no kernel loaded
  const r = await call('inspect', { x: 0, y: 0 });
  assert.match(r.thrown, /inspect: no kernel is loaded/);
});

test('inspect(x, y) shows symbols with values, tasks, colours and counters after a run', async () => {
  await app.page.evaluate(() => window.waferlab.load_example('hello'));
  await app.page.evaluate(() => window.waferlab.run());   // resolves when the run has stopped
  const pe = await app.page.evaluate(() => window.waferlab.inspect(1, 0));
  assert.equal(pe.program, 'receiver');
  const y = pe.symbols.find((s) => s.name === 'y');
  assert.deepEqual(y.values, [2, 4, 6, 8]);
  assert.equal(y.type, 'f32');
  assert.deepEqual(pe.tasks.map((t) => [t.name, t.kind, t.colour, t.state]), [['got', 'data', 3, 'idle']]);
  assert.equal(pe.colours[0].name, 'msg');
  assert.deepEqual(pe.colours[0].route, [{ rx: '{W}', tx: '{RAMP}' }]);
  assert.equal(pe.counters.received, 4);
  assert.equal(pe.instr, null);   // idle at the end
  const bad = await call('inspect', { x: 2, y: 0 });
  assert.match(bad.thrown, /inspect: 'x' expects an integer in 0\.\.1, got 2/);
});

test('mid-run the current instruction comes with its kernel line', async () => {
  await call('load_example', { name: 'hello', discard: true });
  await app.page.evaluate(() => window.waferlab.run(5));
  const pe = await app.page.evaluate(() => window.waferlab.inspect(0, 0));
  assert.match(pe.thread.state, /main/);
  assert.match(pe.instr.where, /^hello\.wk:\d+:\d+$/);
  assert.ok(pe.instr.source.length > 0, JSON.stringify(pe.instr));
  await app.page.evaluate(() => window.waferlab.select_pe(0, 0));
  await frames(app.page);
});
