// generate_web.mjs: gpt-nano generating on the emulated mesh in the web app (the Model window's
// Generate, the page's own frame loop: tokens from the KV cache in PE SRAM), in headless
// Chromium: tokens/s over the wall time of the page, frames included (issue 12: at least 5).
//   node bench/generate_web.mjs [--tokens 60] [--json]
// Compiles gpt-nano for a 32x32 mesh (its weights from the config's seed: the speed does not
// depend on them), generates --tokens tokens from a short prompt, and reports the wall time from
// the call to the last token, the frames drawn meanwhile, and the emulator's own tokens/s.
import { openApp } from '../tests/web/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
const tokens = opt('tokens', 60), json = args.includes('--json');

const app = await openApp();
try {
  const r = await app.page.evaluate(async (tokens) => {
    const w = window.waferlab;
    w.model_compile('gpt-nano', '32x32', { show: true });
    const t0 = performance.now(), f0 = w.state().frame;
    const g = await w.model_generate({ prompt: 'Once upon a time', tokens, temperature: 0.8, seed: 7 });
    const secs = (performance.now() - t0) / 1000;
    return { tokens: g.made, seconds: secs, tokens_per_s: g.made / secs, frames_per_s: (w.state().frame - f0) / secs,
             emulator_tokens_per_s: g.tokens_per_s, cycles_per_token: g.cycles_per_token, text: g.text };
  }, tokens);
  if (json) console.log(JSON.stringify(r));
  else console.log(`gpt-nano generating on a 32x32 mesh in headless Chromium: ${r.tokens} tokens in ${r.seconds.toFixed(1)} s = ` +
                   `${r.tokens_per_s.toFixed(1)} tokens/s (${r.frames_per_s.toFixed(1)} frames/s; the emulator alone ` +
                   `${r.emulator_tokens_per_s.toFixed(0)} tokens/s, ${Math.round(r.cycles_per_token)} emulated cycles a token)`);
} finally {
  await app.close();
}
