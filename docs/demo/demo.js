// demo.js: drives the documentation site's live demos that need more than the embed's own run bar.
// Each demo is an <iframe> of the app (?embed=1) on the same site, so its messages are allowed without
// ?origins=. A button sends requests by postMessage and the status line shows the replies and events:
// the same API a page on another site would use (docs/js-api.md#embedding-and-messages).
(function () {
  'use strict';
  let next = 1;
  // One request to an embed; resolves with its result, rejects with its error.
  function ask(frame, method, ...args) {
    return new Promise((resolve, reject) => {
      const id = next++;
      const on = (e) => {
        if (e.source !== frame.contentWindow || !e.data || e.data.waferlab !== 1 || e.data.id !== id) return;
        window.removeEventListener('message', on);
        if ('error' in e.data) reject(new Error(e.data.error)); else resolve(e.data.result);
      };
      window.addEventListener('message', on);
      frame.contentWindow.postMessage({ waferlab: 1, id, method, args }, location.origin);
    });
  }
  function whenReady(frame) {
    return new Promise((resolve) => {
      const on = (e) => {
        if (e.source === frame.contentWindow && e.data && e.data.waferlab === 1 && e.data.event === 'ready') {
          window.removeEventListener('message', on);
          resolve();
        }
      };
      window.addEventListener('message', on);
    });
  }
  // A GPT op on the mesh: compile gpt-nano for 32 x 32 PEs, run a forward, then replay one op in cycle mode.
  for (const demo of document.querySelectorAll('.waferlab-demo[data-gpt-op]')) {
    const frame = demo.querySelector('iframe'), button = demo.querySelector('button'), status = demo.querySelector('.status');
    const op = demo.dataset.gptOp;
    const ready = whenReady(frame);
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        await ready;
        status.textContent = 'compiling gpt-nano for a 32 x 32 mesh…';
        const plan = await ask(frame, 'model_compile', 'gpt-nano', '32x32', { show: true });
        status.textContent = `${plan.ops.length} ops on ${plan.pes_used} PEs; a forward pass of "Once"…`;
        const f = await ask(frame, 'model_forward', 'Once');
        status.textContent = `forward: ${f.cycles.toLocaleString()} cycles, ${f.logits_identical} of ${f.logits} logits bit-identical to the reference; animating ${op}…`;
        await ask(frame, 'canvas', { wavelets: true });
        await ask(frame, 'model_animate', { op, speed: 200 });
        let a;
        do {
          await new Promise((r) => setTimeout(r, 250));   // a progress line, not a synchronisation
          a = (await ask(frame, 'state')).model.animation;
          status.textContent = `${op}: cycle ${a.cycles.toLocaleString()}${a.done ? '' : '…'}`;
        } while (a && !a.done);
        status.textContent = `${op}: ${a.cycles.toLocaleString()} cycles in cycle mode; its output ${a.matches_fast ? 'matches' : 'differs from'} the fast run's, bit for bit.`;
        demo.dataset.done = a.matches_fast ? 'match' : 'differ';
      } catch (e) {
        status.textContent = `failed: ${e.message}`;
        demo.dataset.done = 'error';
      }
      button.disabled = false;
    });
  }
})();
