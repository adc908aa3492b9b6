// The default layout leaves the mesh in view: tiled side by side at 1280x720 and
// 1920x1080, stacked with the mesh first at 390x844; fit uses the free area, and
// View > Reset layout puts moved windows back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApp, frames } from './browser.mjs';

const state = (page) => page.evaluate(() => window.waferlab.state());
const box = (r) => ({ x: r.x, y: r.y, r: r.x + r.w, b: r.y + r.h });
const overlaps = (a, b) => a.x < b.r - 1 && b.x < a.r - 1 && a.y < b.b - 1 && b.y < a.b - 1;
const inside = (a, outer) => a.x >= outer.x - 1 && a.y >= outer.y - 1 && a.r <= outer.r + 1 && a.b <= outer.b + 1;
const centre = (r) => [r.x + r.w / 2, r.y + r.h / 2];

// The mesh as drawn: PE (0,0)'s corner plus w x h cells.
function meshBox(s) {
  const m = s.canvas.mesh_rect;
  return { x: m.x, y: m.y, r: m.x + m.cell * s.mesh.w, b: m.y + m.cell * s.mesh.h };
}

async function checkTiled(width, height) {
  const app = await openApp('?example=gemv', { width, height });
  const { page } = app;
  try {
    await frames(page, 4);
    let s = await state(page);
    const L = s.layout, screen = { x: 0, y: 0, r: width, b: height };
    for (const w of ['editor', 'log']) assert.ok(L[w] && inside(box(L[w]), screen), `${w} is not on screen at ${width}x${height}`);
    const mesh = meshBox(s);
    assert.ok(inside(mesh, box(L.canvas)), 'the mesh is not inside the canvas');
    for (const w of ['editor', 'log']) assert.ok(!overlaps(mesh, box(L[w])), `the ${w} covers the mesh at ${width}x${height}`);
    assert.ok(!overlaps(box(L.editor), box(L.log)), 'the editor and the log overlap');
    assert.ok(L.editor.x + L.editor.w <= mesh.x, 'the editor is not left of the mesh');
    assert.ok(L.log.x >= mesh.r, 'the log is not right of the mesh');
    // Fit fills the free area: the mesh touches two of its sides (with the 3% margin).
    const free = box(L.free_area);
    assert.ok(inside(mesh, free), 'the mesh is outside the free area');
    const fill = Math.max((mesh.r - mesh.x) / (free.r - free.x), (mesh.b - mesh.y) / (free.b - free.y));
    assert.ok(fill > 0.9, `the mesh fills ${fill} of the free area`);

    // Selecting a PE opens the inspector beside the mesh, not over the PE.
    const m = s.canvas.mesh_rect;
    await page.mouse.click(m.x + m.cell * 3.5, m.y + m.cell * 0.5);
    await frames(page, 3);
    s = await state(page);
    assert.deepEqual(s.selected_pe, { x: 3, y: 0 });
    assert.ok(s.layout.inspector, 'the inspector did not open');
    assert.ok(!overlaps(meshBox(s), box(s.layout.inspector)), 'the inspector covers the mesh');
    assert.ok(!overlaps(box(s.layout.inspector), box(s.layout.log)), 'the inspector covers the log');
    return app;
  } catch (e) { await app.close(); throw e; }
}

test('1280x720: editor, mesh and inspector/log side by side; Reset layout restores a moved window', async () => {
  const app = await checkTiled(1280, 720);
  const { page } = app;
  try {
    // Drag the editor by its title bar into the middle, then View > Reset layout.
    const ed = (await state(page)).layout.editor;
    await page.mouse.move(ed.x + 60, ed.y + 8);
    await page.mouse.down();
    await page.mouse.move(ed.x + 400, ed.y + 200, { steps: 8 });
    await page.mouse.up();
    await frames(page, 3);
    const moved = (await state(page)).layout.editor;
    assert.ok(Math.abs(moved.x - ed.x) > 100, 'the editor did not move');
    await page.mouse.click(...centre((await state(page)).layout.menu_view));
    await frames(page, 2);
    await page.mouse.click(...centre((await state(page)).layout.menu_reset_layout));
    await frames(page, 3);
    const s = await state(page);
    assert.deepEqual(s.layout.editor, ed);
    assert.ok(!overlaps(meshBox(s), box(s.layout.editor)));
  } finally { await app.close(); }
});

test('1920x1080: the same tiling', async () => {
  const app = await checkTiled(1920, 1080);
  await app.close();
});

test('390x844: the mesh first, the controls reachable, the editor a tap away', async () => {
  const app = await openApp('?example=gemv', { width: 390, height: 844 });
  const { page } = app;
  try {
    await frames(page, 4);
    let s = await state(page);
    const L = s.layout, screen = { x: 0, y: 0, r: 390, b: 844 };
    assert.equal(s.editor.open, false, 'the editor covers the mesh on a phone');
    const mesh = meshBox(s);
    assert.ok(inside(mesh, screen), 'the mesh is cut off');
    assert.ok(mesh.r - mesh.x > 300, `the mesh is ${mesh.r - mesh.x} px wide`);
    assert.ok(L.log && mesh.b <= L.log.y + 1, 'the log is not below the mesh');
    assert.ok(inside(box(L.log), screen));
    for (const c of ['run_button', 'speed', 'cycle_slider', 'editor_button', 'mode_cycle', 'mode_fast'])
      assert.ok(L[c] && inside(box(L[c]), screen), `${c} is off screen`);
    // A tap on Editor opens it; another on Mesh closes it.
    await page.mouse.click(...centre(L.editor_button));
    await frames(page, 3);
    s = await state(page);
    assert.equal(s.editor.open, true);
    assert.ok(inside(box(s.layout.editor), screen));
    // Run is reachable: a tap steps the kernel.
    await page.mouse.click(...centre(s.layout.editor_button));
    await frames(page, 2);
    await page.mouse.click(...centre(s.layout.run_button));
    await page.waitForFunction(() => window.waferlab.state().cycle > 0, null, { timeout: 20000 });
    assert.equal((await state(page)).editor.open, false);
  } finally { await app.close(); }
});
