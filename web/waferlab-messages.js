// waferlab-messages.js: drive WaferLab from the page that embeds it, by postMessage. The methods
// are window.waferlab's own (the table in ui/app_methods.cpp), minus the page-only ones (storage,
// downloads). A message is data: a method name looked up in that table and JSON-able arguments;
// nothing in it is ever evaluated. Only origins on the allowlist are obeyed: this page's own, and
// those its URL lists (?origins=https://a.example,https://b.example). Everything else is ignored,
// and counted in waferlab.messages.ignored. docs/js-api.md#embedding is the manual.
//
//   → {waferlab: 1, id, method: 'select_pe', args: [1, 0]}
//   ← {waferlab: 1, id, result: {...state()}}   or   {waferlab: 1, id, error: 'select_pe: ...'}
//   ← {waferlab: 1, event: 'ready' | 'cycle' | 'finished' | 'fault', detail: {...}}
(function () {
  'use strict';
  const api = window.waferlab;
  const ignored = [];

  api.messages = {
    allowed: () => [...api._allowed],
    ignored,   // [{origin, method}] of messages refused because their origin is not allowed
  };

  // The parent's origin when the browser says it (Chromium's ancestorOrigins, else the referrer);
  // events go there if it is allowed, else to each allowed origin (the browser drops mismatches).
  function parentOrigins() {
    if (window.parent === window) return [];
    let origin = null;
    if (location.ancestorOrigins && location.ancestorOrigins.length) origin = location.ancestorOrigins[0];
    else if (document.referrer) { try { origin = new URL(document.referrer).origin; } catch { /* none */ } }
    if (origin) return api._allowed.has(origin) ? [origin] : [];
    return [...api._allowed];
  }

  api._postEvent = (name, detail) => {
    for (const origin of parentOrigins()) window.parent.postMessage({ waferlab: 1, event: name, detail }, origin);
  };

  window.addEventListener('message', async (e) => {
    const m = e.data;
    if (!m || typeof m !== 'object' || m.waferlab !== 1 || !('method' in m)) return;   // not a request to us
    const method = typeof m.method === 'string' ? m.method.slice(0, 64) : '';
    if (!api._allowed.has(e.origin)) {
      ignored.push({ origin: e.origin, method });
      console.warn(`[waferlab] ignored a message from ${e.origin}: not an allowed origin (add it to ?origins=)`);
      return;
    }
    const reply = (body) => { if (e.source) e.source.postMessage(Object.assign({ waferlab: 1, id: m.id }, body), e.origin); };
    try {
      await api.whenReady();
      const entry = api._methods.get(method);
      if (!entry || entry.row.internal) throw new Error(`unknown method '${method}'`);
      if (entry.row.local) throw new Error(`${method} is not available by message (it touches the user's files or saved work)`);
      const args = Array.isArray(m.args) ? m.args : [];
      reply({ result: await api[method](...args) });
    } catch (err) {
      reply({ error: String(err && err.message ? err.message : err) });
    }
  });
})();
