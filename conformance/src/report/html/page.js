// Draws the report from the JSON in #report-data (written by conformance/src/report/html.rs).
// Every text of the data goes into the page as text (textContent, append of strings,
// setAttribute), never as markup. The case list filters over the data's arrays and draws one
// page of cases at a time, so a run of tens of thousands of cases stays quick.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var app = document.getElementById("app");
  var PAGE_SIZE = 50;

  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (k) {
        var v = props[k];
        if (v === undefined || v === null) return;
        if (k === "text") node.textContent = v;
        else if (k === "class") node.className = v;
        else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, String(v));
      });
    }
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined && c !== false) node.append(c);
    });
    return node;
  }

  // A pass rate [passed, applicable, "97.3%"] as a heat-map cell: colour and the number; a
  // level not checked is "—", a level that applies to no case "n/a". `onclick` makes it a
  // button.
  function rateCell(cell, what, onclick) {
    if (cell === null || cell === undefined) {
      return el("span", { class: "rate unclaimed", title: what + ": not checked (not claimed)", text: "—" });
    }
    if (cell[1] === 0) {
      return el("span", { class: "rate na", title: what + ": no case it applies to", text: "n/a" });
    }
    var rate = cell[0] / cell[1];
    var props = {
      class: "rate" + (cell[0] === cell[1] ? " full" : ""),
      title: what + ": " + cell[0] + "/" + cell[1] + " passed",
      style: "background:" + heatColour(rate),
      text: cell[2],
      "data-passed": cell[0],
      "data-applicable": cell[1]
    };
    if (onclick) {
      props.type = "button";
      props.onclick = onclick;
      return el("button", props);
    }
    return el("span", props);
  }

  // Green at 100%, then through yellow (about 80%) to red: the scale spends its colours
  // near the top, where a conformance run's rates are.
  function heatColour(rate) {
    if (rate >= 1) return "hsl(135 50% 62%)";
    return "hsl(" + Math.round(Math.pow(rate, 3) * 105) + " 80% " + (74 + Math.round(rate * 8)) + "%)";
  }

  function legend() {
    return el("div", { class: "legend" }, [
      "pass rate:",
      rateCell([0, 1, "0%"], "example"),
      rateCell([1, 2, "50%"], "example"),
      rateCell([4, 5, "80%"], "example"),
      rateCell([19, 20, "95%"], "example"),
      rateCell([1, 1, "100%"], "example"),
      rateCell([0, 0, null], "example"),
      "no case the level applies to",
      rateCell(null, "example"),
      "level not checked"
    ]);
  }

  // The op x level heat map of one backend; `pick(op, level)` (level an index, or -1 for all
  // levels; op "" for every op) runs when a cell is clicked, if given.
  function opHeatMap(backend, pick) {
    var holder = el("div");
    var order = el("select", { "aria-label": "order of the ops" }, [
      el("option", { value: "name", text: "ops by name" }),
      el("option", { value: "rate", text: "lowest pass rate first" })
    ]);
    function click(op, level) {
      return pick ? function () { pick(op, level); } : null;
    }
    function row(name, cls, r, op) {
      return el("tr", { class: cls }, [
        el("td", { class: "name", text: name }),
        el("td", { text: String(r.run) }),
        el("td", { text: String(r.skipped) }),
        el("td", { class: "cell" }, [rateCell(r.all, name + ", all levels", click(op, -1))])
      ].concat(r.cells.map(function (c, i) {
        return el("td", { class: "cell" }, [rateCell(c, name + ", " + data.levels[i], click(op, i))]);
      })));
    }
    function draw() {
      var ops = backend.ops.slice();
      if (order.value === "rate") {
        var rate = function (o) { return o.all[1] ? o.all[0] / o.all[1] : 2; };
        ops.sort(function (a, b) { return rate(a) - rate(b); });
      }
      var head = el("tr", null, [
        el("th", { class: "name", text: "op" }),
        el("th", { text: "run" }),
        el("th", { text: "skipped" }),
        el("th", { text: "all levels" })
      ].concat(data.levels.map(function (l) { return el("th", { text: l }); })));
      var body = el("tbody", null, [row("all ops", "total", backend, "")].concat(ops.map(function (o) {
        return row(o.op, "op", o, o.op);
      })));
      holder.replaceChildren(el("div", { class: "heat-wrap" }, [
        el("table", { class: "heat", "data-backend": backend.name }, [el("thead", null, [head]), body])
      ]));
    }
    order.addEventListener("change", draw);
    draw();
    return el("div", { class: "op-heat" }, [
      el("div", { class: "legend" }, [order, pick ? "click a cell to list its cases" : null]),
      holder
    ]);
  }

  function matrixPage() {
    var names = data.backends.map(function (b) { return b.name; });
    document.title = data.command + ": " + names.join(", ");
    app.append(el("h1", { text: data.command }));
    app.append(el("p", { class: "muted", text: data.backends.length + " backend(s) measured over " + data.cases_total + " cases, every level wanted" }));
    app.append(el("h2", { text: "Pass rate per level" }));
    app.append(legend());
    var head = el("tr", null, [
      el("th", { class: "name", text: "implementation" }),
      el("th", { class: "name", text: "via" }),
      el("th", { text: "cases run" }),
      el("th", { text: "skipped" }),
      el("th", { text: "all claimed levels" })
    ].concat(data.levels.map(function (l) { return el("th", { text: l }); })));
    var rows = data.backends.map(function (b) {
      return el("tr", null, [
        el("td", { class: "name", text: b.name }),
        el("td", { class: "name via", text: b.via || "" }),
        el("td", { text: String(b.run) }),
        el("td", { text: String(b.skipped) }),
        el("td", { class: "cell" }, [rateCell(b.all, b.name + ", all claimed levels")])
      ].concat(b.cells.map(function (c, i) {
        return el("td", { class: "cell" }, [rateCell(c, b.name + ", " + data.levels[i])]);
      })));
    });
    app.append(el("div", { class: "heat-wrap" }, [
      el("table", { class: "heat matrix" }, [el("thead", null, [head]), el("tbody", null, rows)])
    ]));
    app.append(el("h2", { text: "Op x level, per backend" }));
    var tabs = el("div", { class: "tabs", role: "group", "aria-label": "backend" });
    var holder = el("div");
    function show(k) {
      Array.prototype.forEach.call(tabs.children, function (b, i) { b.setAttribute("aria-pressed", String(i === k)); });
      holder.replaceChildren(opHeatMap(data.backends[k], null));
    }
    data.backends.forEach(function (b, k) {
      tabs.append(el("button", { type: "button", text: b.name, onclick: function () { show(k); } }));
    });
    app.append(tabs, holder);
    if (data.backends.length) show(0);
  }

  function runPage() {
    var run = data.run;
    var backend = data.backends[0];
    var n = run.id.length;
    var S = {};
    run.statuses.forEach(function (s, i) { S[s] = i; });
    var failureOf = new Int32Array(n).fill(-1);
    var backendFailure = new Uint8Array(n);
    var backendFailures = 0;
    run.failures.forEach(function (f, k) {
      failureOf[f.case] = k;
      if (f.backend_failure) { backendFailure[f.case] = 1; backendFailures++; }
    });
    var opCount = new Array(run.ops.length).fill(0);
    for (var i = 0; i < n; i++) opCount[run.op[i]]++;
    var lowerIds = null;

    document.title = data.command + ": " + backend.name;
    app.append(el("h1", { text: data.command + ": " + backend.name }));
    app.append(el("p", { class: "muted", text: n + " of " + data.cases_total + " selected cases reached; levels checked: " + data.levels.join(", ") }));
    app.append(el("pre", { class: "summary-line", text: run.summary_line + "\n" + run.level_line }));
    var cards = [el("div", { class: "card" }, [el("div", { class: "n", text: String(n) }), el("div", { class: "k", text: "cases" })])];
    run.statuses.forEach(function (s) {
      cards.push(el("div", { class: "card " + s }, [
        el("div", { class: "n", text: String(run.counts[s]) }), el("div", { class: "k", text: s })
      ]));
    });
    cards.push(el("div", { class: "card fail" }, [
      el("div", { class: "n", text: String(backendFailures) }), el("div", { class: "k", text: "backend failures" })
    ]));
    cards.push(el("div", { class: "card", title: backend.all[0] + "/" + backend.all[1] + " of the cases run passed every level checked" }, [
      el("div", { class: "n", text: backend.all[2] === null ? "n/a" : backend.all[2] }), el("div", { class: "k", text: "pass rate" })
    ]));
    app.append(el("div", { class: "cards" }, cards));

    app.append(el("h2", { text: "Pass rate, op x level" }));
    app.append(legend());
    app.append(opHeatMap(backend, function (op, level) {
      state.op = op;
      state.level = level;
      state.status = "failures";
      state.page = 0;
      sync();
      casesHeading.scrollIntoView();
    }));

    // The case list: filters, a count, a page of cases, a pager.
    var casesHeading = el("h2", { text: "Cases" });
    app.append(casesHeading);
    var state = { status: "failures", op: "", level: -1, q: "", page: 0 };
    var statusChoices = [
      ["failures", "failures (fail, xfail)", run.counts.fail + run.counts.xfail],
      ["fail", "fail", run.counts.fail],
      ["xfail", "xfail", run.counts.xfail],
      ["xpass", "xpass", run.counts.xpass],
      ["backend", "backend failure", backendFailures],
      ["skip", "skip", run.counts.skip],
      ["pass", "pass", run.counts.pass],
      ["all", "all", n]
    ];
    var statusSel = el("select", { id: "filter-status" }, statusChoices.map(function (c) {
      return el("option", { value: c[0], text: c[1] + " (" + c[2] + ")" });
    }));
    var opOrder = run.ops.map(function (_, k) { return k; }).sort(function (a, b) {
      return run.ops[a] < run.ops[b] ? -1 : run.ops[a] > run.ops[b] ? 1 : 0;
    });
    var opSel = el("select", { id: "filter-op" }, [el("option", { value: "", text: "every op" })].concat(opOrder.map(function (k) {
      return el("option", { value: run.ops[k], text: run.ops[k] + " (" + opCount[k] + ")" });
    })));
    var levelSel = el("select", { id: "filter-level" }, [el("option", { value: "-1", text: "any level" })].concat(data.levels.map(function (l, k) {
      return el("option", { value: String(k), text: l });
    })));
    var search = el("input", { id: "filter-id", type: "search", placeholder: "part of a case id", autocomplete: "off", spellcheck: "false" });
    var reset = el("button", { type: "button", text: "reset" });
    app.append(el("div", { class: "filters" }, [
      el("label", null, ["status", statusSel]),
      el("label", null, ["op", opSel]),
      el("label", { title: "the cases a level applies to; of the failures, those that fail it" }, ["level", levelSel]),
      el("label", null, ["case id contains", search]),
      reset
    ]));
    var matched = el("div", { class: "matched", id: "matched" });
    var list = el("div", { class: "cases", id: "cases" });
    var prev = el("button", { type: "button", text: "‹ previous" });
    var next = el("button", { type: "button", text: "next ›" });
    var where = el("span", { class: "muted" });
    app.append(matched, list, el("div", { class: "pager" }, [prev, where, next]));

    function statusTest(name) {
      if (name === "all") return function () { return true; };
      if (name === "failures") return function (i) { return run.status[i] === S.fail || run.status[i] === S.xfail; };
      if (name === "backend") return function (i) { return backendFailure[i] === 1; };
      var code = S[name];
      return function (i) { return run.status[i] === code; };
    }

    // The indices of the cases the filters keep. A level keeps the cases it applies to, and
    // of the failures those that fail it.
    function select() {
      var byStatus = statusTest(state.status);
      var op = state.op === "" ? -1 : run.ops.indexOf(state.op);
      if (state.op !== "" && op < 0) return [];
      var bit = state.level >= 0 ? 1 << state.level : 0;
      var q = state.q.toLowerCase();
      if (q && lowerIds === null) lowerIds = run.id.map(function (s) { return s.toLowerCase(); });
      var out = [];
      for (var i = 0; i < n; i++) {
        if (op >= 0 && run.op[i] !== op) continue;
        if (!byStatus(i)) continue;
        if (bit) {
          if (!(run.applies[i] & bit)) continue;
          if (failureOf[i] >= 0 && !(run.failed[i] & bit)) continue;
        }
        if (q && lowerIds[i].indexOf(q) < 0) continue;
        out.push(i);
      }
      return out;
    }

    function caseView(i) {
      var status = run.statuses[run.status[i]];
      var k = failureOf[i];
      var f = k >= 0 ? run.failures[k] : null;
      var head = el("div", { class: "case-head" }, [
        el("span", { class: "badge st-" + status, text: status }),
        f && f.backend_failure ? el("span", { class: "badge bf", text: "backend failure" }) : null,
        el("span", { class: "case-id", text: run.id[i] }),
        el("span", { class: "case-op", text: run.ops[run.op[i]] }),
        f ? el("span", { class: "case-file", text: run.files[f.file] }) : null
      ]);
      var body = [head];
      if (f) {
        if (f.mismatches.length) {
          body.push(el("table", { class: "diffs" }, [
            el("colgroup", null, [el("col", { class: "level" }), el("col", { class: "place" }), el("col"), el("col")]),
            el("thead", null, [el("tr", null, [
              el("th", { text: "level" }), el("th", { text: "place" }), el("th", { text: "expected (torch)" }), el("th", { text: "got" })
            ])]),
            el("tbody", null, f.mismatches.map(function (m) {
              return el("tr", null, [
                el("td", { text: m[0] }), el("td", { text: m[1] }),
                el("td", { class: "expected" }, [el("div", { class: "clip", text: m[2] })]),
                el("td", { class: "got" }, [el("div", { class: "clip", text: m[3] })])
              ]);
            }))
          ]));
        } else {
          body.push(el("p", { class: "detail", text: f.detail }));
        }
        if (f.note) body.push(el("p", { class: "note", text: f.note }));
        var pre = el("pre");
        var copy = el("button", { type: "button", class: "copy", text: "copy" });
        copy.addEventListener("click", function (ev) {
          ev.preventDefault();
          var done = function () { copy.textContent = "copied"; };
          var select = function () {
            var range = document.createRange();
            range.selectNodeContents(pre);
            var sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(range);
            copy.textContent = "selected";
          };
          pre.textContent = f.repro;
          if (navigator.clipboard && navigator.clipboard.writeText) {
            navigator.clipboard.writeText(f.repro).then(done, select);
          } else {
            select();
          }
        });
        var repro = el("details", { class: "repro" }, [el("summary", null, ["reproduce in torch", copy]), pre]);
        repro.addEventListener("toggle", function () { if (repro.open) pre.textContent = f.repro; });
        body.push(repro);
      } else if (run.skip[i] >= 0) {
        body.push(el("p", { class: "detail muted", text: "skipped: " + run.skip_reasons[run.skip[i]] }));
      } else if (run.status[i] === S.xpass) {
        body.push(el("p", { class: "note", text: "passes, but the xfail list expects it to fail" }));
      }
      return el("article", { class: "case st-" + status, "data-case": run.id[i] }, body);
    }

    function draw() {
      var kept = select();
      var pages = Math.max(1, Math.ceil(kept.length / PAGE_SIZE));
      if (state.page >= pages) state.page = pages - 1;
      var first = state.page * PAGE_SIZE;
      var shown = kept.slice(first, first + PAGE_SIZE);
      list.setAttribute("data-matched", String(kept.length));
      matched.textContent = kept.length === 0 ? "No case matches the filters." :
        kept.length + " case(s) match; showing " + (first + 1) + "–" + (first + shown.length) + ".";
      list.replaceChildren.apply(list, shown.length ? shown.map(caseView) : [el("div", { class: "empty", text: "Nothing to show." })]);
      where.textContent = "page " + (state.page + 1) + " of " + pages;
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
    }

    // The filters live in the address's fragment too (#status=fail&op=torch.add&level=values&q=...).
    function writeHash() {
      var p = new URLSearchParams();
      if (state.status !== "failures") p.set("status", state.status);
      if (state.op) p.set("op", state.op);
      if (state.level >= 0) p.set("level", data.levels[state.level]);
      if (state.q) p.set("q", state.q);
      if (state.page) p.set("page", String(state.page + 1));
      try { history.replaceState(null, "", "#" + p.toString()); } catch (e) { /* a page that cannot, keeps its address */ }
    }
    function readHash() {
      var p = new URLSearchParams(location.hash.slice(1));
      var status = p.get("status") || "failures";
      state.status = statusChoices.some(function (c) { return c[0] === status; }) ? status : "failures";
      state.op = p.get("op") || "";
      state.level = data.levels.indexOf(p.get("level") || "");
      state.q = p.get("q") || "";
      state.page = Math.max(0, (parseInt(p.get("page") || "1", 10) || 1) - 1);
    }
    function sync() {
      statusSel.value = state.status;
      opSel.value = state.op;
      levelSel.value = String(state.level);
      search.value = state.q;
      writeHash();
      draw();
    }
    function changed() {
      state.status = statusSel.value;
      state.op = opSel.value;
      state.level = parseInt(levelSel.value, 10);
      state.q = search.value;
      state.page = 0;
      writeHash();
      draw();
    }
    statusSel.addEventListener("change", changed);
    opSel.addEventListener("change", changed);
    levelSel.addEventListener("change", changed);
    search.addEventListener("input", changed);
    reset.addEventListener("click", function () {
      state = { status: "failures", op: "", level: -1, q: "", page: 0 };
      sync();
    });
    prev.addEventListener("click", function () { state.page--; writeHash(); draw(); });
    next.addEventListener("click", function () { state.page++; writeHash(); draw(); });
    window.addEventListener("hashchange", function () { readHash(); sync(); });
    readHash();
    sync();
  }

  if (data.run) runPage(); else matrixPage();
  performance.mark("bcast-report-ready");
})();
