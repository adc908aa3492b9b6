// Share links: a state made with clicks and keys round-trips through File > Share's link into a
// fresh browser; a damaged, oversized or newer link is refused with a notice and the saved work
// survives; a link opened over unsaved edits puts them aside, and they come back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, launch, appReady, frames, state, clickAt, centreOf, peCentre } from './browser.mjs';

const until = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: 30000 });

// What a link must reproduce, read from a page.
async function shown(page) {
  return page.evaluate(() => {
    const s = window.waferlab.state();
    return { text: window.waferlab.get_source().text, file: s.editor.file, example: s.example, mesh: s.mesh, cycle: s.cycle,
             colouring: s.canvas.mode, pe: s.selected_pe, run_mode: s.run_mode, lesson: s.lesson.panel_open ? s.lesson.current : null,
             running: s.running };
  });
}

test('a shared link reopens the same state in a fresh browser', async () => {
  const app = await openApp('?example=gemv');
  const fresh = await launch();
  try {
    const { page } = app;
    await page.evaluate(() => window.waferlab.set_source(window.waferlab.get_source().text.replace('// gemv', '// gemv, shared')));
    await page.evaluate(() => window.waferlab.canvas({ mode: 'sram' }));
    await frames(page);
    // Select PE (2, 1) with a click, and step 7 cycles with F10 (the canvas has the keyboard after the click).
    await clickAt(page, peCentre(await state(page), 2, 1));
    await until(page, () => JSON.stringify(window.waferlab.state().selected_pe) === '{"x":2,"y":1}');
    for (let i = 0; i < 7; ++i) {
      await page.keyboard.press('F10');
      await until(page, (n) => window.waferlab.state().cycle === n && !window.waferlab.state().running, i + 1);
    }
    const before = await shown(page);
    assert.equal(before.cycle, 7);
    assert.equal(before.colouring, 'sram');

    // The toolbar's Share button opens the dialog with the link and the <iframe>.
    await clickAt(page, centreOf((await state(page)).layout.share_button));
    await until(page, () => document.getElementById('share-dialog').open && document.getElementById('share-link').value !== '');
    const link = await page.locator('#share-link').inputValue();
    const iframe = await page.locator('#share-iframe').inputValue();
    assert.match(link, /#share=[A-Za-z0-9_-]+$/);
    assert.match(iframe, /^<iframe src="[^"]+\?embed=1#share=[A-Za-z0-9_-]+" title="WaferLab: gemv\.wk"/);
    // Keys in the dialog stay there: Space on its Copy button does not run the kernel behind it.
    await page.locator('#share-copy-link').focus();
    await page.keyboard.press('Space');
    await frames(page);
    assert.equal((await state(page)).running, false);
    assert.equal((await state(page)).cycle, 7);
    await page.locator('#share-close').click();

    await fresh.page.goto(link);
    await appReady(fresh.page, fresh.logs);
    await until(fresh.page, () => !window.waferlab.state().running);
    const after = await shown(fresh.page);
    assert.deepEqual(after, before);
    assert.equal(new URL(fresh.page.url()).hash, '', 'the hash is dropped once applied, so a reload keeps later edits');
    assert.deepEqual((await state(fresh.page)).notices, []);
  } finally { await fresh.close(); await app.close(); }
});

test('a damaged, oversized or newer link gives a notice and the saved work survives', async () => {
  const app = await openApp();
  const { page, url } = app;
  try {
    await page.evaluate(() => window.waferlab.set_source('mine.wk', '// my own work\n'));
    await until(page, () => window.waferlab.state().persisted);
    const saved = await page.evaluate(() => localStorage.getItem('waferlab/workspace.json'));
    const newer = await page.evaluate(async () => {   // a link from a later WaferLab, packed as links are
      const bytes = new TextEncoder().encode(JSON.stringify({ format: 'waferlab-share', version: 2, text: 'x' }));
      const packed = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer());
      return btoa(String.fromCharCode(...packed)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    });
    const cases = [
      ['#share=bm90IGRlZmxhdGU', /could not be opened: it is damaged \(its data does not unpack\)/],
      ['#share=%3Cscript%3E', /could not be opened: it is damaged \(it has characters a share link never has\)/],
      ['#share=' + 'A'.repeat(300 * 1024), /could not be opened: it carries 300 KB, more than the 256 KB a link may/],
      ['#share=' + newer, /could not be opened: it was made by a newer WaferLab \(share format 2; this one reads formats 1 to 1\)/],
    ];
    for (const [hash, why] of cases) {
      await page.goto('about:blank');
      await page.goto(url + hash);
      await appReady(page);
      const s = await state(page);
      assert.ok(s.notices.some((n) => why.test(n) && /your saved work is as it was/.test(n)), `${hash.slice(0, 40)}: ${JSON.stringify(s.notices)}`);
      assert.equal(s.editor.file, 'mine.wk');
      assert.equal(s.editor.modified, true);
      assert.equal((await page.evaluate(() => window.waferlab.get_source())).text, '// my own work\n');
      await page.evaluate(() => window.waferlab.save_state());
      assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('waferlab/workspace.json'))).text, JSON.parse(saved).text);
    }
  } finally { await app.close(); }
});

test('a link opened over unsaved edits puts them aside, and File > Restore brings them back', async () => {
  const app = await openApp();
  const { page, url } = app;
  try {
    await page.evaluate(() => window.waferlab.load_example('hello'));
    const { link } = await page.evaluate(() => window.waferlab.shareLinks());
    const edited = await page.evaluate(() => window.waferlab.set_source('mine.wk', '// my own work\n'));
    assert.equal(edited.persisted, false, 'an edit no frame has saved yet is not persisted');   // else the wait below ends at once
    await until(page, () => window.waferlab.state().persisted);
    await page.goto('about:blank');
    await page.goto(link.replace(/^http:\/\/[^/]+\//, url));
    await appReady(page);
    let s = await state(page);
    assert.equal(s.example, 'hello');
    assert.equal(s.before_share_kept, true);
    assert.ok(s.notices.some((n) => /unsaved edits to mine\.wk were put aside/.test(n)), JSON.stringify(s.notices));
    s = await page.evaluate(() => window.waferlab.restore_before_share());
    assert.equal(s.editor.file, 'mine.wk');
    assert.equal(s.before_share_kept, false);
    assert.equal((await page.evaluate(() => window.waferlab.get_source())).text, '// my own work\n');
  } finally { await app.close(); }
});
