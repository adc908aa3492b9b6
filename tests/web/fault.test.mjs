// A run-time error is shown well: its log line wraps instead of being cut off,
// the faulted PE is outlined in the error colour, and the inspector shows the fault.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp, frames, imageStats } from './browser.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MISMATCH = fs.readFileSync(path.join(root, 'tests', 'fixtures', 'mismatch.wk'), 'utf8');   // PE (3,0) faults

let app;
before(async () => { app = await openApp(); });
after(async () => { await app?.close(); });

const state = () => app.page.evaluate(() => window.waferlab.state());

test('a fault wraps in the log, outlines its PE in red, and the inspector names it', async () => {
  const { page } = app;
  await page.evaluate((src) => window.waferlab.set_source('mismatch.wk', src), MISMATCH);
  let s = await state();
  const cv = s.layout.canvas;
  await page.mouse.click(cv.x + cv.w / 2, cv.y + cv.h - 30);
  await page.keyboard.press('F5');
  await frames(page);   // the key reaches the app in a frame: only then is there a run to wait for
  s = await page.evaluate(() => window.waferlab.whenStopped());
  assert.ok(s.error, 'the run did not fault');
  assert.deepEqual(s.error.pe, { x: 3, y: 0 });
  assert.equal(s.error.kind, 'bad_program');
  await frames(page, 3);
  s = await state();

  // The log line wraps inside the log window: taller than one line, no wider than the window.
  const log = s.layout.log, line = s.layout.log_error;
  assert.ok(line.x + line.w <= log.x + log.w, 'the error line runs past the log window');
  assert.ok(line.h > 25, `the error line is one line (${line.h} px): it is cut off rather than wrapped`);

  // The faulted PE is outlined in the error colour; its neighbour is not.
  const m = s.canvas.mesh_rect;
  const cell = (x) => ({ x: m.x + x * m.cell, y: m.y, width: m.cell, height: m.cell });
  const red = [255, 70, 70];
  const at3 = await imageStats(page, await page.screenshot({ clip: cell(3) }), { rgb: red, tol: 30 });
  const at1 = await imageStats(page, await page.screenshot({ clip: cell(1) }), { rgb: red, tol: 30 });
  assert.ok(at3.matching > 4 * m.cell, `PE (3,0) has no red outline (${at3.matching} px)`);
  assert.equal(at1.matching, 0, 'PE (1,0) is outlined too');

  // Clicking the error selects the PE; the inspector says it stopped, and why, in red.
  await page.mouse.click(line.x + 20, line.y + 5);
  await frames(page, 3);
  s = await state();
  assert.deepEqual(s.selected_pe, { x: 3, y: 0 });
  const pe = await page.evaluate(() => window.waferlab.inspect(3, 0));
  assert.equal(pe.thread.faulted, true);
  assert.match(pe.thread.state, /^stopped by a fault \(bad_program\)/);
  assert.doesNotMatch(pe.thread.state, /running/);
  const other = await page.evaluate(() => window.waferlab.inspect(1, 0));
  assert.equal(other.thread.faulted, false);
  const ins = s.layout.inspector;
  assert.ok(ins, 'the inspector is not open');
  const shot = await page.screenshot({ clip: { x: ins.x, y: ins.y, width: ins.w, height: Math.min(ins.h, 120) } });
  assert.ok((await imageStats(page, shot)).red > 20, 'the inspector does not show the fault in red');
});
