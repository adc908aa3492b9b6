// Kernels in the app: load an example, compile it, type a mistake, see it reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames, imageStats, clickAt, centreOf, onPage } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

test('every example is listed and hello loads and compiles cleanly', async () => {
  const s0 = await state();
  for (const name of ['hello', 'broadcast', 'reduction', 'gemv', 'stencil', 'summa', 'cannon', 'allreduce'])
    assert.ok(s0.examples.includes(name), `${name} missing from ${s0.examples}`);
  await app.page.evaluate(() => window.waferlab.load_example('hello'));
  await app.page.evaluate(() => window.waferlab.compile());
  const s = await state();
  assert.equal(s.example, 'hello');
  assert.equal(s.editor.file, 'hello.wk');
  assert.deepEqual(s.diagnostics, []);
  assert.equal(s.compiled, true);
});

test('a syntax error typed with the keyboard is reported with its place, in state() and on screen', async () => {
  const { page } = app;
  await page.evaluate(() => { window.waferlab.load_example('hello', true); window.waferlab.editor(true); });
  await frames(page);
  const editor = (await state()).places.editor;
  await clickAt(page, centreOf(editor));              // into the editor's text
  await frames(page);                                // the click activates the editor first
  await page.keyboard.press('Control+Home');         // line 1, col 1
  await frames(page);
  await page.keyboard.type('program {\n');
  await frames(page, 4);
  const s = await state();
  assert.equal(s.editor.modified, true);
  assert.ok(s.diagnostics.length >= 1, JSON.stringify(s.diagnostics));
  const d = s.diagnostics[0];
  assert.equal(d.severity, 'error');
  assert.equal(d.file, 'hello.wk');
  assert.equal(d.line, 1);
  assert.equal(d.col, 9);
  assert.match(d.message, /expected/);
  // On screen: the diagnostics list at the bottom of the editor window holds red text.
  const at = await onPage(page, { x: editor.x, y: editor.y + editor.h - 100 });
  const png = await page.screenshot({ clip: { ...at, width: editor.w, height: 100 } });
  const { red } = await imageStats(page, png);
  assert.ok(red > 20, `only ${red} red pixels where the diagnostics list should be`);
});

test('loading an example never silently discards unsaved edits', async () => {
  await app.page.evaluate(() => {
    window.waferlab.load_example('hello', true);
    window.waferlab.set_source('// an unsaved edit\n' + window.waferlab.get_source().text);
  });
  assert.equal((await state()).editor.modified, true);
  const msg = await app.page.evaluate(() => { try { window.waferlab.load_example('reduction'); return 'loaded'; } catch (e) { return e.message; } });
  assert.match(msg, /hello\.wk has unsaved edits; pass discard=true/);
  assert.equal((await state()).example, 'hello');
  await app.page.evaluate(() => window.waferlab.load_example('reduction', true));
  const s = await state();
  assert.equal(s.example, 'reduction');
  assert.equal(s.editor.modified, false);
});

test('unknown examples are clear errors', async () => {
  const msg = await app.page.evaluate(() => { try { window.waferlab.load_example('nope', true); return 'loaded'; } catch (e) { return e.message; } });
  assert.match(msg, /no example named 'nope'/);
});

test('compare(config, gpu) returns the GPU model against the wafer, and bad input is a clear error', async () => {
  const r = await app.page.evaluate(() => window.waferlab.compare('gpt-nano', 'a100'));
  assert.ok(Array.isArray(r.gpu.ops) && r.gpu.ops.length > 10, JSON.stringify(Object.keys(r.gpu)));
  assert.equal(r.gpu.ops.length, r.wafer.ops.length);
  assert.ok(r.ratio_gpu_over_wafer > 0);
  assert.match(r.gpu_sentence, /A100/);
  const msg = await app.page.evaluate(() => { try { window.waferlab.compare('gpt-nano', 'tpu9'); return 'ok'; } catch (e) { return e.message; } });
  assert.match(msg, /tpu9/);
  await frames(app.page);
});
