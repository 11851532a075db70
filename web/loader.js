// Proflens boot loader: finds the wasm-bindgen glue and the wasm of the page,
// compiles it and starts the app; then, without holding the page up, compiles
// the analysis worker's own wasm once and spawns workers from a Blob URL of
// the worker's glue. Works served over HTTP and as a single HTML file from file://.
// No eval, no inline handlers: it runs under a strict Content-Security-Policy.
(function () {
  'use strict';

  // The message that hands a worker its compiled module (or why there is none).
  var BOOT = 'proflens-worker-boot';

  // Runs inside each worker, after the worker's glue (which defines `wasm_bindgen`).
  // The BOOT message carries the compiled module; start_worker() then takes
  // over `onmessage` and posts {kind: 'ready'}. Messages that come before it
  // (the module may still be compiling) are kept and handed over after.
  var WORKER_BOOTSTRAP = [
    'var early = [];',
    'self.onmessage = function (event) {',
    "  if (!event.data || event.data.kind !== '" + BOOT + "') { early.push(event.data); return; }",
    '  self.onmessage = null;',
    '  var boot = event.data;',
    '  Promise.resolve()',
    '    .then(function () {',
    '      if (!boot.module) throw new Error(boot.error || "no module");',
    '      return wasm_bindgen({ module_or_path: boot.module });',
    '    })',
    '    .then(function () {',
    '      wasm_bindgen.start_worker();',
    "      early.forEach(function (data) { self.dispatchEvent(new MessageEvent('message', { data: data })); });",
    '    })',
    '    .catch(function (err) {',
    "      self.postMessage({ kind: 'error', message: 'The analysis worker could not start: ' +",
    "        ((err && err.message) || String(err)) + '.' });",
    '    });',
    '};',
  ].join('\n');

  function showBootError(text) {
    var box = document.getElementById('boot');
    if (!box) {
      box = document.createElement('div');
      box.id = 'boot';
      document.body.insertBefore(box, document.body.firstChild);
    }
    box.className = 'boot-message boot-error';
    box.setAttribute('role', 'alert');
    box.textContent = '';
    var title = document.createElement('strong');
    title.textContent = 'Proflens could not start. ';
    box.appendChild(title);
    box.appendChild(document.createTextNode(text));
  }

  // The error as a sentence without its final full stop: "Could not load …".
  function reason(err) {
    var text = String((err && err.message) || err).replace(/\.$/, '');
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function base64ToBytes(text) {
    var binary = atob(text.replace(/\s+/g, ''));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  // The bytes of an embedded module (single file): base64, maybe of gzip.
  async function embeddedBytes(element) {
    var bytes = base64ToBytes(element.textContent || '');
    var encoding = element.getAttribute('data-encoding') || 'base64';
    if (encoding === 'gzip-base64') {
      if (typeof DecompressionStream !== 'function') {
        throw new Error('this browser cannot decompress the embedded app (no DecompressionStream); use a current Chrome, Edge, Firefox or Safari');
      }
      return new Response(
        new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))
      ).arrayBuffer();
    }
    if (encoding !== 'base64') {
      throw new Error('the embedded app has an unknown encoding "' + encoding + '"');
    }
    return bytes;
  }

  function fetched(response) {
    if (!response.ok) throw new Error('could not load ' + response.url + ' (HTTP ' + response.status + ')');
    return response;
  }

  // Returns {wasmBytes, workerGlueText} for the deployment mode in use: the
  // page's module and the worker's glue (small; the worker's Blob is made
  // from it when a worker is spawned, which cannot wait).
  async function loadParts() {
    var wasmEl = document.getElementById('proflens-wasm');
    if (wasmEl) {
      // Single file: everything is inline; the page's glue has run already.
      var workerGlueEl = document.getElementById('proflens-worker-glue');
      if (!document.getElementById('proflens-glue') || !workerGlueEl) {
        throw new Error('the page has the WebAssembly module but not its JavaScript glue');
      }
      return { wasmBytes: await embeddedBytes(wasmEl), workerGlueText: workerGlueEl.textContent || '' };
    }
    // Served: fetch the files next to this page.
    var responses = await Promise.all([fetch('proflens_bg.wasm'), fetch('proflens_worker.js')]);
    responses.forEach(fetched);
    return {
      wasmBytes: await responses[0].arrayBuffer(),
      workerGlueText: await responses[1].text(),
    };
  }

  // The analysis worker's module, compiled once for every worker. When it is
  // ready is kept for tests/browser/bench_boot.mjs (ms since navigation start).
  async function compileWorkerModule() {
    var wasmEl = document.getElementById('proflens-worker-wasm');
    var bytes = wasmEl
      ? await embeddedBytes(wasmEl)
      : await fetched(await fetch('proflens_worker_bg.wasm')).arrayBuffer();
    var module = await WebAssembly.compile(bytes);
    window.__proflensWorkerModuleAt = performance.now();
    return module;
  }

  // Recent profiles on Chromium: the File System Access handles of picked or
  // dropped files and folders, kept in this page's IndexedDB (never sent
  // anywhere) so that a click reopens them after the browser grants read
  // access again. Used by crates/app/src/recent_handles.rs; absent support
  // leaves `supported` false and the app lists names only.
  var HANDLE_DB = 'proflens-recent';
  var HANDLE_STORE = 'handles';

  function handleStore(mode, use) {
    return new Promise(function (resolve, reject) {
      var open = indexedDB.open(HANDLE_DB, 1);
      open.onupgradeneeded = function () { open.result.createObjectStore(HANDLE_STORE); };
      open.onerror = function () { reject(open.error); };
      open.onsuccess = function () {
        var db = open.result;
        var tx = db.transaction(HANDLE_STORE, mode);
        var request = use(tx.objectStore(HANDLE_STORE));
        tx.oncomplete = function () { db.close(); resolve(request ? request.result : undefined); };
        tx.onerror = function () { db.close(); reject(tx.error); };
      };
    });
  }

  // Every file below a handle, with its path from the picked item's name
  // (as a folder pick's webkitRelativePath has it).
  async function filesBelow(handle, prefix, out) {
    if (handle.kind === 'file') {
      out.push({ path: prefix + handle.name, file: await handle.getFile() });
      return;
    }
    for await (var child of handle.values()) await filesBelow(child, prefix + handle.name + '/', out);
  }

  async function filesOf(handles) {
    var out = [];
    for (var i = 0; i < handles.length; i++) await filesBelow(handles[i], '', out);
    return out;
  }

  window.proflensRecentHandles = {
    supported: typeof window.showOpenFilePicker === 'function' &&
      typeof window.showDirectoryPicker === 'function' && typeof indexedDB === 'object',
    // The pickers: {handles, files: [{path, file}]}; rejects when cancelled.
    pickFiles: async function () {
      var handles = await window.showOpenFilePicker({ multiple: true });
      return { handles: handles, files: await filesOf(handles) };
    },
    pickFolder: async function () {
      var handles = [await window.showDirectoryPicker({ mode: 'read' })];
      return { handles: handles, files: await filesOf(handles) };
    },
    // Must be called inside the drop event: the promises are taken there.
    dropHandles: function (dataTransfer) {
      var items = Array.prototype.slice.call(dataTransfer.items || []);
      var promises = items
        .filter(function (item) { return item.kind === 'file' && typeof item.getAsFileSystemHandle === 'function'; })
        .map(function (item) { return item.getAsFileSystemHandle(); });
      return Promise.all(promises).then(function (hs) { return hs.filter(Boolean); });
    },
    save: function (key, handles) {
      return handleStore('readwrite', function (store) { store.put(handles, key); });
    },
    forgetAll: function () {
      return handleStore('readwrite', function (store) { store.clear(); });
    },
    // Drops the handles of entries no longer listed.
    keepOnly: function (keys) {
      return handleStore('readwrite', function (store) {
        var all = store.getAllKeys();
        all.onsuccess = function () {
          all.result.forEach(function (key) { if (keys.indexOf(key) < 0) store.delete(key); });
        };
      });
    },
    // Asks for read access again (a click is needed for the prompt), then
    // reads the files: [{path, file}].
    reopen: async function (key) {
      var handles = await handleStore('readonly', function (store) { return store.get(key); });
      if (!handles || !handles.length) throw new Error('this browser no longer holds these files');
      for (var i = 0; i < handles.length; i++) {
        var state = await handles[i].queryPermission({ mode: 'read' });
        if (state !== 'granted') state = await handles[i].requestPermission({ mode: 'read' });
        if (state !== 'granted') throw new Error('reading them again was not allowed');
      }
      return filesOf(handles);
    },
  };

  async function boot() {
    if (typeof WebAssembly !== 'object') {
      throw new Error('this browser does not run WebAssembly (or it is turned off)');
    }
    if (typeof wasm_bindgen !== 'function') {
      throw new Error('the app script (proflens.js) did not load');
    }
    var parts = await loadParts();
    var module = await WebAssembly.compile(parts.wasmBytes);

    var workerModule = null;
    function startWorkerModule() {
      if (!workerModule) {
        workerModule = compileWorkerModule();
        // A failed compile is told to the worker that waits for it; the next spawn tries again.
        workerModule.catch(function () { workerModule = null; });
      }
      return workerModule;
    }
    var workerUrl = null;
    // Returns a Worker at once; its module follows as soon as it is compiled
    // (it posts {kind: 'ready'} when it listens, or {kind: 'error'}).
    function spawnWorker() {
      if (!workerUrl) {
        workerUrl = URL.createObjectURL(
          new Blob([parts.workerGlueText, '\n', WORKER_BOOTSTRAP], { type: 'text/javascript' })
        );
      }
      var worker = new Worker(workerUrl);
      startWorkerModule().then(
        function (workerModule) { worker.postMessage({ kind: BOOT, module: workerModule }); },
        function (err) { worker.postMessage({ kind: BOOT, error: reason(err) }); }
      );
      return worker;
    }
    // One worker is started ahead, so that the first file opened finds it
    // listening: starting one took 40-45 ms of the 75 ms from a file chosen
    // to its first request (Chromium). What it says before it is handed out
    // is kept, and told again once the caller has set its handlers.
    var spare = null;
    function startSpare() {
      var worker = spawnWorker();
      var said = [];
      worker.onmessage = function (e) { said.push(e.data); };
      worker.onerror = function (e) {
        e.preventDefault();
        if (spare && spare.worker === worker) spare = null;
        worker.terminate();
      };
      spare = { worker: worker, said: said };
    }
    window.proflensSpawnWorker = function () {
      var taken = spare;
      if (!taken) return spawnWorker();
      spare = null;
      taken.worker.onmessage = null;
      taken.worker.onerror = null;
      // A spare that said it is ready is sent requests at once, not after
      // its words are told again (crates/app/src/bridge/mod.rs).
      taken.worker.proflensReady = taken.said.some(function (d) { return d && d.kind === 'ready'; });
      setTimeout(function () {
        taken.said.forEach(function (data) { taken.worker.dispatchEvent(new MessageEvent('message', { data: data })); });
      }, 0);
      return taken.worker;
    };

    // A worker of its own warms the analysis code up, then ends (why:
    // crates/app/src/worker/warm_up.rs). Beside the spare, so that a file
    // chosen at once does not wait for it. The overview it computed is
    // drawn once, unseen, to warm the page's code up too
    // (crates/app/src/warm_render.rs). How it ended is kept for
    // tests/browser/boot.test.mjs: 'done', or why not.
    function warmUp() {
      var worker = spawnWorker();
      var done = function (outcome) {
        window.__proflensWarmUp = outcome;
        worker.terminate();
      };
      worker.onmessage = function (e) {
        var kind = e.data && e.data.kind;
        if (kind === 'warmed_up') {
          done('done');
          if (e.data.model !== undefined) wasm_bindgen.warm_render(e.data.model);
        }
        else if (kind === 'error') done('failed: ' + e.data.message);
      };
      worker.onerror = function (e) { e.preventDefault(); done('failed: ' + e.message); };
      worker.postMessage({ request: { kind: 'warm_up' } });
    }

    await wasm_bindgen({ module_or_path: module });
    wasm_bindgen.start_app();
    // The worker's module is compiled, and a worker started, while the reader picks a file.
    setTimeout(function () { startSpare(); warmUp(); }, 0);
    var bootBox = document.getElementById('boot');
    if (bootBox) bootBox.remove();
  }

  boot().catch(function (err) {
    if (window.console) console.error('Proflens boot failed:', err);
    showBootError(reason(err) + '. Reload the page; if it persists, use a current Chrome, Edge, Firefox or Safari with JavaScript and WebAssembly enabled.');
  });
})();
