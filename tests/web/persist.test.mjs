// Persistence and files in the browser: an edit typed with the keyboard survives a reload,
// kernel files open through the picker and by drag-and-drop, Save and Export PNG download,
// a corrupt saved state never stops the app from starting, and a reload at any moment finds the
// last saved state whole. Every wait is on a condition, except the moments chosen for those reloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openApp, frames, state as stateOf, clickAt, centreOf, onPage } from './browser.mjs';

const state = stateOf;
const place = async (page, name) => (await state(page)).places[name];
const until = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: 20000 });

async function reload(page) {
  await page.reload();
  await until(page, () => window.waferlab && window.waferlab.ready === true);
}

test('an edit typed into the editor, the font size and the layout survive a reload', async () => {
  const app = await openApp('?example=hello');
  const { page } = app;
  try {
    await page.evaluate(() => window.waferlab.editor(true, true));
    await frames(page);
    const editor = await place(page, 'editor');
    await clickAt(page, centreOf(editor));   // into the editor, where state() says it is
    await frames(page);
    await page.keyboard.press('Control+Home');
    await frames(page);
    await page.keyboard.type('// kept across reloads');
    await page.keyboard.press('Enter');
    await until(page, () => window.waferlab.state().editor.modified && window.waferlab.state().persisted);

    // Move the editor window by 100, 50 with the mouse on its title bar (a frame between
    // steps, so Dear ImGui sees a drag), and pick a larger font.
    const grab = await onPage(page, { x: editor.x + editor.w / 3, y: editor.y + 6 });
    const moved = `Pos=${Math.round(editor.x + 100)},${Math.round(editor.y + 50)}`;
    await page.mouse.move(grab.x, grab.y);
    await frames(page, 2);
    await page.mouse.down();
    await frames(page, 2);
    await page.mouse.move(grab.x + 100, grab.y + 50, { steps: 5 });
    await frames(page, 2);
    await page.mouse.up();
    await frames(page);
    await page.evaluate(() => window.waferlab.set_font_scale(1.25));
    // Saved: the position in the layout, and the font in the workspace (`persisted` alone may still
    // be the last save's, until the next frame sees the new font).
    await until(page, (pos) => window.waferlab.state().persisted && (localStorage.getItem('waferlab/imgui.ini') || '').includes(pos) &&
                               JSON.parse(localStorage.getItem('waferlab/workspace.json') || '{}').font_scale === 1.25, moved);

    await reload(page);   // the same URL: ?example=hello must not replace the edit
    const s = await state(page);
    assert.equal(s.editor.modified, true, 'the modified marker is restored');
    assert.equal(s.editor.file, 'hello.wk');
    assert.equal(s.example, 'hello');
    assert.equal(s.font_scale, 1.25);
    assert.ok(s.notices.some((n) => /Kept your unsaved edits to hello\.wk/.test(n)), JSON.stringify(s.notices));
    const src = await page.evaluate(() => window.waferlab.get_source());
    assert.ok(src.text.startsWith('// kept across reloads\n// hello.wk'), src.text.slice(0, 80));
    // The layout came back: saving again keeps the moved position rather than the default.
    await page.evaluate(() => window.waferlab.save_state());
    assert.ok((await page.evaluate(() => localStorage.getItem('waferlab/imgui.ini'))).includes(`[Window][###kernel]\n${moved}`));

    // Undo still reaches the example's own text: "modified" means modified relative to it.
    await page.evaluate(() => window.waferlab.editor(true, true));
    await frames(page);
    await clickAt(page, centreOf(await place(page, 'editor')));
    await frames(page);
    await page.keyboard.press('Control+z');
    await until(page, () => !window.waferlab.state().editor.modified);

    // Unmodified now, so the URL's example wins on the next load.
    await until(page, () => window.waferlab.state().persisted);
    await page.goto(page.url().replace('example=hello', 'example=gemv'));
    await until(page, () => window.waferlab && window.waferlab.ready === true);
    const g = await state(page);
    assert.equal(g.example, 'gemv');
    assert.deepEqual(g.notices, []);
  } finally { await app.close(); }
});

test('kernel files open from the picker and by drop; Save and Export PNG download', async () => {
  const app = await openApp();
  const { page } = app;
  try {
    // File > Open kernel file... with real clicks opens the browser's file picker.
    const text = 'colour c = 1;\nlayout {\n    grid 1 x 1;\n}\n';
    await frames(page);
    await clickAt(page, centreOf(await place(page, 'file_menu')));   // File
    await frames(page, 2);
    const open = await onPage(page, centreOf(await place(page, 'file_open')));   // Open kernel file...
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.mouse.click(open.x, open.y)]);
    await chooser.setFiles({ name: 'mine.wk', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await until(page, () => window.waferlab.state().editor.file === 'mine.wk');
    let s = await state(page);
    assert.equal(s.editor.modified, false);
    assert.equal(s.example, null);
    assert.equal((await page.evaluate(() => window.waferlab.get_source())).text, text);

    // Dropping a file over unsaved edits asks first; Escape keeps the edits.
    await page.evaluate(() => window.waferlab.set_source('// unsaved\n'));
    const drop = (name, body) => page.evaluate(([n, b]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([b], n, { type: 'text/plain' }));
      document.getElementById('canvas').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, [name, body]);
    await drop('dropped.wk', '// dropped\n');
    await until(page, () => window.waferlab.state().pending_open === 'dropped.wk');
    await page.keyboard.press('Escape');
    await until(page, () => window.waferlab.state().pending_open === null);
    assert.equal((await page.evaluate(() => window.waferlab.get_source())).text, '// unsaved\n');

    // Not a kernel: refused with a notice on the page, nothing changes.
    await drop('photo.png', 'xx');
    await until(page, () => /photo\.png is not a kernel file/.test(document.getElementById('notice').textContent));

    // Save downloads the kernel under its name and marks it saved.
    const [dl] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => window.waferlab.save_file())]);
    assert.equal(dl.suggestedFilename(), 'mine.wk');
    assert.equal(fs.readFileSync(await dl.path(), 'utf8'), '// unsaved\n');
    assert.equal((await state(page)).editor.modified, false);

    // With nothing unsaved, a drop opens at once.
    await drop('dropped.wk', '// dropped\n');
    await until(page, () => window.waferlab.state().editor.file === 'dropped.wk');

    // Export PNG: a real PNG of the canvas area.
    const [png] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => window.waferlab.export_png())]);
    assert.equal(png.suggestedFilename(), 'waferlab.png');
    const bytes = fs.readFileSync(await png.path());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const w = bytes.readUInt32BE(16), h = bytes.readUInt32BE(20);
    assert.ok(w > 600 && h > 400 && h < 720, `canvas area ${w}x${h}`);
  } finally { await app.close(); }
});

test('a corrupt or foreign saved state: the app starts fresh and says why', async () => {
  const app = await openApp();
  const { page } = app;
  try {
    await page.evaluate(() => localStorage.setItem('waferlab/workspace.json', '{"format": "waferlab-workspace", "text": [garbage'));
    await reload(page);
    let s = await state(page);
    assert.match(s.storage.problem, /could not be read \(it is not valid JSON\)/);
    assert.ok(s.notices.length >= 1);
    assert.equal(s.editor.modified, false);
    assert.equal(await page.evaluate(() => localStorage.getItem('waferlab/workspace.bad.json')),
                 '{"format": "waferlab-workspace", "text": [garbage');
    // It works normally, and saves a good state again.
    await page.evaluate(() => window.waferlab.load_example('hello'));
    await until(page, () => window.waferlab.state().persisted);
    await page.evaluate(() => window.waferlab.dismiss_notices());

    // A workspace from a newer WaferLab is refused the same way.
    await page.evaluate(() => localStorage.setItem('waferlab/workspace.json', JSON.stringify({ format: 'waferlab-workspace', version: 99, text: 'x' })));
    await reload(page);
    s = await state(page);
    assert.match(s.storage.problem, /newer WaferLab \(format 99/);
    assert.equal(s.example, null);

    // clear_state forgets everything: the next load is a fresh start with no notice.
    await page.evaluate(() => window.waferlab.clear_state());
    await reload(page);
    s = await state(page);
    assert.equal(s.storage.problem, null);
    assert.deepEqual(s.notices, []);
    assert.equal(await page.evaluate(() => localStorage.getItem('waferlab/workspace.json')), null);
  } finally { await app.close(); }
});

test('a reload at any moment after an edit finds the edit or the state saved before it, never a broken one', async () => {
  const app = await openApp();
  const { page } = app;
  try {
    let saved = (await page.evaluate(() => window.waferlab.get_source())).text;
    // Reloads spread over the autosave's half-second delay and past it. The waits set the moment
    // of the reload, which is what is tested; they stand in for nothing the test waits on.
    for (const [k, ms] of [0, 150, 300, 450, 490, 510, 550, 800].entries()) {
      const text = `// edit ${k}: reloaded after ${ms} ms\n${saved}`;
      await page.evaluate((t) => window.waferlab.set_source('reload.wk', t), text);
      await page.waitForTimeout(ms);
      await reload(page);
      const s = await state(page);
      const got = (await page.evaluate(() => window.waferlab.get_source())).text;
      assert.equal(s.storage.problem, null, `after ${ms} ms`);
      assert.ok(got === text || got === saved, `after ${ms} ms: neither the edit nor the state before it:\n${got.slice(0, 120)}`);
      saved = got;
    }
    assert.match(saved, /^\/\/ edit 7/, 'the last edit, reloaded well after the autosave, was not kept');
  } finally { await app.close(); }
});
