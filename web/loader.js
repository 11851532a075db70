// Proflens boot loader: finds the wasm-bindgen glue and the wasm, compiles the
// module once, starts the app on the page and spawns analysis workers from a
// Blob URL. Works served over HTTP and as a single HTML file from file://.
// No eval, no inline handlers: it runs under a strict Content-Security-Policy.
(function () {
  'use strict';

  // Runs inside each worker, after the glue (which defines `wasm_bindgen`).
  // The first message carries the compiled module; start_worker() then takes
  // over `onmessage` and posts {kind: 'ready'}.
  var WORKER_BOOTSTRAP = [
    'self.onmessage = function (event) {',
    '  self.onmessage = null;',
    '  var module = event.data && event.data.module;',
    '  Promise.resolve()',
    '    .then(function () { return wasm_bindgen({ module_or_path: module }); })',
    '    .then(function () { wasm_bindgen.start_worker(); })',
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

  // Returns {glueText, wasmBytes} for the deployment mode in use.
  async function loadParts() {
    var wasmEl = document.getElementById('proflens-wasm');
    if (wasmEl) {
      // Single file: everything is inline.
      var glueEl = document.getElementById('proflens-glue');
      if (!glueEl) throw new Error('the page has the WebAssembly module but not its JavaScript glue');
      var bytes = base64ToBytes(wasmEl.textContent || '');
      var encoding = wasmEl.getAttribute('data-encoding') || 'base64';
      if (encoding === 'gzip-base64') {
        if (typeof DecompressionStream !== 'function') {
          throw new Error('this browser cannot decompress the embedded app (no DecompressionStream); use a current Chrome, Edge, Firefox or Safari');
        }
        bytes = await new Response(
          new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))
        ).arrayBuffer();
      } else if (encoding !== 'base64') {
        throw new Error('the embedded app has an unknown encoding "' + encoding + '"');
      }
      return { glueText: glueEl.textContent || '', wasmBytes: bytes };
    }
    // Served: fetch the files next to this page.
    var responses = await Promise.all([fetch('proflens.js'), fetch('proflens_bg.wasm')]);
    responses.forEach(function (r) {
      if (!r.ok) throw new Error('could not load ' + r.url + ' (HTTP ' + r.status + ')');
    });
    return {
      glueText: await responses[0].text(),
      wasmBytes: await responses[1].arrayBuffer(),
    };
  }

  async function boot() {
    if (typeof WebAssembly !== 'object') {
      throw new Error('this browser does not run WebAssembly (or it is turned off)');
    }
    if (typeof wasm_bindgen !== 'function') {
      throw new Error('the app script (proflens.js) did not load');
    }
    var parts = await loadParts();
    var module = await WebAssembly.compile(parts.wasmBytes);

    var workerUrl = null;
    window.proflensSpawnWorker = function () {
      if (!workerUrl) {
        workerUrl = URL.createObjectURL(
          new Blob([parts.glueText, '\n', WORKER_BOOTSTRAP], { type: 'text/javascript' })
        );
      }
      var worker = new Worker(workerUrl);
      worker.postMessage({ module: module });
      return worker;
    };

    await wasm_bindgen({ module_or_path: module });
    wasm_bindgen.start_app();
    var bootBox = document.getElementById('boot');
    if (bootBox) bootBox.remove();
  }

  boot().catch(function (err) {
    if (window.console) console.error('Proflens boot failed:', err);
    showBootError(reason(err) + '. Reload the page; if it persists, use a current Chrome, Edge, Firefox or Safari with JavaScript and WebAssembly enabled.');
  });
})();
