// autorubric HTML report: the item table (search, sort, filter, details).
// Every string from datasets and judges is inserted with textContent, never as HTML.
(function () {
  "use strict";
  var PAGE_SIZE = 50;
  var meta = JSON.parse(document.getElementById("item-meta").textContent);
  var dataEl = document.getElementById("item-data");
  var state = { items: [], view: [], page: 0, sort: "n", dir: 1, open: {}, conv: false, own: false };

  var el = autorubricEl;
  var conv = autorubricConversation;
  function num(v, d) { return v === null || v === undefined ? "n/a" : Number(v).toFixed(d === undefined ? 3 : d); }
  // Criterion ci of an item: a shared one (the rubric file's), then the item's own (`ic`).
  function crit(item, ci) {
    var shared = meta.criteria.length;
    return ci < shared ? meta.criteria[ci] : item.ic[ci - shared];
  }
  function isAbstain(c, label) {
    return label === "CANNOT_ASSESS" || (c.na || []).indexOf(label) >= 0;
  }
  function voteLabel(c, outcome) {
    if (outcome === null || outcome === undefined) return "n/a";  // no outcome: the one word for undefined, as in the tables
    if (typeof outcome === "number" && c.options) return c.options[outcome] || String(outcome);
    return String(outcome);
  }
  // The ground-truth label of criterion ci when the item disagrees with it; null otherwise.
  // Only definite outcomes count: an abstention on either side is not a disagreement.
  function disagreement(item, ci) {
    if (!item.gt) return null;
    var c = crit(item, ci);
    var truth = item.gt[c.name];
    var outcome = item.c[ci][0];
    if (truth === undefined || truth === null || outcome === null || outcome === undefined) return null;
    if (isAbstain(c, String(truth)) || isAbstain(c, outcome)) return null;
    return String(truth) === String(outcome) ? null : String(truth);
  }
  function disagrees(item, ci) {
    if (ci !== "") return disagreement(item, Number(ci)) !== null;
    return item.c.some(function (c, i) { return disagreement(item, i) !== null; });
  }
  function shownOrder(c, order) {
    if (!order || !c.options) return "";
    return order.map(function (idx, pos) { return (pos + 1) + ". " + (c.options[idx] || idx); }).join(" · ");
  }

  async function decode() {
    var bin = atob(dataEl.textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function header() {
    var head = document.getElementById("item-head");
    var cols = [["n", "#"], ["id", "id"], ["sc", "score"], ["st", "status"]];
    if (state.conv) cols.push(["turns", "turns · tool calls"]);
    meta.criteria.forEach(function (c, i) { cols.push(["c" + i, c.name]); });
    if (state.own) cols.push(["ownMet", "item criteria"]);
    cols.push(["err", "error"]);
    cols.forEach(function (col) {
      var sortable = ["n", "id", "sc", "turns", "ownMet"].indexOf(col[0]) >= 0;
      var th = el("th", { text: col[1], "data-col": col[0] });
      if (sortable) {
        th.className = "sortable";
        th.setAttribute("role", "button");
        th.setAttribute("title", "sort by " + col[1]);
        th.addEventListener("click", function () {
          state.dir = state.sort === col[0] ? -state.dir : 1;
          state.sort = col[0];
          refresh();
        });
      }
      head.appendChild(th);
    });
  }

  function filters() {
    var picker = document.getElementById("criterion-filter");
    var verdict = document.getElementById("verdict-filter");
    meta.criteria.forEach(function (c, i) { picker.appendChild(el("option", { value: String(i), text: c.name })); });
    picker.addEventListener("change", function () {
      while (verdict.options.length > 1) verdict.remove(1);
      verdict.disabled = picker.value === "";
      if (picker.value !== "") {
        var c = meta.criteria[Number(picker.value)];
        var outcomes = (c.options || ["MET", "UNMET"]).concat(["CANNOT_ASSESS"]);
        outcomes.forEach(function (o) { verdict.appendChild(el("option", { value: o, text: o })); });
      }
      refresh();
    });
    ["search", "status-filter", "verdict-filter"].forEach(function (id) {
      document.getElementById(id).addEventListener("input", refresh);
    });
    document.getElementById("prev").addEventListener("click", function () { state.page--; draw(); });
    document.getElementById("next").addEventListener("click", function () { state.page++; draw(); });
  }

  function matches(item, q, status, ci, verdict) {
    if (status === "error" && item.st !== "error") return false;
    if (status === "ok" && item.st !== "ok") return false;
    if (status === "ca" && !item.c.some(function (c, i) { return isAbstain(crit(item, i), c[0]); })) return false;
    if (status === "gt" && !disagrees(item, ci)) return false;
    if (ci !== "" && verdict !== "" && item.c[Number(ci)][0] !== verdict) return false;
    if (!q) return true;
    return [item.id, item.q, item.sub, item.convText, item.ref, item.err, item.ownText].some(function (t) {
      return t && String(t).toLowerCase().indexOf(q) >= 0;
    });
  }

  function compare(a, b) {
    var k = state.sort, x = a[k], y = b[k];
    if (x === y) return a.n - b.n;
    if (x === null || x === undefined) return 1;
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * state.dir;
  }

  function refresh() {
    var q = document.getElementById("search").value.trim().toLowerCase();
    var status = document.getElementById("status-filter").value;
    var ci = document.getElementById("criterion-filter").value;
    var verdict = document.getElementById("verdict-filter").value;
    state.view = state.items.filter(function (it) { return matches(it, q, status, ci, verdict); });
    state.view.sort(compare);
    state.page = 0;
    draw();
  }

  function contribution(c, value) {
    var w = c.weight;
    if (value === null || value === undefined) return "not scored";
    return num(w, 1) + " × " + num(value, 2) + " = " + num(w * value, 3);
  }

  // A criterion's name, then what it asks (its requirement) and how it counts: weight, tags,
  // and, on a conversation, the scope when it grades the final turn only (on a text the whole
  // text is graded: nothing to say, as on the labelling page).
  function criterionCell(c, own, conversation) {
    var cell = el("td", { cls: "criterion" }, [el("span", { cls: "name", text: c.name })]);
    cell.appendChild(el("span", { cls: "crit-req", text: c.requirement || "" }));
    cell.appendChild(el("span", { cls: "crit-facts", text: autorubricCriterionFacts(c, own) }));
    if (conversation && c.scope === "final_turn") cell.appendChild(el("span", { cls: "crit-scope", text: "scope: final turn (grades the last assistant turn; the turns before it are context)" }));
    return cell;
  }

  function details(item) {
    var box = el("div", { cls: "details" });
    var facts = "score " + num(item.sc) + " · raw score " + num(item.raw) + " = Σ weight × value over the scored criteria (the weight × value column below) · length penalty " + num(item.lp) +
      " · cost " + (item.cost === null || item.cost === undefined ? "n/a" : "$" + Number(item.cost).toFixed(4));
    box.appendChild(el("p", { cls: "facts item-facts", text: facts }));
    if (item.tags) box.appendChild(el("p", { cls: "facts item-tags", text: "tags: " + item.tags.join(", ") }));
    if (item.err) box.appendChild(el("p", { cls: "fail", text: "error: " + item.err }));
    if (item.q) box.appendChild(el("div", {}, [el("h4", { text: "Query" }), el("pre", { text: item.q })]));
    if (item.conv) box.appendChild(el("div", {}, [el("h4", { text: "Conversation · " + conv.summary(item.conv) }), conv.render(item.conv)]));
    else if (item.sub !== undefined) box.appendChild(el("div", {}, [el("h4", { text: "Submission" }), el("pre", { cls: "submission", text: item.sub })]));
    if (item.th) box.appendChild(el("details", {}, [el("summary", { text: "Thinking" }), el("pre", { text: item.th })]));
    if (item.ref) box.appendChild(el("div", { cls: "reference" }, [el("h4", { text: "Reference submission (shown to the judges)" }), el("pre", { text: item.ref })]));
    var table = el("table", { cls: "votes" });
    table.appendChild(el("thead", {}, [el("tr", {}, ["criterion / judge", "sample", "outcome", "truth", "weight × value", "agreement", "shown option order", "reason", "error"].map(function (h) { return el("th", { text: h }); }))]));
    var body = el("tbody");
    item.c.forEach(function (c, ci) {
      var def = crit(item, ci);
      var truth = item.gt ? item.gt[def.name] : undefined;
      body.appendChild(el("tr", { cls: "criterion-row" + (ci >= meta.criteria.length ? " own" : ""), "data-criterion": def.name }, [
        criterionCell(def, ci >= meta.criteria.length, !!item.conv), el("td", { text: "final" }),
        el("td", { cls: isAbstain(def, c[0]) ? "abstain" : "", text: c[0] }),
        el("td", { cls: disagreement(item, ci) === null ? "" : "disagree", text: truth === undefined || truth === null ? "" : truth }),
        el("td", { cls: "contribution", text: contribution(def, c[4]) }), el("td", { text: num(c[1], 2) }),
        el("td", { text: "" }), el("td", { text: c[2] || "" }), el("td", { text: "" })]));
      c[3].forEach(function (v) {
        var judge = meta.judges[v[0]] || { id: "?" };
        body.appendChild(el("tr", { cls: "vote-row" + (v[5] ? " fail" : "") }, [
          el("td", { cls: "judge", text: "  " + judge.id + (judge.simulated ? " (simulated)" : "") + (v[6] ? " [cached]" : "") }),
          el("td", { text: String(v[1]) }), el("td", { text: voteLabel(def, v[2]) }), el("td", { text: "" }), el("td", { text: "" }), el("td", { text: "" }),
          el("td", { cls: "order", text: shownOrder(def, v[3]) }), el("td", { text: v[4] || "" }), el("td", { text: v[5] || "" })]));
      });
    });
    table.appendChild(body);
    box.appendChild(table);
    return box;
  }

  function row(item) {
    var cells = [el("td", { text: String(item.n + 1) }), el("td", { cls: "id", text: item.id }),
      el("td", { text: num(item.sc) }), el("td", { cls: item.st === "error" ? "fail" : "", text: item.st })];
    if (state.conv) cells.push(el("td", { cls: "turns", text: item.conv ? conv.summary(item.conv) : "" }));
    var off = 0;
    item.c.forEach(function (c, ci) {
      var truth = disagreement(item, ci);
      if (ci >= meta.criteria.length) { off += truth !== null; return; }  // the item's own: in details
      var td = el("td", { cls: truth !== null ? "disagree" : isAbstain(crit(item, ci), c[0]) ? "abstain" : "", text: c[0] });
      if (truth !== null) {
        off++;
        td.setAttribute("title", "ground truth: " + truth);
        td.appendChild(el("span", { cls: "truth", text: " ≠ " + truth }));
      }
      cells.push(td);
    });
    if (state.own) cells.push(el("td", { cls: "own", text: item.ic ? item.ownMet + " MET of " + item.ic.length : "" }));
    cells.push(el("td", { cls: "err", text: item.err || "" }));
    var tr = el("tr", { cls: "item-row" + (off ? " has-disagreement" : ""), "data-id": item.id, "data-disagree": String(off), tabindex: "0" }, cells);
    function toggle() { state.open[item.id] = !state.open[item.id]; draw(); }
    tr.addEventListener("click", toggle);
    tr.addEventListener("keydown", function (e) { if (e.key === "Enter") toggle(); });
    return tr;
  }

  function draw() {
    var pages = Math.max(1, Math.ceil(state.view.length / PAGE_SIZE));
    state.page = Math.min(Math.max(state.page, 0), pages - 1);
    var body = document.getElementById("item-rows");
    body.textContent = "";
    var span = meta.criteria.length + (state.conv ? 6 : 5) + (state.own ? 1 : 0);
    state.view.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE).forEach(function (item) {
      body.appendChild(row(item));
      if (state.open[item.id]) {
        var td = el("td", { colspan: String(span) }, [details(item)]);
        body.appendChild(el("tr", { cls: "detail-row", "data-detail-for": item.id }, [td]));
      }
    });
    document.getElementById("count").textContent = state.view.length + " of " + state.items.length + " items";
    document.getElementById("page").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
  }

  filters();
  decode().then(function (items) {
    items.forEach(function (it) {
      if (it.ic) {
        state.own = true;
        var own = it.c.slice(meta.criteria.length);
        it.ownMet = own.filter(function (c) { return c[0] === "MET"; }).length;
        it.ownText = it.ic.map(function (c) { return c.requirement; }).join("\n");
      }
      if (!it.conv) return;
      var c = conv.counts(it.conv);
      it.turns = c.turns;
      it.convText = conv.searchText(it.conv);
      state.conv = true;
    });
    header();
    state.items = items;
    refresh();
    document.body.setAttribute("data-items-ready", String(items.length));
  }).catch(function (err) {
    if (!document.getElementById("item-head").children.length) header();
    document.getElementById("count").textContent = "the items could not be read: " + err;
    throw err;
  });
})();
