// waferlab-share.js: share links and embed snippets. The state (ui/share_state.h, as JSON from
// share_state()) is compressed with the browser's own CompressionStream ('deflate-raw') and
// written into the URL hash as base64url: #share=<payload>. Reading a link is the reverse, with
// limits first, so a damaged, hostile or oversized hash is refused with a reason and nothing is
// applied. Loaded after waferlab-api.js; adds to window.waferlab.
(function () {
  'use strict';
  const api = window.waferlab;

  const HASH_KEY = '#share=';
  const MAX_HASH_CHARS = 256 * 1024;      // what a link may carry; past this it is refused unread
  const MAX_JSON_BYTES = 5 * 1024 * 1024; // what it may unpack to: a 4 MiB kernel and its fields

  function toBase64url(bytes) {
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function fromBase64url(text) {
    if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('it is damaged (it has characters a share link never has)');
    let bin;
    try { bin = atob(text.replace(/-/g, '+').replace(/_/g, '/')); } catch { throw new Error('it is damaged (it was cut short)'); }
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) out[i] = bin.charCodeAt(i);
    return out;
  }

  async function pack(state) {
    const bytes = new TextEncoder().encode(JSON.stringify(state));
    const packed = await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer();
    return toBase64url(new Uint8Array(packed));
  }

  // Unpacks at most MAX_JSON_BYTES, stopping as soon as it would be more (a small hash can unpack to gigabytes).
  async function unpack(payload) {
    const reader = new Blob([fromBase64url(payload)]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
    const parts = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.length;
        if (total > MAX_JSON_BYTES) {
          reader.cancel().catch(() => {});
          throw new Error(`it unpacks to more than ${MAX_JSON_BYTES >> 20} MiB, more than any kernel`);
        }
        parts.push(value);
      }
    } catch (e) {
      if (/unpacks to more/.test(e.message)) throw e;
      throw new Error('it is damaged (its data does not unpack)');
    }
    let text;
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(await new Blob(parts).arrayBuffer()); }
    catch { throw new Error('it is damaged (its text is not UTF-8)'); }
    try { return JSON.parse(text); } catch { throw new Error('it is damaged (its contents are not JSON)'); }
  }

  // The hash → {state} or {problem}; null when the hash is not a share link at all.
  async function readHash(hash) {
    if (!hash || !hash.startsWith(HASH_KEY)) return null;
    const payload = hash.slice(HASH_KEY.length);
    if (payload.length > MAX_HASH_CHARS)
      return { problem: `it carries ${Math.round(payload.length / 1024)} KB, more than the ${MAX_HASH_CHARS >> 10} KB a link may` };
    if (!payload.length) return { problem: 'it is empty' };
    try { return { state: await unpack(payload) }; } catch (e) { return { problem: e.message }; }
  }

  const appUrl = () => location.origin + location.pathname;

  Object.assign(api, {
    // A link to what the app shows now, the embed URL for the same state, and an <iframe> for it.
    async shareLinks() {
      const state = api.call('share_state');
      const payload = await pack(state);
      if (payload.length > MAX_HASH_CHARS)
        throw new Error(`this kernel is too big for a link (${Math.round(payload.length / 1024)} KB packed; ` +
                        `a link carries ${MAX_HASH_CHARS >> 10} KB): use File > Download kernel instead`);
      const link = `${appUrl()}${HASH_KEY}${payload}`;
      const embed = `${appUrl()}?embed=1${HASH_KEY}${payload}`;
      const title = `WaferLab: ${state.file}`.replace(/[<>"&]/g, '');
      const iframe = `<iframe src="${embed}" title="${title}" width="640" height="420" style="border:0;max-width:100%" loading="lazy"></iframe>`;
      return { link, embed, iframe };
    },

    // Started at boot; the result is applied before the app says it is ready (_firstFrame).
    _pendingShare: null,
    _readShareHash() { api._pendingShare = readHash(location.hash); },

    // Applies a read hash, or says why it cannot, keeping the saved work either way.
    async _applyShare() {
      const read = await api._pendingShare;
      api._pendingShare = null;
      if (!read) return;
      let problem = read.problem;
      if (!problem) {
        const out = api._callRaw('open_share', read.state);
        if (out && out.error) problem = out.error.replace(/^open_share: /, '');
      }
      if (problem) {
        const text = `This share link could not be opened: ${problem}. Nothing was changed; your saved work is as it was.`;
        api._callRaw('notice', { text });
        console.warn('[waferlab] ' + text);
      }
      // The app now holds the state, and saves it: a reload must not open the link again over later edits.
      if (!api.embedded) history.replaceState(null, '', location.pathname + location.search);
    },

    // File > Share and the toolbar's Share button.
    async _openShareDialog() {
      const dialog = document.getElementById('share-dialog');
      if (!dialog) return;
      const field = (id) => document.getElementById(id);
      try {
        const { link, iframe } = await api.shareLinks();
        field('share-link').value = link;
        field('share-iframe').value = iframe;
        field('share-problem').textContent = '';
      } catch (e) {
        field('share-link').value = field('share-iframe').value = '';
        field('share-problem').textContent = e.message;
      }
      if (!dialog.open) dialog.showModal();
      field('share-link').select();
    },

    _wireShare() {
      const dialog = document.getElementById('share-dialog');
      if (!dialog) return;
      const copy = async (id, button) => {
        const box = document.getElementById(id);
        box.select();
        try { await navigator.clipboard.writeText(box.value); } catch { document.execCommand('copy'); }
        button.textContent = 'Copied';
        setTimeout(() => (button.textContent = 'Copy'), 1500);
      };
      document.getElementById('share-copy-link').addEventListener('click', (e) => copy('share-link', e.target));
      document.getElementById('share-copy-iframe').addEventListener('click', (e) => copy('share-iframe', e.target));
      document.getElementById('share-close').addEventListener('click', () => dialog.close());
      // Keys typed in the dialog are the dialog's: the app listens on window (SDL), where Space would run the kernel.
      for (const type of ['keydown', 'keyup', 'keypress']) dialog.addEventListener(type, (e) => e.stopPropagation());
      // Pasting another link into this tab's address bar changes only the hash: open it too.
      window.addEventListener('hashchange', () => {
        if (!api.ready || !location.hash.startsWith(HASH_KEY)) return;
        api._readShareHash();
        api._applyShare();
      });
      // "Open in WaferLab" in an embed: the full app, in a new tab, with what the embed shows now.
      const full = document.getElementById('open-full');
      if (full) full.addEventListener('click', async (e) => {
        e.preventDefault();
        try { window.open((await api.shareLinks()).link, '_blank', 'noopener'); }
        catch { window.open(appUrl(), '_blank', 'noopener'); }
      });
    },
  });
  api._wireShare();
})();
