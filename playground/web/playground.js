// The playground's page: files in tabs, linted as they are typed by
// proxylint's lint core (main.wasm, built from playground/wasm, run in
// worker.js), with the findings, their fixes and the rules' documentation
// beside them. Nothing is fetched but the page's own files, and nothing
// typed leaves the page.
"use strict";

(() => {
  const $ = (sel) => document.querySelector(sel);
  const body = document.body;
  const text = $("#text");
  const gutter = $("#gutter");
  const tabs = $("#tabs");
  const status = $("#status");
  const list = $("#findings");

  const state = {
    files: [],       // {name, text}
    active: 0,
    findings: [],    // of the last lint
    linted: null,    // the files' texts that lint read, by name
    seq: 0,          // lints started
    edits: 0,        // changes typed
    done: 0,         // lints answered
    timer: 0,
    rules: [],
    examples: [],
  };

  const severities = { error: 3, warning: 2, note: 1 };

  // ---- the lint core, in a worker (worker.js) ----

  const worker = new Worker("worker.js");
  const pending = new Map(); // lint id → resolve
  let lintID = 0;

  function lintRequest(json) {
    return new Promise((resolve) => {
      const id = ++lintID;
      pending.set(id, resolve);
      worker.postMessage({ id, request: json });
    });
  }

  function failed(msg) {
    status.classList.add("error");
    status.textContent = "proxylint could not start: " + msg;
    body.dataset.state = "failed";
  }

  worker.onerror = (ev) => failed(ev.message || "the worker failed");
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.type === "lint") {
      const resolve = pending.get(m.id);
      pending.delete(m.id);
      if (resolve) resolve(m.response);
    } else if (m.type === "ready") {
      $("#version").textContent = "proxylint " + m.version;
      state.rules = JSON.parse(m.rules);
      state.examples = JSON.parse(m.examples);
      fillRules();
      fillExamples();
      const wanted = new URLSearchParams(location.hash.slice(1)).get("example");
      loadExample(state.examples.find((e) => e.id === wanted) || state.examples[0]);
    } else if (m.type === "failed") {
      failed(m.error);
    }
  };

  // ---- files and the editor ----

  function fillExamples() {
    const sel = $("#example");
    for (const e of state.examples) {
      sel.append(new Option(e.title, e.id));
    }
    sel.append(new Option("Empty: one nginx.conf", "empty"));
    sel.addEventListener("change", () => {
      const e = state.examples.find((x) => x.id === sel.value);
      loadExample(e || { id: "empty", files: [{ name: "nginx.conf", text: "" }] });
    });
  }

  function loadExample(e) {
    $("#example").value = e.id;
    state.files = e.files.map((f) => ({ name: f.name, text: f.text }));
    state.active = 0;
    showFile();
    lintNow();
  }

  function showFile() {
    const f = state.files[state.active];
    text.value = f.text;
    f.text = text.value; // as the textarea holds it (line breaks)
    renderTabs();
    renderGutter();
  }

  function renderTabs() {
    tabs.textContent = "";
    state.files.forEach((f, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.setAttribute("role", "tab");
      b.setAttribute("aria-selected", String(i === state.active));
      b.dataset.name = f.name;
      b.title = "Double-click to rename";
      b.append(f.name);
      const n = state.findings.filter((x) => x.file === f.name && !x.suppressed).length;
      if (n > 0) {
        const c = document.createElement("span");
        c.className = "count";
        c.textContent = String(n);
        b.append(c);
      }
      if (state.files.length > 1) {
        const x = document.createElement("span");
        x.className = "close";
        x.textContent = "×";
        x.title = "Remove " + f.name;
        x.addEventListener("click", (ev) => {
          ev.stopPropagation();
          state.files.splice(i, 1);
          state.active = Math.min(state.active, state.files.length - 1);
          showFile();
          lintNow();
        });
        b.append(x);
      }
      b.addEventListener("click", () => { state.active = i; showFile(); });
      b.addEventListener("dblclick", () => {
        const name = prompt("File name", f.name);
        if (name && !state.files.some((g) => g.name === name)) {
          f.name = name;
          renderTabs();
          lintNow();
        }
      });
      tabs.append(b);
    });
    const add = document.createElement("button");
    add.type = "button";
    add.className = "add";
    add.textContent = "+ file";
    add.addEventListener("click", () => {
      const name = prompt("Name of the new file (conf.d/app.conf, routes.yaml)", "conf.d/app.conf");
      if (!name) return;
      if (state.files.some((g) => g.name === name)) {
        state.active = state.files.findIndex((g) => g.name === name);
      } else {
        state.files.push({ name, text: "" });
        state.active = state.files.length - 1;
      }
      showFile();
      lintNow();
    });
    tabs.append(add);
  }

  function renderGutter() {
    const f = state.files[state.active];
    const lines = f.text.split("\n").length;
    const worst = {};
    for (const x of state.findings) {
      if (x.file !== f.name || x.suppressed || !x.line) continue;
      if (!worst[x.line] || severities[x.severity] > severities[worst[x.line]]) worst[x.line] = x.severity;
    }
    const frag = document.createDocumentFragment();
    for (let i = 1; i <= lines; i++) {
      const d = document.createElement("div");
      d.textContent = String(i);
      if (worst[i]) d.className = worst[i];
      frag.append(d);
    }
    gutter.textContent = "";
    gutter.append(frag);
    gutter.scrollTop = text.scrollTop;
  }

  text.addEventListener("input", () => {
    state.files[state.active].text = text.value;
    state.edits++;
    renderGutter();
    stale();
    clearTimeout(state.timer);
    state.timer = setTimeout(lintNow, 250);
  });
  text.addEventListener("scroll", () => { gutter.scrollTop = text.scrollTop; });

  // lineStart is the offset, in UTF-16 units, of the start of line n.
  function lineStart(s, n) {
    let off = 0;
    for (let i = 1; i < n; i++) {
      const nl = s.indexOf("\n", off);
      if (nl < 0) return s.length;
      off = nl + 1;
    }
    return off;
  }

  // goTo shows a file and selects a line of it.
  function goTo(file, line) {
    const i = state.files.findIndex((f) => f.name === file);
    if (i < 0) return;
    state.active = i;
    showFile();
    if (!line) return;
    const s = text.value;
    const from = lineStart(s, line);
    let to = s.indexOf("\n", from);
    if (to < 0) to = s.length;
    text.focus();
    text.setSelectionRange(from, to);
    const h = parseFloat(getComputedStyle(text).lineHeight) || 19.5;
    text.scrollTop = Math.max(0, (line - 1) * h - text.clientHeight / 3);
    gutter.scrollTop = text.scrollTop;
  }

  // ---- linting ----

  $("#kind").addEventListener("change", lintNow);
  $("#target").addEventListener("change", lintNow);

  function stale() {
    if (body.dataset.state !== "loading") body.dataset.state = "stale";
    for (const b of list.querySelectorAll("button.apply")) b.disabled = true;
  }

  async function lintNow() {
    clearTimeout(state.timer);
    stale();
    const mine = ++state.seq;
    const edits = state.edits;
    const target = $("#target").value;
    const req = {
      files: state.files.map((f) => ({ name: f.name, text: f.text })),
      kind: $("#kind").value,
      targets: target ? [target] : [],
    };
    const snapshot = {};
    for (const f of req.files) snapshot[f.name] = f.text;
    const began = performance.now();
    const slow = setTimeout(() => { if (mine === state.seq) status.textContent = "Linting…"; }, 200);
    const res = JSON.parse(await lintRequest(JSON.stringify(req)));
    clearTimeout(slow);
    body.dataset.lintMs = String(Math.round(performance.now() - began));
    if (mine !== state.seq) return; // a newer lint is on its way
    state.findings = res.findings;
    state.linted = snapshot;
    state.done++;
    renderFindings(res);
    renderTabs();
    renderGutter();
    body.dataset.lints = String(state.done);
    if (edits === state.edits) {
      body.dataset.state = "ready";
    } else {
      stale(); // typed since: the next lint is on its way
    }
  }

  function posText(file, line, column) {
    return file + (line ? ":" + line + (column ? ":" + column : "") : "");
  }

  function posLink(file, line, column) {
    const a = document.createElement("a");
    a.className = "pos";
    a.href = "#";
    a.textContent = posText(file, line, column);
    a.addEventListener("click", (ev) => { ev.preventDefault(); goTo(file, line); });
    return a;
  }

  function renderFindings(res) {
    list.textContent = "";
    status.classList.toggle("error", Boolean(res.error));
    if (res.error) {
      status.textContent = res.error;
      return;
    }
    const count = {};
    for (const f of res.findings) {
      if (!f.suppressed) count[f.severity] = (count[f.severity] || 0) + 1;
    }
    const parts = ["error", "warning", "note"].filter((s) => count[s]).map((s) => count[s] + " " + s + (count[s] > 1 ? "s" : ""));
    const suppressed = res.findings.filter((f) => f.suppressed).length;
    if (suppressed) parts.push(suppressed + " suppressed");
    let line = parts.length ? parts.join(", ") : "No findings";
    if (res.linted_for && res.linted_for.length) line += " · linted for " + res.linted_for.join(", ");
    status.textContent = line;

    res.findings.forEach((f, i) => {
      const li = document.createElement("li");
      li.className = "finding " + f.severity + (f.suppressed ? " suppressed" : "");
      li.dataset.index = String(i);
      li.dataset.rule = f.rule;
      li.dataset.file = f.file;
      li.dataset.line = String(f.line || 0);

      const head = document.createElement("div");
      head.className = "head";
      const sev = document.createElement("span");
      sev.className = "severity";
      sev.textContent = f.severity;
      const rule = document.createElement("a");
      rule.className = "rule";
      rule.href = "#";
      rule.textContent = f.rule;
      rule.title = "Show the rule's documentation";
      rule.addEventListener("click", (ev) => { ev.preventDefault(); showRule(f.rule, true); });
      head.append(sev, posLink(f.file, f.line, f.column), rule);
      li.append(head);

      const msg = document.createElement("p");
      msg.className = "message";
      msg.textContent = f.message;
      li.append(msg);

      if (f.related && f.related.length) {
        const ul = document.createElement("ul");
        ul.className = "related";
        for (const r of f.related) {
          const item = document.createElement("li");
          if (r.file) item.append(posLink(r.file, r.line, r.column), " ");
          item.append(r.message);
          ul.append(item);
        }
        li.append(ul);
      }
      if (f.suppressed !== undefined && f.suppressed !== null) {
        const p = document.createElement("p");
        p.className = "fix";
        p.textContent = "suppressed" + (f.suppressed ? ": " + f.suppressed : "");
        li.append(p);
      }
      if (f.fix) {
        const p = document.createElement("p");
        p.className = "fix";
        const b = document.createElement("b");
        b.textContent = f.fix_applicability === "unsafe" ? "unsafe fix: " : "fix: ";
        p.append(b, f.fix);
        li.append(p);
      }
      if (f.fix_edits && f.fix_edits.length && !f.suppressed) {
        const btn = document.createElement("button");
        btn.type = "button";
        btn.className = "apply";
        const files = [...new Set(f.fix_edits.map((e) => e.file))];
        const unsafe = f.fix_applicability === "unsafe";
        btn.dataset.applicability = f.fix_applicability || "safe";
        btn.textContent = (unsafe ? "Apply unsafe fix" : "Apply fix") + (files.length > 1 ? " (" + files.length + " files)" : "");
        btn.title = (unsafe ? "Unsafe: it may undo what the configuration's author chose on purpose (proxylint --fix applies it only with --unsafe-fixes). " : "") +
          f.fix_edits.map((e) => posText(e.file, e.line, e.column)).join(", ");
        btn.addEventListener("click", () => applyFix(f));
        li.append(btn);
      }
      list.append(li);
    });
  }

  // applyFix makes a finding's edits, all of them or none: each file
  // must still hold the text the lint read.
  function applyFix(f) {
    const byFile = {};
    for (const e of f.fix_edits) (byFile[e.file] = byFile[e.file] || []).push(e);
    for (const name of Object.keys(byFile)) {
      const file = state.files.find((x) => x.name === name);
      if (!file || !state.linted || file.text !== state.linted[name]) {
        lintNow();
        return;
      }
    }
    for (const [name, edits] of Object.entries(byFile)) {
      const file = state.files.find((x) => x.name === name);
      let s = file.text;
      edits.sort((a, b) => b.from - a.from);
      for (const e of edits) s = s.slice(0, e.from) + e.text + s.slice(e.to);
      file.text = s;
    }
    const first = f.fix_edits[0];
    goTo(first.file, first.line);
    lintNow();
  }

  // ---- rule documentation ----

  function fillRules() {
    const sel = $("#rule");
    for (const r of state.rules) sel.append(new Option(r.id + (r.off ? " (off by default)" : ""), r.id));
    sel.addEventListener("change", () => showRule(sel.value, false));
    showRule(state.rules.length ? state.rules[0].id : "", false);
  }

  function showRule(id, scroll) {
    const r = state.rules.find((x) => x.id === id);
    if (!r) return;
    $("#rule").value = id;
    $("#doc").innerHTML = markdown(r.doc);
    if (scroll) $("#docs").scrollIntoView({ block: "start" });
  }

  const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));

  // inline renders `code`, **bold** and [links](https://...); everything
  // else is text.
  function inline(s) {
    return s.split(/(`[^`]*`)/).map((part) => {
      if (part.length > 1 && part.startsWith("`") && part.endsWith("`")) return "<code>" + esc(part.slice(1, -1)) + "</code>";
      return esc(part)
        .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
        .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, '<a href="$2" rel="noopener noreferrer" target="_blank">$1</a>')
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, "$1");
    }).join("");
  }

  // markdown renders the subset of Markdown the rules' docs are written
  // in: headings, paragraphs, lists, fenced code.
  function markdown(src) {
    const out = [];
    let para = [];
    let items = null;
    let ordered = false;
    const flush = () => {
      if (para.length) out.push("<p>" + inline(para.join(" ")) + "</p>");
      para = [];
      if (items) {
        const tag = ordered ? "ol" : "ul";
        out.push("<" + tag + ">" + items.map((i) => "<li>" + inline(i) + "</li>").join("") + "</" + tag + ">");
      }
      items = null;
    };
    const lines = src.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i];
      let m;
      if (/^\s*```/.test(l)) {
        flush();
        const code = [];
        for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
        out.push("<pre><code>" + esc(code.join("\n")) + "</code></pre>");
      } else if ((m = /^(#{1,4})\s+(.*)$/.exec(l))) {
        flush();
        const n = m[1].length;
        out.push("<h" + n + ">" + inline(m[2]) + "</h" + n + ">");
      } else if ((m = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(l))) {
        if (para.length) flush();
        const isOrdered = /\d/.test(m[1]);
        if (items && isOrdered !== ordered) flush();
        if (!items) { items = []; ordered = isOrdered; }
        items.push(m[2]);
      } else if (/^\s*$/.test(l)) {
        flush();
      } else if (items && /^\s+\S/.test(l)) {
        items[items.length - 1] += " " + l.trim();
      } else {
        if (items) flush();
        para.push(l.trim());
      }
    }
    flush();
    return out.join("\n");
  }

})();
