// The screen explains its words: hover help on the editor's keywords and builtins
// (from the engine's tables), on every inspector term, PE coordinates on the mesh,
// and the kernel's opening comment wrapped where it can be read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

let app;
before(async () => { app = await openApp('?example=gemv'); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

// Hovers the middle of the word at a 1-based line and column of the editor.
async function hoverWord(page, line, col) {
  const g = (await state()).editor.text_geometry;
  await page.mouse.move(g.x + (col - 1 + 1.5) * g.char_w, g.y + (line - 0.5) * g.line_h);
  await frames(page, 3);
  return (await state()).editor.hover_help;
}

test('hovering a keyword or a builtin in the editor explains it', async () => {
  const { page } = app;
  const src = (await page.evaluate(() => window.waferlab.get_source())).text.split('\n');
  const at = (re) => { const i = src.findIndex((l) => re.test(l) && !l.trim().startsWith('//')); return [i + 1, src[i].search(re) + 1]; };

  let h = await hoverWord(page, ...at(/\bcolour\b/));
  assert.equal(h?.word, 'colour');
  assert.match(h.text, /24 routable colours/);

  h = await hoverWord(page, ...at(/\bconst\b/));
  assert.equal(h?.word, 'const');
  assert.match(h.text, /compile-time constant/);

  // fmacs is further down: move there with the keyboard, then hover it.
  const ed = (await state()).layout.editor;
  await page.mouse.click(ed.x + ed.w / 2, ed.y + ed.h - 40);
  await page.keyboard.press('Control+End');
  await frames(page, 2);
  const [fl, fc] = at(/\bfmacs\b/);
  while ((await state()).editor.cursor.line > fl) { await page.keyboard.press('ArrowUp'); await frames(page, 1); }
  h = await hoverWord(page, fl, fc);
  assert.equal(h?.word, 'fmacs');
  assert.match(h.text, /^fmacs\(dst, a, b, s: f32\): dA\[i\] = dB\[i\] \+ dC\[i\] \* rD/);

  // A plain name has no help.
  const [yl, yc] = at(/\bmem\(y\)/);
  h = await hoverWord(page, yl, yc + 4);
  assert.equal(h, null);
});

test('every inspector term explains itself on hover', async () => {
  const { page } = app;
  let s = await state();
  const m = s.canvas.mesh_rect;
  await page.mouse.click(m.x + m.cell * 0.5, m.y + m.cell * 0.5);   // PE (0,0)
  await frames(page, 3);
  s = await state();
  assert.deepEqual(s.selected_pe, { x: 0, y: 0 });
  for (const term of ['RAMP', 'fwd', 'CE queue', 'elements', 'router buffers', 'busy']) {
    const r = (await state()).inspector_terms[term];
    assert.ok(r, `${term} is not on the inspector`);
    await page.mouse.move(r.x + Math.min(r.w / 2, 12), r.y + r.h / 2);
    await frames(page, 3);
    assert.equal((await state()).inspector_term, term, `no help on hovering ${term}`);
  }
});

test('PEs show their coordinates, and the opening comment wraps in a panel', async () => {
  const s = await state();
  assert.equal(s.canvas.coords, true);
  assert.match(s.editor.header, /^gemv\.wk: y = A x on a 4 x 2 grid/);
  const panel = s.layout.kernel_header, ed = s.layout.editor;
  assert.ok(panel, 'no header panel');
  assert.ok(panel.x + panel.w <= ed.x + ed.w, 'the header runs past the editor window');
  assert.ok(panel.h > 40, `the header is ${panel.h} px high: not wrapped`);
});
