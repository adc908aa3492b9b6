// browser.mjs: shared fixture for the browser tests — the built app served on
// 127.0.0.1 and Debian's Chromium driven by playwright-core (never a downloaded browser).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../web/serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const webRoot = process.env.WAFERLAB_WEB_ROOT || path.join(here, '..', '..', 'build', 'web', 'ui');
export const outDir = path.join(here, 'out');

// One Chromium for the contexts of a test file (starting one costs seconds; CI runs ~90 tests).
// Each launch() gets a fresh context of it: its own storage, cookies and cache, as a new profile
// would have. When the last context closes and no other opens within a second (the file's tests
// are done), the browser closes, so the process can exit; had it closed sooner, the next launch()
// would only start a new one.
let shared = null, open = 0, idle = null;
function browser() {
  clearTimeout(idle);
  shared ??= chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    ignoreDefaultArgs: ['--headless'],
    args: ['--headless=new', '--no-sandbox', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-quic', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  return shared;
}
function release() {
  if (--open > 0) return;
  const b = shared;
  idle = setTimeout(async () => {
    if (shared !== b || open > 0) return;
    shared = null;
    await (await b).close();
  }, 1000);
}

const pageLogs = new WeakMap();   // page → its console and page errors, for frames()'s failure

// A fresh browser context (empty localStorage) with one page.
export async function launch({ scale = 1, width = 1280, height = 720 } = {}) {
  const b = await browser();
  open++;
  const context = await b.newContext({ viewport: { width, height }, deviceScaleFactor: scale });
  const page = await context.newPage();
  const logs = [];
  pageLogs.set(page, logs);
  page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await context.close();
    release();
  };
  return { context, page, logs, close };
}

// Waits until the app in `page` (or a frame) says it is ready.
export async function appReady(page, logs = []) {
  await page.waitForFunction(() => window.waferlab && window.waferlab.ready === true, null, { timeout: 60000 })
    .catch((e) => { throw new Error(`app never became ready: ${e.message}\n${logs.join('\n')}`); });
}

// A fresh profile's first visit opens on the start screen, over the mesh: the tests of other parts
// open with ?start=0 (the empty mesh, as a returning visitor's), unless they ask for it with
// { startScreen: true } (start_screen.test.mjs).
export async function openApp(query = '', options = {}) {
  const { server, url } = await startServer({ root: options.root || webRoot });   // root: another build's (a bench's before and after)
  const b = await launch(options);
  const q = options.startScreen ? query : `${query}${query.includes('?') ? '&' : '?'}start=0`;
  await b.page.goto(url + q);
  await appReady(b.page, b.logs);
  const close = async () => {
    await b.close();
    server.close();
  };
  return { page: b.page, logs: b.logs, close, url, context: b.context };
}

// Waits for the app to render a few more frames, and to have taken every input event sent so far
// (it takes one key press a frame: state().input_pending), so input has been handled and drawn.
// It fails when no frame comes for a minute (a frozen page), saying where the app stood and what
// the page last logged: a long typed text on a loaded machine takes as many frames as keys, and a
// machine running several browsers with software GL may go many seconds between two of them while
// the page is alive.
export async function frames(page, n = 3) {
  const start = await page.evaluate(() => window.waferlab.state().frame);
  for (let seen = start; ;) {
    let r;
    try {
      r = await page.waitForFunction(([target, seen]) => {
        const s = window.waferlab.state();
        return s.frame >= target && !s.input_pending ? -1 : s.frame > seen ? s.frame : false;
      }, [start + n, seen], { timeout: 60000 });
    } catch (e) {
      // Where the app stood, whether the browser still calls animation frames at all (if it does,
      // the app's loop has ended), and what the page last logged.
      const s = await page.evaluate(async () => {
        const s = window.waferlab.state();
        const raf = await Promise.race([new Promise((r) => requestAnimationFrame(() => r(true))), new Promise((r) => setTimeout(() => r(false), 5000))]);
        return { frame: s.frame, input_pending: s.input_pending, frame_ms: s.frame_ms, status: s.status, recovered: s.recovered,
                 visibility: document.visibilityState, animation_frames: raf };
      }).catch((e2) => `state() failed too: ${e2.message}`);
      const logs = (pageLogs.get(page) || []).slice(-12).join('\n');
      throw new Error(`no frame for 60 s after frame ${seen} (waiting for frame ${start + n} with no input pending): ${JSON.stringify(s)}\n` +
                      `the page's last logs:\n${logs}`, { cause: e });
    }
    seen = await r.jsonValue();
    if (seen < 0) return;
  }
}

// Decodes a PNG screenshot in the page and hands its RGBA bytes to `body(px, width, height, arg)`,
// which runs there too (so it may not close over test variables: pass them in `arg`).
async function withPixels(page, png, body, arg) {
  return page.evaluate(async ([b64, src, arg]) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const px = g.getImageData(0, 0, c.width, c.height).data;
    return new Function(`return (${src})`)()(px, c.width, c.height, arg);
  }, [png.toString('base64'), body.toString(), arg]);
}

// A PNG screenshot's distinct colours (up to 256), how many pixels are a clear red (error
// markers), its mean brightness (0..255), and how many pixels lie within `tol` of `rgb`
// when given: "is it drawn" checks.
export async function imageStats(page, png, { rgb = null, tol = 24 } = {}) {
  return withPixels(page, png, (px, w, h, [rgb, tol]) => {
    const seen = new Set();
    let red = 0, sum = 0, matching = 0;
    for (let i = 0; i < px.length; i += 4) {
      if (seen.size < 256) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      if (px[i] > 200 && px[i + 1] < 140 && px[i + 2] < 140) red++;
      sum += px[i] + px[i + 1] + px[i + 2];
      if (rgb && Math.abs(px[i] - rgb[0]) <= tol && Math.abs(px[i + 1] - rgb[1]) <= tol && Math.abs(px[i + 2] - rgb[2]) <= tol) matching++;
    }
    return { distinct: seen.size, red, mean: sum / (px.length / 4) / 3, matching };
  }, [rgb, tol]);
}

// The pixels of a PNG screenshot within `tol` of `rgb`, as [x, y] in the PNG: "where is it drawn" checks.
export async function pixelsNear(page, png, rgb, tol = 30) {
  return withPixels(page, png, (px, w, h, [rgb, tol]) => {
    const out = [];
    for (let i = 0; i < px.length; i += 4)
      if (Math.abs(px[i] - rgb[0]) <= tol && Math.abs(px[i + 1] - rgb[1]) <= tol && Math.abs(px[i + 2] - rgb[2]) <= tol)
        out.push([(i / 4) % w, Math.floor(i / 4 / w)]);
    return out;
  }, [rgb, tol]);
}

// Positions come from state(), never from fixed pixels: `places` and `canvas.grid` are in
// CSS pixels from the canvas element's corner (docs/js-api.md).
export const state = (page) => page.evaluate(() => window.waferlab.state());
export const centreOf = (r) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });

// The centre of PE (x, y) on screen.
export function peCentre(s, x, y) {
  const g = s.canvas.grid;
  return { x: g.x + (x + 0.5) * g.cell, y: g.y + (y + 0.5) * g.cell };
}

// A point of the mesh canvas that no window covers: clicking it gives the canvas the keyboard.
// Searched bottom-left first, away from the canvas's own toolbar at the top right.
export function canvasSpot(s) {
  const c = s.places.canvas;
  const windows = [s.places.editor, s.places.log, s.layout && s.layout.compare].filter(Boolean);
  const inside = (r, p) => p.x >= r.x && p.x < r.x + r.w && p.y >= r.y && p.y < r.y + r.h;
  for (let y = c.y + c.h - 40; y > c.y + 60; y -= 20)
    for (let x = c.x + 40; x < c.x + c.w - 40; x += 20)
      if (!windows.some((r) => inside(r, { x, y }))) return { x, y };
  throw new Error(`no free spot on the canvas: ${JSON.stringify(s.places)}`);
}

// The page coordinates of a point in the app's coordinates.
export async function onPage(page, p) {
  const box = await page.locator('#canvas').boundingBox();
  return { x: box.x + p.x, y: box.y + p.y };
}

export async function clickAt(page, p) {
  const q = await onPage(page, p);
  await page.mouse.click(q.x, q.y);
}

// Clicks the control state().layout names where it was drawn last frame; the state after.
export async function pressLayout(page, name) {
  const s = await state(page);
  if (!s.layout[name]) throw new Error(`${name} is not on screen: ${Object.keys(s.layout).join(' ')}`);
  await clickAt(page, centreOf(s.layout[name]));
  await frames(page);
  return state(page);
}

// Gives the canvas the keyboard (so keys go to the app, not the editor).
export async function focusCanvas(page) {
  await frames(page);
  await clickAt(page, canvasSpot(await state(page)));
  await frames(page);
}
