// The lint core runs in this worker, so that the page answers the keyboard
// while a lint runs: main.wasm (playground/wasm) is started here, and each
// message from the page is a lint request, answered with its response.
"use strict";

importScripts("wasm_exec.js");

const started = (async () => {
  const go = new Go();
  const ready = new Promise((resolve) => { self.proxylintReady = resolve; });
  let inst;
  try {
    inst = await WebAssembly.instantiateStreaming(fetch("main.wasm"), go.importObject);
  } catch (err) {
    // A server that does not say application/wasm.
    const bytes = await (await fetch("main.wasm")).arrayBuffer();
    inst = await WebAssembly.instantiate(bytes, go.importObject);
  }
  go.run(inst.instance);
  await ready;
  const api = self.proxylint;
  postMessage({ type: "ready", version: api.version, rules: api.rules(), examples: api.examples() });
  return api;
})();

started.catch((err) => postMessage({ type: "failed", error: String(err) }));

let warmed = false;

onmessage = async (ev) => {
  const api = await started;
  const response = await api.lint(ev.data.request);
  postMessage({ type: "lint", id: ev.data.id, response });
  if (!warmed) {
    // Once the page has its first findings, build what the first lint of
    // another kind would (Envoy's schema), while nobody waits for it.
    warmed = true;
    setTimeout(() => api.warm(), 0);
  }
};
