// autorubric labelling page (docs/guides/labels.md): one item at a time, keyboard first, saved as you go.
// Every string from the dataset is inserted with textContent, never as HTML.
(function () {
  "use strict";
  var meta = JSON.parse(document.getElementById("label-meta").textContent);
  var criteria = meta.criteria;  // the open item's: the shared ones, then its own (`ic`)
  var byId = {};
  function criteriaOf(item) { return item && item.ic ? meta.criteria.concat(item.ic) : meta.criteria; }
  var body = document.body;
  var items = [];
  var pos = 0;
  var active = 0;
  var rater = "";
  var store = { entries: {}, pos: 0 };
  var history = [];

  function $(id) { return document.getElementById(id); }
  var el = autorubricEl;
  function now() { return new Date().toISOString().replace(/\.\d{3}Z$/, "Z"); }
  function status(text) { $("status").textContent = text || ""; }

  // --- storage: localStorage, keyed by experiment and rater ---------------------------------
  function keyFor(name) { return meta.key + ":rater:" + name; }
  var LAST = meta.key + ":last-rater";
  function read(name) {
    try {
      var s = JSON.parse(localStorage.getItem(keyFor(name)) || "null");
      return s && s.entries ? s : { entries: {}, pos: 0 };
    } catch (e) { return { entries: {}, pos: 0 }; }
  }
  function save() {
    store.pos = pos;
    try {
      localStorage.setItem(keyFor(rater), JSON.stringify(store));
      if (rater) localStorage.setItem(LAST, rater);
    } catch (e) { status("could not save in this browser (" + e.name + "): export now to keep your work"); }
  }
  function count(entries) { return Object.keys(entries).length; }

  // --- the item's answers ----------------------------------------------------------------------
  function entryOf(id, create) {
    var e = store.entries[id];
    if (!e && create) {
      e = store.entries[id] = { labels: {}, response_sets: {}, notes: {}, started_at: now() };
    }
    return e;
  }
  function snapshot(id) {
    var e = store.entries[id];
    history.push({ id: id, entry: e ? JSON.parse(JSON.stringify(e)) : null, pos: pos, active: active });
  }
  function touched(e) { e.labelled_at = now(); }
  function isComplete(id) {
    var e = store.entries[id];
    return !!e && criteriaOf(byId[id]).every(function (c) { return e.labels[c.name] !== undefined; });
  }
  function completed() { return items.filter(function (it) { return isComplete(it.id); }).length; }

  function choose(ci, label) {
    var c = criteria[ci], item = items[pos];
    if (!c || label === null || label === undefined) return;
    snapshot(item.id);
    var e = entryOf(item.id, true);
    e.labels[c.name] = label;
    if (c.sets) {
      if (label === c.abstain) delete e.response_sets[c.name];
      else {
        var set = e.response_sets[c.name] || [];
        if (set.indexOf(label) < 0) set.push(label);
        e.response_sets[c.name] = ordered(c, set);
      }
    }
    touched(e);
    save();
    status("");
    if (ci < criteria.length - 1) active = ci + 1;
    draw();
  }
  function ordered(c, set) { return c.choices.filter(function (x) { return set.indexOf(x) >= 0; }); }
  function toggleSet(ci, label) {
    var c = criteria[ci], item = items[pos];
    if (!c || !c.sets || label === undefined) return;
    snapshot(item.id);
    var e = entryOf(item.id, true);
    var set = (e.response_sets[c.name] || []).slice();
    var at = set.indexOf(label);
    if (at >= 0) set.splice(at, 1); else set.push(label);
    if (set.length) e.response_sets[c.name] = ordered(c, set); else delete e.response_sets[c.name];
    touched(e);
    save();
    draw();
  }
  function setNote(ci, text) {
    var c = criteria[ci], item = items[pos];
    var e = entryOf(item.id, true);
    if (text) e.notes[c.name] = text; else delete e.notes[c.name];
    touched(e);
    save();
  }
  function undo() {
    var last = history.pop();
    if (!last) { status("nothing to undo"); return; }
    if (last.entry) store.entries[last.id] = last.entry; else delete store.entries[last.id];
    pos = last.pos;
    active = last.active;
    save();
    draw();
    status("undone");
  }

  // --- drawing ---------------------------------------------------------------------------------
  function firstOpen(id) {
    var e = store.entries[id];
    for (var i = 0; i < criteria.length; i++) if (!e || e.labels[criteria[i].name] === undefined) return i;
    return 0;
  }
  function open(index) {
    var t0 = performance.now();
    pos = Math.max(0, Math.min(items.length - 1, index));
    criteria = criteriaOf(items[pos]);
    active = firstOpen(items[pos].id);
    save();
    draw();
    var ms = performance.now() - t0;
    body.setAttribute("data-open-ms", ms.toFixed(3));
    return ms;
  }
  function choiceButton(ci, label, key, cls, picked) {
    var shown = label === "CANNOT_ASSESS" ? "cannot assess" : label;
    var b = el("button", { type: "button", cls: "choice" + (cls ? " " + cls : "") + (picked ? " picked" : ""), "data-label": label },
      [el("span", { cls: "key", text: key }), el("span", { text: shown })]);
    b.addEventListener("click", function () { active = ci; choose(ci, label); });
    return b;
  }
  function criterionBox(c, ci, e, conversation) {
    var picked = e ? e.labels[c.name] : undefined;
    var box = el("div", { cls: "criterion" + (ci === active ? " active" : "") + (picked !== undefined ? " done" : ""), "data-criterion": c.name });
    box.appendChild(el("div", { cls: "name", text: (ci + 1) + ". " + c.name }));
    box.appendChild(el("div", { cls: "req", text: c.requirement }));
    box.appendChild(el("div", { cls: "facts", text: autorubricCriterionFacts(c, ci >= meta.criteria.length) }));
    if (conversation && c.scope === "final_turn") {
      box.appendChild(el("div", { cls: "scope", text: "grades the final turn (the last assistant message); the turns before it are context" }));
    }
    var row = el("div", { cls: "choices" });
    c.choices.forEach(function (label, j) { row.appendChild(choiceButton(ci, label, String(j + 1), "", picked === label)); });
    if (c.abstain) row.appendChild(choiceButton(ci, c.abstain, "0", "abstain", picked === c.abstain));
    box.appendChild(row);
    if (c.sets) {
      var set = (e && e.response_sets[c.name]) || [];
      var sets = el("div", { cls: "sets" }, [el("span", { cls: "title", text: "Reasonable (Shift+n):" })]);
      c.choices.forEach(function (label, j) {
        var input = el("input", { type: "checkbox", "data-set": label });
        input.checked = set.indexOf(label) >= 0;
        input.addEventListener("change", function () { active = ci; toggleSet(ci, label); });
        sets.appendChild(el("label", { cls: input.checked ? "in" : "" }, [input, document.createTextNode(" " + (j + 1) + " " + label)]));
      });
      box.appendChild(sets);
    }
    var note = el("input", { type: "text", cls: "note", placeholder: "note (t)", "data-note": c.name });
    note.value = (e && e.notes[c.name]) || "";
    note.addEventListener("input", function () { setNote(ci, note.value); });
    note.addEventListener("focus", function () { active = ci; markActive(); });
    box.appendChild(note);
    box.addEventListener("click", function (ev) { if (ev.target === box) { active = ci; markActive(); } });
    return box;
  }
  function markActive() {
    var boxes = document.querySelectorAll(".criterion");
    for (var i = 0; i < boxes.length; i++) boxes[i].classList.toggle("active", i === active);
  }
  // A conversation as turns (roles, tool calls and thinking folded); a text as one block.
  function drawSubmission(item) {
    var box = $("conversation-box");
    box.textContent = "";
    box.hidden = !item.conv;
    $("submission").hidden = !!item.conv;
    $("submission-counts").textContent = item.conv ? autorubricConversation.summary(item.conv) : "";
    if (item.conv) box.appendChild(autorubricConversation.render(item.conv));
    else $("submission").textContent = item.sub === null || item.sub === undefined ? "(no submission text)" : item.sub;
  }
  function draw() {
    var item = items[pos];
    if (!item) return;
    criteria = criteriaOf(item);
    var e = store.entries[item.id];
    $("why").textContent = "Why this item: " + item.why;
    $("item-id").textContent = item.id;
    var others = item.r ? "labelled by " + item.r + " rater" + (item.r === 1 ? "" : "s") + " so far (imported)" : "";
    $("item-raters").textContent = others;
    $("query-box").hidden = item.q === undefined || item.q === null;
    $("query").textContent = item.q || "";
    $("thinking-box").hidden = !item.th;
    $("thinking-box").open = false;
    $("thinking").textContent = item.th || "";
    $("reference-box").hidden = !item.ref;
    $("reference-box").open = false;
    $("reference").textContent = item.ref || "";
    drawSubmission(item);
    var panel = $("criteria");
    panel.textContent = "";
    criteria.forEach(function (c, ci) { panel.appendChild(criterionBox(c, ci, e, !!item.conv)); });
    var done = completed();
    $("progress").textContent = "item " + (pos + 1) + " of " + items.length + " · " + done + " complete" +
      (meta.total > items.length ? " · " + meta.total + " items in the experiment" : "");
    $("bar-fill").style.width = (items.length ? (100 * done / items.length) : 0) + "%";
    body.setAttribute("data-item", item.id);
    body.setAttribute("data-complete", String(done));
  }

  // --- rater, export, import -------------------------------------------------------------------
  function setRater(name) {
    name = name.trim();
    if (name === rater) return;
    var next = read(name);
    if (!rater && count(store.entries) && !count(next.entries)) {
      next = store;  // answers given before the name was typed belong to this rater
      localStorage.removeItem(keyFor(""));
    }
    rater = name;
    store = next;
    history = [];
    $("rater").classList.toggle("missing", !rater);
    open(store.pos || 0);
    status(rater ? "labelling as " + rater + ": " + count(store.entries) + " items answered so far" : "");
  }
  function lines() {
    return Object.keys(store.entries).filter(function (id) {
      var e = store.entries[id];
      return count(e.labels) || count(e.response_sets);
    }).map(function (id) {
      var e = store.entries[id];
      var line = { id: id, rater: rater, labels: e.labels, response_sets: e.response_sets, notes: e.notes,
        labelled_at: e.labelled_at || now() };
      if (e.started_at) line.started_at = e.started_at;
      return JSON.stringify(line);
    });
  }
  function exportLabels() {
    if (!rater) { status("type your name first: the file says who labelled"); $("rater").classList.add("missing"); $("rater").focus(); return; }
    var out = lines();
    var blob = new Blob([out.join("\n") + (out.length ? "\n" : "")], { type: "application/x-ndjson" });
    var a = el("a", { href: URL.createObjectURL(blob), download: "labels-" + meta.experiment + "-" + rater + ".jsonl" });
    document.body.appendChild(a);
    a.click();
    a.remove();
    body.setAttribute("data-exported", String(out.length));
    status("exported " + out.length + " items");
  }
  function importText(text) {
    var read = 0, kept = 0;
    text.split(/\r?\n/).forEach(function (raw) {
      if (!raw.trim()) return;
      var obj;
      try { obj = JSON.parse(raw); } catch (e) { return; }
      if (!obj || typeof obj.id !== "string") return;
      read += 1;
      if (!rater && obj.rater) { $("rater").value = obj.rater; setRater(obj.rater); }
      if (obj.rater && obj.rater !== rater) return;
      var held = store.entries[obj.id];
      if (held && held.labelled_at && obj.labelled_at && held.labelled_at > obj.labelled_at) return;
      store.entries[obj.id] = { labels: obj.labels || {}, response_sets: obj.response_sets || {},
        notes: obj.notes || {}, labelled_at: obj.labelled_at, started_at: obj.started_at };
      kept += 1;
    });
    save();
    draw();
    status("read " + read + " lines: " + kept + " taken (lines of other raters and older answers are left out)");
    body.setAttribute("data-imported", String(kept));
  }

  // --- keyboard --------------------------------------------------------------------------------
  function onKey(ev) {
    var t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA")) {
      if (ev.key === "Escape" || (ev.key === "Enter" && t.id === "rater")) { t.blur(); ev.preventDefault(); }
      return;
    }
    if (ev.altKey || ev.metaKey) return;
    if (ev.ctrlKey) { if (ev.key === "z") { undo(); ev.preventDefault(); } return; }
    var c = criteria[active];
    var digit = /^(Digit|Numpad)([0-9])$/.exec(ev.code || "");
    var n = digit ? Number(digit[2]) : null;
    if (n === 0 || (!digit && ev.key === "c")) { if (c && c.abstain) choose(active, c.abstain); }
    else if (n !== null && c) { if (ev.shiftKey) toggleSet(active, c.choices[n - 1]); else choose(active, c.choices[n - 1]); }
    else if (ev.key === "ArrowDown" || ev.key === "j") { active = Math.min(criteria.length - 1, active + 1); markActive(); }
    else if (ev.key === "ArrowUp" || ev.key === "k") { active = Math.max(0, active - 1); markActive(); }
    else if (ev.key === "ArrowRight" || ev.key === "Enter" || ev.key === "n") open(pos + 1);
    else if (ev.key === "ArrowLeft" || ev.key === "p") open(pos - 1);
    else if (ev.key === "u") undo();
    else if (ev.key === "t") { var note = document.querySelectorAll("input.note")[active]; if (note) note.focus(); }
    else if (ev.key === "?") $("help").hidden = !$("help").hidden;
    else return;
    ev.preventDefault();
  }

  async function decode() {
    var bin = atob(document.getElementById("label-data").textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  async function start() {
    items = await decode();
    items.forEach(function (it) { byId[it.id] = it; });
    var saved = "";
    try { saved = localStorage.getItem(LAST) || ""; } catch (e) { saved = ""; }
    rater = saved;
    store = read(rater);
    $("rater").value = rater;
    $("rater").classList.toggle("missing", !rater);
    open(store.pos || 0);
    if (rater && count(store.entries)) status("welcome back, " + rater + ": resumed where you left off");
    $("rater").addEventListener("change", function () { setRater($("rater").value); });
    $("prev").addEventListener("click", function () { open(pos - 1); });
    $("next").addEventListener("click", function () { open(pos + 1); });
    $("undo").addEventListener("click", undo);
    $("export").addEventListener("click", exportLabels);
    $("help-toggle").addEventListener("click", function () { $("help").hidden = !$("help").hidden; });
    $("import").addEventListener("change", function () {
      var file = $("import").files[0];
      if (file) file.text().then(importText);
    });
    document.addEventListener("keydown", onKey);
    window.autorubricLabel = {
      open: open,
      openId: function (id) { return open(items.findIndex(function (it) { return it.id === id; })); },
      ids: function () { return items.map(function (it) { return it.id; }); },
    };
    body.setAttribute("data-ready-ms", performance.now().toFixed(1));
    body.setAttribute("data-ready", "1");
  }
  start().catch(function (e) { status("cannot read the items: " + e); });
})();
