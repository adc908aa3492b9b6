// Hostile input in the page: the same engine checks as the CLI's catalogue (tests/cli/
// hostile_input_test.cpp), through the JS methods a page uses. Each refusal is an error that
// names the key or the place, and the page stays alive: it draws frames, and the next good
// request works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, state } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const error = (page, fn, ...args) => page.evaluate(([fn, args]) => {
  try { window.waferlab[fn](...args); return 'no error'; } catch (e) { return e.message; }
}, [fn, args]);

async function alive(page) {
  const before = (await state(page)).frame;
  await frames(page, 3);
  assert.ok((await state(page)).frame > before, 'the page stopped drawing');
}

test('a mesh that would wrap, an infinite learning rate and a model past 2 GiB are refused by key', async () => {
  const { page } = app;
  let e = await error(page, 'model_compile', 'gpt-nano', '32x32', { set: 'wafer.mesh=4294967328x32' });
  assert.match(e, /wafer\.mesh/);
  assert.match(e, /'4294967328x32'/);
  e = await error(page, 'train_start', { config: 'gpt-nano', set: 'optimizer.learning_rate=inf' });
  assert.match(e, /optimizer\.learning_rate: expected a number in 0\.\.10, got 'inf'/);
  e = await error(page, 'model_compile', 'gpt-nano', '32x32', { set: 'model.n_embd=16384,model.n_layer=1000' });
  assert.match(e, /the model needs .*model\.n_layer 1000, model\.n_embd 16384.*; this machine allows 2\.0 GiB/);
  await alive(page);
  const plan = await page.evaluate(() => window.waferlab.model_compile('gpt-nano', '32x32'));
  assert.deepEqual(plan.mesh, { w: 32, h: 32 });
});

test('a constant that would wrap is a compile error at its operator, in state()', async () => {
  const { page } = app;
  const src = 'layout {\n    grid 1 x 1;\n    place p at (0, 0);\n}\nprogram p {\n    var r: [i32; 1];\n' +
              '    export fn main() {\n        r[0] = 1 << 40;\n    }\n}\n';
  await page.evaluate((s) => { window.waferlab.set_source('shift.wk', s); }, src);
  await page.evaluate(() => { try { window.waferlab.compile(); } catch (e) { /* the diagnostics say why */ } });
  await frames(page, 3);
  const d = (await state(page)).diagnostics.find((x) => x.severity === 'error');
  assert.ok(d, 'no error');
  assert.equal(d.line, 8);
  assert.equal(d.col, 18);
  assert.match(d.message, /shift by 40 in a constant expression/);
  await alive(page);
});

test('a number that would wrap is refused by its key, and a file that is not a checkpoint leaves the model loaded', async () => {
  const { page } = app;
  // Through get<int>() these were 32 and colour 3: the JS API reads numbers with the CLI's parser.
  let e = await error(page, 'set_mesh', 4294967328, 32);
  assert.match(e, /'w' expects an integer in 1\.\.256, got 4294967328/);
  e = await error(page, 'canvas', { overlay_colour: 4294967299 });
  assert.match(e, /'overlay_colour' expects an integer in 0\.\.23, got 4294967299/);
  e = await error(page, 'train_start', { config: 'gpt-nano', steps: 2.5 });
  assert.match(e, /'steps' expects an integer in 1\.\.10000000, got 2\.5/);
  const plan = await page.evaluate(() => window.waferlab.model_compile('gpt-nano', '32x32'));
  e = await error(page, 'model_compile', 'gpt-nano', '32x32', { checkpoint: 'models/gpt-nano.yaml' });
  assert.match(e, /models\/gpt-nano\.yaml: not a WaferLab GPT checkpoint/);
  e = await error(page, 'model_compile', 'gpt-nano', '32x32', { checkpoint: 'models/none.ckpt' });
  assert.match(e, /models\/none\.ckpt: cannot open checkpoint file/);
  // A file that is not a config, opened as one: the place in it, as the CLI says it.
  e = await error(page, 'model_compile', 'lessons/01-one-pe/check.txt', '32x32');
  assert.match(e, /lessons\/01-one-pe\/check\.txt:4:1: /);
  await alive(page);
  const m = (await state(page)).model;
  assert.equal(m.compiled, true, 'the last good model is still loaded');
  assert.equal(m.model, plan.model);
});
