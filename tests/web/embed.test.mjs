// Embedding: a host page on one origin embeds the app from another (two local servers), drives it
// by postMessage and hears its events; a third origin, not on the allowlist, is ignored; three
// embeds on one page all reach ready, keep the host's keyboard focus until clicked, and fit 320 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../../web/serve.mjs';
import { webRoot, launch, appReady, frames as rendered } from './browser.mjs';

const until = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: 60000 });

// The host page: embeds iframes and keeps every message it hears in window.heard.
const HOST = `<!doctype html><meta charset="utf-8"><title>host</title>
<input id="notes" autofocus placeholder="the host's own field">
<div id="frames"></div>
<script>
  window.heard = [];
  window.addEventListener('message', (e) => {
    const i = [...document.querySelectorAll('iframe')].findIndex((f) => f.contentWindow === e.source);
    window.heard.push({ frame: i, origin: e.origin, data: e.data });
  });
  // Sends one request to frame i and resolves with its reply.
  let next = 1;
  window.ask = (i, method, args = []) => new Promise((resolve) => {
    const id = next++;
    const on = (e) => { if (e.data && e.data.id === id) { window.removeEventListener('message', on); resolve(e.data); } };
    window.addEventListener('message', on);
    document.querySelectorAll('iframe')[i].contentWindow.postMessage({ waferlab: 1, id, method, args }, '*');
  });
  window.embed = (src, width, height) => {
    const f = document.createElement('iframe');
    f.src = src; f.width = width; f.height = height; f.style.border = '0';
    document.getElementById('frames').appendChild(f);
  };
</script>`;

let app, host, stranger, hostDir, browser;
before(async () => {
  hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waferlab-host-'));
  fs.writeFileSync(path.join(hostDir, 'index.html'), HOST);
  app = await startServer({ root: webRoot });        // the app, on its own port
  host = await startServer({ root: hostDir });       // the embedding page, on another
  stranger = await startServer({ root: hostDir });   // the same page, on an origin nobody allowed
  browser = await launch({ width: 1100, height: 900 });
});
after(async () => {
  await browser?.close();
  for (const s of [app, host, stranger]) s?.server.close();
  fs.rmSync(hostDir, { recursive: true, force: true });
});

const origin = (u) => new URL(u).origin;

test('a host page on another origin drives an embed by postMessage and hears its events', async () => {
  const { page } = browser;
  await page.goto(host.url);
  const src = `${app.url}?embed=1&origins=${encodeURIComponent(origin(host.url))}`;
  await page.evaluate((s) => window.embed(s, 640, 420), src);
  await until(page, () => window.heard.some((h) => h.frame === 0 && h.data.event === 'ready'));

  let r = await page.evaluate(() => window.ask(0, 'load_example', ['hello']));
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.result.example, 'hello');
  r = await page.evaluate(() => window.ask(0, 'select_pe', [1, 0]));
  assert.deepEqual(r.result.selected_pe, { x: 1, y: 0 });
  r = await page.evaluate(() => window.ask(0, 'step', [5]));
  assert.equal(r.result.cycle, 5);
  r = await page.evaluate(() => window.ask(0, 'run'));   // to the end: the reply comes when it stops
  assert.equal(r.result.done, true);
  assert.equal(r.result.error, null);
  await until(page, () => window.heard.some((h) => h.data.event === 'finished'));
  const heard = await page.evaluate(() => window.heard.filter((h) => h.data.event));
  assert.ok(heard.every((h) => h.origin === origin(app.url)), JSON.stringify(heard.map((h) => h.origin)));
  const cycles = heard.filter((h) => h.data.event === 'cycle').map((h) => h.data.detail.cycle);
  assert.ok(cycles.includes(5), `cycle events: ${cycles}`);
  const finished = heard.find((h) => h.data.event === 'finished').data.detail;
  assert.equal(finished.cycle, r.result.cycle);
  assert.deepEqual(finished.output, r.result.output);
  r = await page.evaluate(() => window.ask(0, 'state'));
  assert.equal(r.result.ready, true);
  assert.equal(r.result.done, true);

  // A fault is an event too, with where it happened.
  const mismatch = fs.readFileSync(new URL('../fixtures/mismatch.wk', import.meta.url), 'utf8');
  r = await page.evaluate((t) => window.ask(0, 'set_source', ['mismatch.wk', t]), mismatch);
  r = await page.evaluate(() => window.ask(0, 'run'));
  assert.equal(r.result.error.kind, 'bad_program');
  await until(page, () => window.heard.some((h) => h.data.event === 'fault'));
  const fault = await page.evaluate(() => window.heard.find((h) => h.data.event === 'fault').data.detail);
  assert.deepEqual(fault.pe, { x: 3, y: 0 });

  // Bad requests come back as errors; page-only methods are refused; nothing is evaluated.
  r = await page.evaluate(() => window.ask(0, 'select_pe', [99, 0]));
  assert.match(r.error, /select_pe: 'x' expects an integer in 0\.\..*, got 99/);
  r = await page.evaluate(() => window.ask(0, 'clear_state'));
  assert.match(r.error, /clear_state is not available by message/);
  r = await page.evaluate(() => window.ask(0, 'constructor', ['alert(1)']));
  assert.match(r.error, /unknown method 'constructor'/);
});

test('a message from an origin not on the allowlist is ignored', async () => {
  const { page } = browser;
  await page.goto(stranger.url);   // allows only the host's origin, not this one
  const src = `${app.url}?embed=1&example=gemv&origins=${encodeURIComponent(origin(host.url))}`;
  await page.evaluate((s) => window.embed(s, 640, 420), src);
  await until(page, () => document.querySelector('iframe').contentWindow && true);
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await until(frame, () => window.waferlab && window.waferlab.ready === true);
  await page.evaluate(() => { window.ask(0, 'load_example', ['hello']); });   // no reply will come
  await until(frame, () => window.waferlab.messages.ignored.length === 1);
  const ignored = await frame.evaluate(() => window.waferlab.messages.ignored);
  assert.deepEqual(ignored, [{ origin: origin(stranger.url), method: 'load_example' }]);
  assert.equal(await frame.evaluate(() => window.waferlab.state().example), 'gemv', 'the embed did not obey');
  // Nor did it tell this page anything: its events go only to allowed origins.
  await frame.evaluate(() => window.waferlab.step(3));
  assert.deepEqual(await page.evaluate(() => window.heard), []);
});

test('three embeds on one page reach ready, keep the host\'s keyboard until clicked, and fit 320 px', async () => {
  const { page } = browser;
  await page.goto(host.url);
  await page.locator('#notes').focus();
  const allow = `origins=${encodeURIComponent(origin(host.url))}`;
  await page.evaluate(([base, allow]) => {
    window.embed(`${base}?embed=1&example=hello&${allow}`, 320, 360);
    window.embed(`${base}?embed=1&editor=1&example=gemv&${allow}`, 700, 400);
    window.embed(`${base}?embed=1&example=summa&${allow}`, 480, 360);
  }, [app.url, allow]);
  await until(page, () => new Set(window.heard.filter((h) => h.data.event === 'ready').map((h) => h.frame)).size === 3);
  // Typing goes to the host's field: no embed took the focus while loading.
  await page.keyboard.type('still mine');
  assert.equal(await page.locator('#notes').inputValue(), 'still mine');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'notes');

  const frames = await Promise.all((await page.$$('iframe')).map((h) => h.contentFrame()));
  // The 320 px one: its run bar and canvas fit inside it.
  const small = await frames[0].evaluate(() => window.waferlab.state());
  for (const name of ['run_button', 'step_button', 'reset_button', 'cycle_text'])
    assert.ok(small.layout[name].x + small.layout[name].w <= 320, `${name} at ${JSON.stringify(small.layout[name])}`);
  assert.ok(small.places.canvas.w <= 320 && small.places.canvas.h > 150, JSON.stringify(small.places.canvas));
  assert.equal(small.places.editor, null);
  const withEditor = await frames[1].evaluate(() => window.waferlab.state());
  assert.ok(withEditor.places.editor && withEditor.places.editor.w <= 360, JSON.stringify(withEditor.places.editor));
  assert.equal(await frames[0].locator('#open-full').isVisible(), true);
  // "Open in WaferLab" covers nothing: not the canvas (so not the legend's scale), not the run bar.
  const geometry = await frames[0].evaluate(() => {
    const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
    return { link: box(document.getElementById('open-full')), canvas: box(document.getElementById('canvas')) };
  });
  const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const { link } = geometry;
  assert.ok(link.w > 0 && link.x + link.w <= 320 && link.y + link.h <= 360, `the link at ${JSON.stringify(link)}`);
  assert.ok(!overlap(link, geometry.canvas), `the link ${JSON.stringify(link)} covers the canvas ${JSON.stringify(geometry.canvas)}`);
  const legend = small.canvas.legend_rect;   // app coordinates: from the canvas element's corner
  assert.ok(legend.w > 0 && legend.h > 0, 'no legend drawn');
  const legendOnPage = { x: geometry.canvas.x + legend.x, y: geometry.canvas.y + legend.y, w: legend.w, h: legend.h };
  assert.ok(!overlap(link, legendOnPage), `the link ${JSON.stringify(link)} covers the legend ${JSON.stringify(legendOnPage)}`);
  assert.ok(legendOnPage.y + legendOnPage.h <= geometry.canvas.y + geometry.canvas.h, 'the legend runs off the canvas');

  // A click into the first embed gives it the keyboard: Space-free, F10 steps its kernel.
  const box = await (await page.$$('iframe'))[0].boundingBox();
  const canvas = small.places.canvas;
  await page.mouse.click(box.x + canvas.x + canvas.w / 2, box.y + canvas.y + canvas.h - 20);
  await rendered(frames[0], 2);
  await page.keyboard.press('F10');
  await until(frames[0], () => window.waferlab.state().cycle === 1);
  assert.equal(await frames[1].evaluate(() => window.waferlab.state().cycle), 0);
});

// True when the app in `page` drew no frame during `n` of the browser's animation frames.
const quietFor = (page, n) => page.evaluate((n) => new Promise((resolve) => {
  const f0 = window.waferlab.state().frame;
  let seen = 0;
  const tick = () => {
    if (window.waferlab.state().frame !== f0) resolve(false);
    else if (++seen >= n) resolve(true);
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}), n);

test('an idle embed stops drawing until input or a call, and the full app keeps drawing', async () => {
  const { page } = browser;
  await page.goto(`${app.url}?embed=1&example=hello`);
  await appReady(page);
  // Nothing runs and nothing is touched: after its last 60 frames it stops drawing, and stays
  // stopped. (Each try ends at the first frame drawn, so it takes one try per frame until then.)
  let idle = false;
  for (let i = 0; i < 300 && !idle; ++i) idle = await quietFor(page, 90);
  assert.ok(idle, 'the embed kept drawing frames while idle');
  const asleep = (await page.evaluate(() => window.waferlab.state())).frame;
  assert.equal(await quietFor(page, 60), true, 'it woke with nothing happening');
  // A click wakes it: frames are drawn and the click is handled (F10 then steps its kernel).
  const s = await page.evaluate(() => window.waferlab.state());
  const c = s.places.canvas;
  await page.mouse.click(c.x + c.w / 2, c.y + c.h - 20);
  await rendered(page, 2);
  assert.ok((await page.evaluate(() => window.waferlab.state())).frame > asleep);
  await page.keyboard.press('F10');
  await page.waitForFunction(() => window.waferlab.state().cycle === 1, null, { timeout: 20000 });
  // A call that changes something wakes it too; reading state() does not.
  for (let i = 0; i < 300 && !(await quietFor(page, 90)); ++i);
  const before = (await page.evaluate(() => window.waferlab.state())).frame;
  await page.evaluate(() => window.waferlab.step(2));
  await rendered(page, 2);
  const after = await page.evaluate(() => window.waferlab.state());
  assert.ok(after.frame > before && after.cycle === 3, `frame ${before} -> ${after.frame}, cycle ${after.cycle}`);

  // The full app is not an embed: it draws every frame.
  await page.goto(`${app.url}?example=hello`);
  await appReady(page);
  await rendered(page, 70);
  assert.equal(await quietFor(page, 30), false, 'the full app stopped drawing');
});
