// The Model window's Open weights… in the browser: llm.c's GPT-2 weight files (gpt2_124M.bin's
// format) read from the browser's file picker into the tab, loaded by the engine's llm.c reader
// and generating on the mesh; a corrupt or cut file refused with the engine's words, the model
// loaded before kept; GPT-2 small's header refused before its 500 MB are read, with what it needs
// and what the tab has. The files are written here: gpt-nano's shape (3 layers, 4 heads, 64
// channels, 64 positions) with GPT-2's vocabulary, as tests/ui/model_session_test.cpp writes them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openApp, frames, state, onPage, centreOf, outDir } from './browser.mjs';

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const until = (page, fn, arg, timeout = 120000) => page.waitForFunction(fn, arg, { timeout, polling: 'raf' });

// llm.c's file: int32 header[256] (magic 20240326, version, maxT, V, L, NH, C, and Vp for version 3),
// then the f32 parameters in llm.c's order, wte with Vp rows (the padding rows Vp - V never read).
// Runs in node and in the page (toString), so it uses nothing from outside.
function llmcFile({ version = 1, L = 3, NH = 4, C = 64, maxT = 64, V = 50257, Vp = 50304, seed = 5 } = {}) {
  const rows = version === 3 ? Vp : V;
  const floats = rows * C + maxT * C + L * (12 * C * C + 13 * C) + 2 * C;   // wte, wpe, the layers' tensors, lnf
  const bytes = new Uint8Array(1024 + 4 * floats);
  new Int32Array(bytes.buffer, 0, 8).set([20240326, version, maxT, V, L, NH, C, version === 3 ? Vp : 0]);
  const w = new Float32Array(bytes.buffer, 1024);
  let x = seed >>> 0;
  for (let i = 0; i < w.length; i++) {   // small weights from a fixed LCG: a model with sure logits
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    w[i] = (x / 4294967296 - 0.5) * 0.1;
  }
  if (version === 3) w.fill(NaN, V * C, Vp * C);   // the padding rows: a reader that took them would refuse NaN
  return bytes;
}

const settings = { config: 'gpt-nano', mesh: '64x64', set: 'train_input.tokenizer=bpe,model.block_size=16' };
const source = (name) => `llm.c weights ${name} (the first 16 of its 64 positions)`;

// Opens `file` through the page's openWeightsFile, the File made in the page.
const openInPage = (page, name, opts, options) => page.evaluate(async ([src, name, opts, options]) => {
  const bytes = new Function(`return (${src})`)()(opts);
  return window.waferlab.openWeightsFile(new File([bytes], name), options);
}, [llmcFile.toString(), name, opts, options]);

// Chooses `buffer` as `name` in the picker the Model window's Open weights… button opens.
async function pick(page, name, buffer) {
  await frames(page, 2);
  const s = await state(page);
  assert.ok(s.model.layout.open_weights, `no Open weights… button: ${Object.keys(s.model.layout).join(' ')}`);
  const at = await onPage(page, centreOf(s.model.layout.open_weights));
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.mouse.click(at.x, at.y)]);
  assert.equal(await chooser.element().getAttribute('accept'), '.bin');
  await chooser.setFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(buffer) });
}

test('llm.c weights open in the tab and generate on the mesh, the reference\'s tokens', async () => {
  const { page } = app;
  const plan = await openInPage(page, 'tiny.bin', {}, { ...settings, show: true });
  assert.equal(plan.error, undefined, plan.error);
  assert.equal(plan.model, source('tiny.bin'));
  assert.deepEqual(plan.mesh, { w: 64, h: 64 });
  assert.equal(plan.shape.vocab_size, 50257);
  assert.equal(plan.shape.block_size, 16);
  const g = await page.evaluate(() => window.waferlab.model_generate({ prompt: 'Hello, I am', tokens: 4, temperature: 0, check: true }));
  assert.equal(g.made, 4);
  assert.equal(g.error, null);
  assert.equal(g.matches_reference, true, `mesh "${g.text}" vs reference "${g.reference_text}"`);
  assert.ok(g.text.length > 0);
  const s = await state(page);
  assert.equal(s.model.model, source('tiny.bin'));
  assert.equal(s.model.weights.file, 'tiny.bin', 'the next Compile keeps these weights');
  assert.equal(s.model.weights.reading, null);
  assert.equal(s.model.error, null);
});

test('Open weights… takes the browser\'s file picker; a corrupt or cut file is refused and the app keeps working', async () => {
  const { page } = app;
  // A version-3 file (a padded vocabulary, as gpt2_124M.bin) through the button, with the window's settings.
  const good = llmcFile({ version: 3, seed: 7 });
  await pick(page, 'tiny3.bin', good);
  await until(page, () => window.waferlab.state().model.model.includes('tiny3.bin'));
  let s = await state(page);
  assert.equal(s.model.model, source('tiny3.bin'));
  assert.equal(s.model.error, null);
  assert.equal(s.model.weights.reading, null);
  const g = await page.evaluate(() => window.waferlab.model_generate({ prompt: 'The cat', tokens: 3, temperature: 0, check: true }));
  assert.equal(g.matches_reference, true, `mesh "${g.text}" vs reference "${g.reference_text}"`);
  await frames(page, 3);
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'model_weights.png'), await page.locator('#canvas').screenshot());

  // Not llm.c's: its header is refused at once, with the engine's words, in the window.
  const corrupt = good.slice();
  corrupt[0] = 0x58;
  await pick(page, 'corrupt.bin', corrupt);
  await until(page, () => /^corrupt\.bin: bad magic /.test(window.waferlab.state().model.error || ''));
  // Cut short: the header's size is not the file's.
  await pick(page, 'cut.bin', good.subarray(0, good.length - 4));
  await until(page, () => /^cut\.bin: expected/.test(window.waferlab.state().model.error || ''));
  s = await state(page);
  assert.equal(s.model.error, `cut.bin: expected ${good.length} bytes for this header, found ${good.length - 4}`);
  // The model before is still loaded, and runs.
  assert.equal(s.model.compiled, true);
  assert.equal(s.model.model, source('tiny3.bin'));
  assert.equal(s.model.weights.reading, null);
  const f = await page.evaluate(() => window.waferlab.model_forward('Once upon'));
  assert.equal(f.logits_identical, f.logits);
  const frame = (await state(page)).frame;
  await frames(page, 3);
  assert.ok((await state(page)).frame > frame);
});

test('GPT-2 small\'s file: the tab says it cannot hold it before reading it, and nothing is lost', async () => {
  const { page } = app;
  // gpt2_124M.bin's header alone: the refusal comes from it, before the file's size is even checked.
  const header = new Int32Array(256);
  header.set([20240326, 3, 1024, 50257, 12, 12, 768, 50304]);
  const r = await page.evaluate(async (h) => window.waferlab.openWeightsFile(new File([new Int32Array(h)], 'gpt2_124M.bin'),
                                                                            { config: 'gpt2-small', mesh: '256x256', set: 'model.block_size=128' }),
                                Array.from(header));
  assert.match(r.error, /^gpt2_124M\.bin on a 256x256 mesh needs at least \d+\.\d GiB at once: the file \(474\.8 MiB\) is read whole/);
  assert.match(r.error, /This tab has \d+\.\d GiB free of its 4\.0 GiB .*one mesh may take at most 2\.0 GiB \(a 256x256 mesh needs \d+\.\d GiB\)\.$/);
  let s = await state(page);
  assert.equal(s.model.error, r.error, 'the window says it');
  assert.equal(s.model.model, source('tiny3.bin'));
  assert.equal(s.model.weights.reading, null);
  const m = await page.evaluate(() => window.waferlab.memory());
  assert.equal(m.ceiling, 4294901760, 'the build\'s MAXIMUM_MEMORY, 4 GiB less a page');
  assert.ok(m.in_use > 0 && m.in_use <= m.wasm_memory, JSON.stringify(m));
  // The window's settings are its pickers': back to the tiny model's, and a Compile keeps its weights.
  const plan = await page.evaluate((o) => window.waferlab.model_compile(o.config, '64x48', { checkpoint: 'tiny3.bin', set: o.set }), settings);
  assert.equal(plan.model, source('tiny3.bin'));
  assert.deepEqual(plan.mesh, { w: 64, h: 48 });
  s = await state(page);
  assert.equal(s.model.error, null);
});
