// waferlab-api.js: window.waferlab — the page's scripting and embedding surface.
//
// Every method goes through one C++ entry point, wl_js_call(method, jsonArgs),
// which returns JSON. A new engine feature adds a method in ui/app.cpp and a
// name to METHODS below; nothing else changes. docs/js-api.md is the manual.
(function () {
  'use strict';

  // name → how positional JS arguments become the JSON object C++ receives.
  const METHODS = {
    select_pe: (x, y) => (x === null || x === undefined ? null : { x, y }),
    set_mesh: (w, h) => ({ w, h }),
    about: (open = true) => ({ open }),
    editor: (open = true, focus = false) => ({ open, focus }),
    get_source: () => null,
    load_example: (name, discard = false) => ({ name, discard }),
    set_source: (file, text) => (text === undefined ? { text: file } : { file, text }),
    compile: () => null,
    play: (speed) => (speed === undefined ? null : { speed }),
    pause: () => null,
    reset: () => null,
    rewind: (cycle) => ({ cycle }),
    set_mode: (mode) => ({ mode }),
    inspect: (x, y) => ({ x, y }),
    canvas: (settings = {}) => settings,
    compare: (config = 'gpt-nano', gpu = 'a100', options = {}) => Object.assign({ config, gpu }, options),
    open_file: (name, text, discard = false) => ({ name, text, discard }),
    save_file: (path) => (path === undefined ? null : { path }),
    export_png: (path) => (path === undefined ? null : { path }),
    set_font_scale: (scale) => ({ scale }),
    save_state: () => null,
    clear_state: () => null,
    dismiss_notices: () => null,
    open_lesson: (number, discard = false) => ({ number, discard }),
    check_lesson: () => null,
    lesson_hint: () => null,
    lesson_starter: (discard = false) => ({ discard }),
    show_solution: (discard = false) => ({ discard }),
    lessons_panel: (open = true) => ({ open }),
    model_compile: (config = 'gpt-nano', mesh = '32x32', options = {}) => Object.assign({ config, mesh }, options),
    model_stages: () => null,
    model_forward: (prompt) => (prompt === undefined ? null : { prompt }),
    model_generation: (options = {}) => options,
    model_stop: () => null,
    model_pe: (x, y) => ({ x, y }),
    model_open_kernel: (op) => ({ op }),
    model_animate: (options = {}) => options,
    model_window: (settings = {}) => settings,
  };

  const KERNEL_FILE = /\.(wk|txt)$/i;
  const MAX_KERNEL_BYTES = 4 << 20;

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
    dev: (v) => (v === '1' ? [['--dev'], null] : [null, `dev=${v} ignored: dev=1 shows the developer tools (the Dear ImGui demo)`]),
    example: (v) => (/^[a-z0-9_-]{1,40}$/.test(v)
      ? [['--example', v], null]
      : [null, `example=${v} ignored: expected an example name such as example=gemv`]),
    // A number the app checks against its lessons (it says so in the app when there is no such lesson).
    lesson: (v) => (/^[1-9]\d{0,3}$/.test(v)
      ? [['--lesson', v], null]
      : [null, `lesson=${v} ignored: expected a lesson number such as lesson=1`]),
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
    ready: false,      // true once the first frame is on screen
    version: null,

    // Calls a C++ method by name with a JSON-able argument object. Throws on error.
    call(method, args = null) {
      if (!api.ready) throw new Error('waferlab is not ready yet: await waferlab.whenReady()');
      const out = JSON.parse(Module.ccall('wl_js_call', 'string', ['string', 'string'], [method, JSON.stringify(args)]));
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
      if (!KERNEL_FILE.test(file.name)) return api._refuse(`${file.name} is not a kernel file (.wk)`);
      if (file.size > MAX_KERNEL_BYTES) return api._refuse(`${file.name} is too big for a kernel`);
      const text = await file.text();
      await readyPromise;
      try { return api.call('open_file', { name: file.name, text, ask: true }); }
      catch (e) { return api._refuse(e.message); }
    },

    // ---- internals used by the page shell -------------------------------------
    _firstFrame() {
      api.ready = true;
      api.version = api.call('state').version;
      el('loading') && el('loading').classList.add('done');
      readyResolve(api);
      window.dispatchEvent(new CustomEvent('waferlab:ready', { detail: api }));
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

    // File > Open… on the web: the hidden <input type=file> in index.html.
    _pickFile() { const input = el('file-input'); if (input) { input.value = ''; input.click(); } },

    // Wires the file picker, drag-and-drop onto the page, and a last save when the page goes away
    // (localStorage is synchronous, so the write is done before the page is).
    _wireFiles() {
      const input = el('file-input');
      if (input) input.addEventListener('change', () => { if (input.files[0]) api.openFile(input.files[0]); });
      const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
      window.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } });
      window.addEventListener('drop', (e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        const file = e.dataTransfer.files[0];
        if (file) api.openFile(file);
      });
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
      };
    },
  };

  for (const [name, toArgs] of Object.entries(METHODS)) {
    api[name] = (...a) => api.call(name, toArgs(...a));
  }

  // The emulation runs in slices, one per frame, so running returns at once;
  // the promise resolves with state() when the run stops (target, end or error).
  api.whenStopped = () => new Promise((resolve) => {
    const poll = () => {
      const s = api.state();
      if (!s.running) resolve(s);
      else requestAnimationFrame(poll);
    };
    poll();
  });
  api.run = (cycles) => {
    api.call('run', cycles === undefined || cycles === null ? null : { cycles });
    return api.whenStopped();
  };
  // Generation makes a token per frame, so it returns at once; the promise resolves with
  // model_generation() when the last token is made (rejects if a fault stopped it).
  api.model_generate = (options = {}) => {
    api.call('model_generate', options);
    return new Promise((resolve, reject) => {
      const poll = () => {
        let g;
        try { g = api.call('model_generation', { check: !!options.check }); } catch (e) { reject(e); return; }
        if (g.running) requestAnimationFrame(poll);
        else if (g.error) reject(new Error(`model_generate: ${g.error}`));
        else resolve(g);
      };
      poll();
    });
  };
  window.waferlab = api;
  api._wireFiles();
})();
