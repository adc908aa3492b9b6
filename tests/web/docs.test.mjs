// The documentation site: mkdocs builds docs/ (as `make docs` does), the server puts it at /docs/
// beside the app, and its three live demos load and run in the browser: hello in the language
// guide, SUMMA in the engine page, and a GPT op on the mesh in the model compiler's page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web/serve.mjs';
import { webRoot, launch } from './browser.mjs';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const until = (where, fn, arg, timeout = 60000) => where.waitForFunction(fn, arg, { timeout });

let site, served, browser;
before(async () => {
  site = fs.mkdtempSync(path.join(os.tmpdir(), 'waferlab-site-'));
  const built = spawnSync('mkdocs', ['build', '-q', '-f', path.join(repo, 'mkdocs.yml'), '-d', site], { cwd: repo, encoding: 'utf8' });
  assert.equal(built.error, undefined, `mkdocs did not start (${built.error}): ./tools/setup installs it`);
  assert.equal(built.status, 0, built.stderr);
  served = await startServer({ root: webRoot, docs: site });
  browser = await launch({ width: 1100, height: 900 });
});
after(async () => {
  await browser?.close();
  served?.server.close();
  if (site) fs.rmSync(site, { recursive: true, force: true });
});

async function demoFrame(page, id) {
  const handle = await page.waitForSelector(`#${id} iframe`);
  await handle.scrollIntoViewIfNeeded();   // the iframes load lazily, when they come near the screen
  const frame = await handle.contentFrame();
  await until(frame, () => window.waferlab && window.waferlab.ready === true);
  return frame;
}

test('the site builds, with its pages and the demos in them', () => {
  for (const page of ['index.html', 'kernel-language.html', 'engine.html', 'model-compiler.html', 'js-api.html', 'demo/demo.js'])
    assert.ok(fs.existsSync(path.join(site, page)), page);
  assert.match(fs.readFileSync(path.join(site, 'engine.html'), 'utf8'), /<iframe src="\.\.\/\?embed=1&amp;example=summa"/);
  for (const page of fs.readdirSync(site).filter((f) => f.endsWith('.html')))   // nothing from outside: it works offline
    assert.doesNotMatch(fs.readFileSync(path.join(site, page), 'utf8'), /<(script|link)[^>]+(src|href)="https?:/, page);
});

test('hello in the language guide and SUMMA in the engine page run in the page', async () => {
  const { page } = browser;
  await page.goto(`${served.url}docs/kernel-language.html`);
  const hello = await demoFrame(page, 'demo-hello');
  let s = await hello.evaluate(() => window.waferlab.state());
  assert.equal(s.example, 'hello');
  assert.ok(s.places.editor, 'editor=1 shows the editor');
  // The embed's own Run button, clicked where its state says it is.
  const box = await (await page.$('#demo-hello iframe')).boundingBox();
  const run = s.layout.run_button;
  await page.mouse.click(box.x + run.x + run.w / 2, box.y + run.y + run.h / 2);
  await until(hello, () => window.waferlab.state().done);
  s = await hello.evaluate(() => window.waferlab.state());
  assert.equal(s.error, null);
  assert.ok(s.output.length > 0 && s.cycle > 0, JSON.stringify(s.output));

  await page.goto(`${served.url}docs/engine.html`);
  const summa = await demoFrame(page, 'demo-summa');
  s = await summa.evaluate(() => window.waferlab.run());
  assert.equal(s.example, 'summa');
  assert.equal(s.done, true);
  assert.equal(s.error, null);
  assert.deepEqual(s.mesh, { w: 8, h: 8 });
});

test('a GPT op on the mesh: the model compiler\'s page compiles, runs a forward and animates an op', async () => {
  const { page } = browser;
  await page.goto(`${served.url}docs/model-compiler.html`);
  const gpt = await demoFrame(page, 'demo-gpt');
  await page.locator('#demo-gpt button').click();
  await until(gpt, () => { const a = window.waferlab.state().model.animation; return a && a.cycles > 0; }, null, 120000);
  assert.equal(await gpt.evaluate(() => window.waferlab.state().model.on_canvas), true, 'the placement is on the embed\'s canvas');
  await gpt.evaluate(() => window.waferlab.model_animate({ to_end: true }));   // a reader would wait; the test need not
  await until(page, () => document.getElementById('demo-gpt').dataset.done !== undefined, null, 120000);
  assert.equal(await page.evaluate(() => document.getElementById('demo-gpt').dataset.done), 'match',
               await page.locator('#demo-gpt .status').textContent());
  assert.match(await page.locator('#demo-gpt .status').textContent(), /l0\.qkv: [\d,]+ cycles in cycle mode; its output matches the fast run's/);
});
