/* epiharness viewer: a static, self-contained single page over data/index.js and data/ep/<run>/<episode>.js.
 * Routes (hash): #/?failed=1&type=..&split=..&q=..&run=K  (overview + episode list)
 *                #/episode/<id>?run=K&vs=J                   (one episode, optionally beside another run)
 * All text from traces goes into the page through textContent (the el() helper), never parsed as HTML. */
(function () {
  "use strict";
  var INDEX = window.EPI_INDEX || { runs: [] };
  var loaded = {};   // "run\u0000id" -> episode timeline
  var waiting = {};  // same key -> [resolve, reject]
  var PAGE = 200;    // episode rows rendered at once; "show more" adds the next page
  var FAILURE_NAMES = { retrieve: "Retrieve", perception: "Perception", reading_memory: "Reading-Memory", reasoning: "Reasoning", others: "Others" };

  // ---- DOM helper: every string child becomes a text node ----
  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k === "class") node.className = v;
        else if (k === "text") node.textContent = String(v);
        else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, v === true ? "" : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  function fmt(v, digits) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(digits === undefined ? 1 : digits);
    return String(v);
  }
  function failName(t) { return FAILURE_NAMES[t] || t; }
  function badge(ok, errored) {
    if (errored) return el("span", { class: "badge err", title: "a provider, data-access or pipeline error before any wrong turn: not a failure" }, "errored");
    if (ok === true) return el("span", { class: "badge ok" }, "success");
    if (ok === false) return el("span", { class: "badge bad" }, "failed");
    return el("span", { class: "badge unk" }, "unscored");
  }

  // ---- routing ----
  function parseHash() {
    var h = location.hash.replace(/^#/, "") || "/";
    var q = {}, qi = h.indexOf("?");
    if (qi >= 0) {
      h.slice(qi + 1).split("&").forEach(function (kv) {
        if (!kv) return;
        var p = kv.split("=");
        q[decodeURIComponent(p[0])] = decodeURIComponent(p.slice(1).join("=") || "");
      });
      h = h.slice(0, qi);
    }
    return { path: h, q: q };
  }
  function hashOf(path, q) {
    var parts = Object.keys(q).filter(function (k) { return q[k] !== "" && q[k] !== undefined && q[k] !== null; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(q[k]); });
    return "#" + path + (parts.length ? "?" + parts.join("&") : "");
  }
  function episodeHash(id, run, vs, extra) {
    var q = Object.assign({ run: run }, extra || {});
    if (vs !== undefined && vs !== null && vs !== "") q.vs = vs;
    return hashOf("/episode/" + encodeURIComponent(id), q);
  }

  // ---- on-demand episode data ----
  window.epiEpisodeLoaded = function (run, id, data) {
    var key = run + "\u0000" + id;
    loaded[key] = data;
    if (waiting[key]) { waiting[key][0](data); delete waiting[key]; }
  };
  function loadEpisode(run, entry) {
    var key = run + "\u0000" + entry.id;
    if (loaded[key]) return Promise.resolve(loaded[key]);
    return new Promise(function (resolve, reject) {
      waiting[key] = [resolve, reject];
      var s = el("script", { src: "data/ep/" + run + "/" + encodeURIComponent(entry.file), "data-episode": entry.id, "data-run": run });
      s.onerror = function () { delete waiting[key]; reject(new Error("cannot load " + s.src)); };
      document.head.appendChild(s);
    });
  }
  // the parts of an episode's model requests (data/req/<run>/<file>), loaded when the messages tab opens
  var reqLoaded = {}, reqWaiting = {};
  window.epiRequestsLoaded = function (run, id, data) {
    var key = run + "\u0000" + id;
    reqLoaded[key] = data;
    if (reqWaiting[key]) { reqWaiting[key][0](data); delete reqWaiting[key]; }
  };
  function loadRequests(run, entry) {
    var key = run + "\u0000" + entry.id;
    if (reqLoaded[key]) return Promise.resolve(reqLoaded[key]);
    return new Promise(function (resolve, reject) {
      reqWaiting[key] = [resolve, reject];
      var s = el("script", { src: "data/req/" + run + "/" + encodeURIComponent(entry.file), "data-requests": entry.id, "data-run": run });
      s.onerror = function () { delete reqWaiting[key]; reject(new Error("cannot load " + s.src + " (a viewer built before the messages tab: rebuild it with epi view)")); };
      document.head.appendChild(s);
    });
  }
  function findEntry(run, id) {
    var r = INDEX.runs[run];
    if (!r) return null;
    for (var i = 0; i < r.episodes.length; i++) if (r.episodes[i].id === id) return r.episodes[i];
    return null;
  }

  // ---- overview ----
  var METRICS = [["episodes", "episodes", 0], ["esr", "ESR %", 1], ["acc_final", "Acc final %", 1], ["acc_pre", "Acc pre %", 1],
    ["ec", "EC %", 1], ["mg", "MG", 2], ["max_steps_rate", "max-steps %", 1], ["claims.f1", "set answers F1", 2],
    ["process.efficiency", "efficiency", 2], ["process.redundancy", "redundancy", 2], ["process.reuse", "reuse", 2],
    ["process.grounding", "grounding", 2], ["process.queries_per_episode", "queries / episode", 1]];
  function pick(obj, path) {  // "process.efficiency" -> obj.process.efficiency (undefined when absent)
    return path.split(".").reduce(function (o, k) { return o === null || o === undefined ? undefined : o[k]; }, obj);
  }
  var COST = [["total_tokens", "tokens"], ["input_tokens", "input tokens"], ["output_tokens", "output tokens"],
    ["model_calls", "model calls"], ["tool_calls", "tool calls"], ["wall_time_s", "wall time s"]];

  // "[low, high]" of a 95% interval as report.md writes it; a bootstrap with nothing to resample says so
  // ("all n equal"), never a zero-width interval (scorer 11).
  function ivText(iv, digits) {
    if (!iv) return "";
    if (iv.all_equal) return iv.n === 1 ? "[only 1 episode]" : "[all " + (iv.n === undefined || iv.n === null ? "" : iv.n + " ") + "equal]";
    return "[" + iv.low.toFixed(digits) + ", " + iv.high.toFixed(digits) + "]";
  }
  function scoresTable(run) {
    var splits = ["easy", "hard", "all"];
    if (!run.scores || !run.scores.all) return el("p", { class: "muted" }, "This run has no scores.json (not scored).");
    return el("table", { class: "scores" },
      el("caption", { class: "muted small" }, "[95% interval]: Wilson for ESR, the accuracies and EC (evidence units); bootstrap over episodes for MG"),
      el("thead", null, el("tr", null, el("th", null, "metric"), splits.map(function (s) { return el("th", null, s); }))),
      el("tbody", null, METRICS.map(function (m) {
        return el("tr", null, el("th", null, m[1]), splits.map(function (s) {
          var v = pick(run.scores[s], m[0]), iv = v === null || v === undefined ? null : pick(run.scores[s], "intervals." + m[0]);
          return el("td", { "data-metric": m[0] + ":" + s }, fmt(v, m[2]), iv ? el("span", { class: "muted small ci" }, " " + ivText(iv, m[2])) : null);
        }));
      })));
  }
  function failureTable(run) {
    if (!run.scores || !run.scores.all) return null;
    var types = Object.keys(FAILURE_NAMES);
    return el("table", { class: "scores" },
      el("thead", null, el("tr", null, el("th", null, "failure type"), ["easy", "hard", "all"].map(function (s) { return el("th", null, s); }))),
      el("tbody", null, types.map(function (t) {
        return el("tr", null, el("th", null, failName(t)), ["easy", "hard", "all"].map(function (s) {
          var n = (run.scores[s].failures || {})[t] || 0;
          return el("td", { class: n ? "num hot" : "num" }, n);
        }));
      })));
  }
  function costTable(run) {
    if (!run.scores || !run.scores.all) return null;
    var b = run.buckets || {};
    return el("table", { class: "scores" }, el("tbody", null,
      COST.map(function (c) { return el("tr", null, el("th", null, c[1]), el("td", null, fmt(run.scores.all[c[0]], 1))); }),
      Object.keys(b).map(function (k) { return el("tr", null, el("th", null, "no answer: " + k), el("td", null, b[k])); })));
  }

  var REPORT_METRICS = [["claim_correctness", "Right"], ["factual_accuracy", "FA"], ["citation_fidelity", "FID"], ["citation_coverage", "CC"],
    ["trace_verified_citations", "trace-verified citations"], ["trace_verified_fidelity", "trace-verified FID"], ["visual_integrity", "visual integrity"],
    ["coverage_precision", "claim precision"], ["coverage_recall", "claim recall"], ["persona_violation_rate", "persona violations"]];
  function reportCard(r) {
    if (!r) return null;
    var j = r.judged, rows = REPORT_METRICS.map(function (m) {
      var v = r[m[0]] || {};
      return el("tr", null, el("th", null, m[1]), el("td", { "data-report-metric": m[0] }, v.value === null || v.value === undefined ? "n/a" :
        v.value.toFixed(1) + (v.interval ? " " + ivText(v.interval, 1) : "")), el("td", { class: "muted" }, "rules"));
    });
    if (j) {
      var jm = function (m, d) { return m && m.value !== null && m.value !== undefined ? m.value.toFixed(d) + (m.interval ? " " + ivText(m.interval, d) : "") : "n/a"; };
      var who = j.judge + " · " + j.calibration_label;
      if (j.prompt_versions.quality) rows.push(el("tr", null, el("th", null, "FLAE (0-100)"), el("td", { "data-report-metric": "flae" }, jm(j.flae, 1)), el("td", { class: "muted" }, who)));
      if (j.prompt_versions.persona) rows.push(el("tr", null, el("th", null, "P-Score (0-10)"), el("td", { "data-report-metric": "p_score" }, jm(j.personalization, 2)), el("td", { class: "muted" }, who)));
      if (j.prompt_versions.support) rows.push(el("tr", null, el("th", null, "judged FA"), el("td", { "data-report-metric": "judged_fa" }, j.judged_fa === null || j.judged_fa === undefined ? "n/a" : j.judged_fa.toFixed(1)), el("td", { class: "muted" }, who)));
    }
    return el("div", null, el("h3", null, "Reports (" + r.reports + ", claims read by " + r.extraction + ")"),
      el("table", { class: "scores" }, el("tbody", null, rows)));
  }

  function runCard(run, k) {
    return el("section", { class: "card run" },
      el("h2", null, run.run_id, el("span", { class: "muted small" }, "  agent " + (run.agent || "?") + (run.model ? " · model " + run.model : "") +
        (run.labeller ? " · labels by " + run.labeller : ""))),
      run.agent_origin ? el("p", { class: "warn", "data-agent-origin": run.agent_origin }, "agent: " + run.agent_origin +
        (run.agent_source ? " — " + run.agent_source : "") + ". The agent's own code ran inside the harness: what it reports is checked, " +
        "what it does on its own is not enforced (see SECURITY.md).") : null,
      run.note ? el("p", { class: "note" }, run.note) : null,
      (run.notes || []).map(function (n) { return el("p", { class: "warn" }, n); }),
      run.errored ? el("p", { class: "warn", "data-run-errored": run.errored }, run.errored + " errored episode" + (run.errored > 1 ? "s" : "") +
        " (provider, data-access or pipeline error before any wrong turn) " + (run.errors_as_failures ? "counted as failed (the paper's convention)." :
        "left out of the scores: errors are not failures; `epi retry` runs them again.")) : null,
      !(run.scores && run.scores.all) ? el("p", { class: "muted" }, "This run is not scored (no scores.json): run `epi score` on it for the tables.") :
      el("div", { class: "tables" },
        el("div", null, el("h3", null, "Scores"), scoresTable(run)),
        el("div", null, el("h3", null, "Failures (one label per failed episode)"), failureTable(run)),
        el("div", null, el("h3", null, "Cost"), costTable(run)),
        reportCard(run.report)),
      (run.plots && run.plots.length) ? el("details", { class: "plots", open: k === 0 },
        el("summary", null, "Plots (" + run.plots.length + ")"),
        el("div", { class: "plotgrid" }, run.plots.map(function (p) { return el("a", { href: p, target: "_blank" }, el("img", { src: p, alt: p, loading: "lazy" })); }))) : null);
  }

  function filtered(run, q) {
    var text = (q.q || "").toLowerCase();
    return run.episodes.filter(function (e) {
      if (q.failed === "1" && (e.ok !== false || e.errored)) return false;
      if (q.type && e.fail !== q.type) return false;
      if (q.split && e.split !== q.split) return false;
      if (text && e.id.toLowerCase().indexOf(text) < 0) return false;
      return true;
    });
  }

  function episodeList(q) {
    var k = +(q.run || 0), run = INDEX.runs[k];
    var rows = filtered(run, q);
    var shown = +(q.n || PAGE);
    var others = INDEX.runs.map(function (r, j) { return j; }).filter(function (j) { return j !== k; });
    var vs = others.length ? others[0] : null;
    function set(key, value) { var nq = Object.assign({}, q); nq[key] = value; delete nq.n; location.hash = hashOf("/", nq); }
    var splits = {}; run.episodes.forEach(function (e) { if (e.split) splits[e.split] = 1; });
    var controls = el("div", { class: "filters" },
      INDEX.runs.length > 1 ? el("label", null, "run ", el("select", { id: "f-run", onchange: function (ev) { set("run", ev.target.value); } },
        INDEX.runs.map(function (r, j) { return el("option", { value: j, selected: j === k }, r.run_id); }))) : null,
      el("label", { class: "check" }, el("input", { type: "checkbox", id: "f-failed", checked: q.failed === "1",
        onchange: function (ev) { set("failed", ev.target.checked ? "1" : ""); } }), " failed only"),
      el("label", null, "error type ", el("select", { id: "f-type", onchange: function (ev) { set("type", ev.target.value); } },
        el("option", { value: "" }, "any"),
        Object.keys(FAILURE_NAMES).map(function (t) { return el("option", { value: t, selected: q.type === t }, failName(t)); }))),
      el("label", null, "split ", el("select", { id: "f-split", onchange: function (ev) { set("split", ev.target.value); } },
        el("option", { value: "" }, "any"),
        Object.keys(splits).sort().map(function (s) { return el("option", { value: s, selected: q.split === s }, s); }))),
      el("input", { type: "search", id: "f-q", placeholder: "search episode id", value: q.q || "",
        onchange: function (ev) { set("q", ev.target.value); } }),
      el("span", { class: "muted", id: "f-count" }, rows.length + " of " + run.episodes.length + " episodes"));
    var table = el("table", { class: "episodes", id: "episode-table" },
      el("thead", null, el("tr", null, ["episode", "split", "task", "result", "failure", "why", "turns", "tool calls", "tokens"]
        .map(function (h) { return el("th", null, h); }))),
      el("tbody", null, rows.slice(0, shown).map(function (e) {
        return el("tr", { class: e.errored ? "errored" : (e.ok === false ? "failed" : ""), "data-episode-row": e.id,
            "data-errored": e.errored ? "1" : null },
          el("td", null, el("a", { href: episodeHash(e.id, k, vs) }, e.id)),
          el("td", null, e.split || ""), el("td", null, e.task || ""),
          el("td", null, badge(e.ok, e.errored), e.attempts ? el("span", { class: "muted small", "data-attempts": e.attempts }, " +" + e.attempts + " failed attempt" + (e.attempts > 1 ? "s" : "")) : null,
            e.checks ? el("span", { class: "badge err", "data-agent-checks": e.checks, title: "the agent broke the protocol (agent_check events)" }, " checks " + e.checks) : null),
          el("td", null, e.fail ? el("span", { class: "ftype f-" + e.fail }, failName(e.fail)) : ""),
          el("td", { class: "why" }, e.why || ""), el("td", { class: "num" }, e.turns),
          el("td", { class: "num" }, e.calls), el("td", { class: "num" }, e.tokens));
      })));
    var more = rows.length > shown ? el("button", { class: "more", onclick: function () {
      var nq = Object.assign({}, q); nq.n = shown + PAGE; location.hash = hashOf("/", nq); } }, "show " + Math.min(PAGE, rows.length - shown) + " more") : null;
    lastList = { run: k, ids: rows.map(function (e) { return e.id; }), hash: location.hash || "#/" };
    return el("section", { class: "card" }, el("h2", null, "Episodes"), controls, table, more);
  }

  function overview(q) {
    if (!INDEX.runs.length) return el("p", { class: "warn" }, "No run data: data/index.js is missing or empty. Rebuild with `epi view RUN`.");
    return [INDEX.runs.map(runCard), episodeList(q)];
  }

  // ---- episode page ----
  var lastList = null;
  function chips(list, cls) { return list.map(function (u) { return el("span", { class: "chip " + (cls || "") }, u); }); }

  function failureMarker(f) {
    return el("div", { class: "failure-marker", "data-failure-marker": f.type, role: "note" },
      el("strong", null, "✖ first error · " + failName(f.type)), el("span", null, " " + f.why));
  }

  function stepRow(s) {
    var head;
    if (s.kind === "tool_call") head = el("code", { class: "call" }, s.tool, "(", Object.keys(s.args).map(function (a, i) {
      var v = s.args[a];
      return [i ? ", " : "", el("span", { class: "arg" }, a + "="), typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v)];
    }), ")");
    else head = el("span", { class: "kind k-" + s.kind }, { final_answer: "final answer", budget_exhausted: "budget exhausted", limit_hit: "limit hit", retry: "retry", error: "error", agent_check: "agent check" }[s.kind] || s.kind);
    return el("li", { class: "step s-" + s.kind + (s.failure ? " has-failure" : ""), "data-step": s.step },
      el("div", { class: "stephead" }, el("span", { class: "stepno", title: "step " + s.step }, s.kind === "tool_call" ? s.step : ""), head,
        s.budget_left !== null && s.budget_left !== undefined && s.kind === "tool_call" ? el("span", { class: "budget", title: "steps left in this turn's budget" }, s.budget_left + " left") : null),
      s.reasoning ? el("div", { class: "reasoning" }, s.reasoning) : null,
      s.summary ? el("div", { class: "summary" + (s.kind === "final_answer" ? " answer" : "") }, s.summary) : null,
      s.error ? el("div", { class: "error" }, (s.error_kind ? s.error_kind + ": " : "") + s.error) : null,
      s.refused ? el("div", { class: "muted small" }, "refused by the session: a step of the budget, not a tool call") : null,
      s.flags && s.flags.length ? el("div", { class: "flags" }, s.flags.map(function (f) { return el("span", { class: "chip flag", "data-flag": f }, f); })) : null,
      s.evidence && s.evidence.length ? el("div", { class: "evidence" }, el("span", { class: "muted" }, "evidence "), chips(s.evidence)) : null,
      s.images && s.images.length ? el("div", { class: "images" }, s.images.map(function (im) {
        return im.path ? el("figure", null, el("a", { href: im.path, target: "_blank" }, el("img", { src: im.path, alt: im.name, class: "figure-image" })), el("figcaption", null, im.name))
          : el("div", { class: "warn" }, "image " + im.name + " is missing from the run folder");
      })) : null,
      s.result_text ? el("details", { class: "result" }, el("summary", null, "full observation (" + s.result_text.length + " chars)"), el("pre", null, s.result_text)) : null,
      s.failure ? failureMarker(s.failure) : null);
  }

  function turnBlock(t, n, ep) {
    var rep = ep && ep.report && ep.report.turn === t.turn ? ep.report : null;
    var verdict = rep ? el("span", { class: "badge mem" }, "report") : t.correct === true ? el("span", { class: "badge ok" }, "✓ correct") : t.correct === false ? el("span", { class: "badge bad" }, "✗ wrong") : el("span", { class: "badge unk" }, "unscored");
    return el("section", { class: "turn" + (t.failure ? " turn-failed" : ""), "data-turn": t.turn },
      el("h3", null, "Turn " + t.turn + " / " + n, " ", verdict, t.memory_only ? el("span", { class: "badge mem" }, "memory only") : null),
      el("p", { class: "question" }, t.question),
      t.cue_text ? el("p", { class: "cue" }, el("span", { class: "muted" }, "cue: "), t.cue_text) : null,
      t.cue_image && t.cue_image.path ? el("figure", { class: "cueimg" }, el("img", { src: t.cue_image.path, alt: "cue image", class: "figure-image" }), el("figcaption", null, "cue image")) : null,
      el("p", { class: "meta" }, "tools: " + ((t.allowed_tools || []).join(", ") || "none") + " · budget " + fmt(t.budget) + " · model calls " + t.model_calls + " · tokens " + t.tokens),
      t.process ? turnProcess(t.process) : null,
      el("ol", { class: "steps" }, t.steps.length ? t.steps.map(stepRow) : el("li", { class: "warn" }, "this turn did not run")),
      rep ? reportBlock(rep) : null,
      rep ? null : el("div", { class: "answers" },
        el("div", { class: "ans agent" }, el("div", { class: "label" }, "agent answer" + (t.answer_source && t.answer_source !== "agent" ? " (" + t.answer_source + ")" : "")), el("div", { class: "val" }, t.answer === null || t.answer === undefined ? "(no answer)" : t.answer)),
        el("div", { class: "ans gold" }, el("div", { class: "label" }, "gold answer"), el("div", { class: "val" }, t.gold === null || t.gold === undefined ? "(episode file not available)" : t.gold))),
      el("div", { class: "evid" },
        el("div", null, el("span", { class: "label" }, "required evidence "), t.required.length ? t.required.map(function (r) {
          return el("span", { class: "chip " + (r.accessed ? "hit" : "miss"), title: r.accessed ? "accessed" : "not accessed" }, (r.accessed ? "✓ " : "✗ ") + r.unit);
        }) : el("span", { class: "muted" }, "none annotated")),
        el("div", null, el("span", { class: "label" }, "accessed this turn "), t.accessed.length ? chips(t.accessed) : el("span", { class: "muted" }, "none")),
        el("div", null, el("span", { class: "label" }, "in memory from earlier turns "), (t.from_memory || []).length ? chips(t.from_memory) : el("span", { class: "muted" }, "none"))));
  }

  // ---- report turns (issue 32): the report with every claim marked, citations linked to the steps that opened them ----
  var MARKS = [["true", "✓", "true"], ["false", "✗", "false"], ["uncited", "⊘", "uncited"], ["unread", "◌", "cited but unread"],
    ["off_persona", "⚑", "off-persona"], ["unknown", "?", "unverifiable"]];
  var MARK_NAME = {}, MARK_SYMBOL = {};
  MARKS.forEach(function (m) { MARK_SYMBOL[m[0]] = m[1]; MARK_NAME[m[0]] = m[2]; });
  function goToStep(from, turn, step) {
    var section = from.closest("section.turn"), row = section ? section.parentNode : null;
    var col = row ? Array.prototype.indexOf.call(row.children, section) : 0;
    var rows = document.querySelectorAll("#episode .cols");
    for (var i = 0; i < rows.length; i++) {
      var cell = rows[i].children[col];
      if (!cell || !cell.matches || !cell.matches("section.turn[data-turn='" + turn + "']")) continue;
      var li = cell.querySelector("li.s-tool_call[data-step='" + step + "']");
      if (li) {
        li.scrollIntoView({ block: "center" });
        li.classList.add("flash");
        setTimeout(function () { li.classList.remove("flash"); }, 1600);
      }
      return;
    }
  }
  function citeLink(c) {
    var read = c.opened.length && c.opened.every(function (x) { return x; });
    if (c.turn === null || c.turn === undefined) {
      return el("span", { class: "cite unread", "data-cite": c.units.join(" "), title: c.units.join(", ") + ": never opened in this episode" }, c.text);
    }
    return el("a", { href: "#", class: "cite" + (read ? "" : " unread"), "data-cite": c.units.join(" "), "data-cite-step": c.turn + "." + c.step,
      title: c.units.join(", ") + ": opened at turn " + c.turn + ", step " + c.step + (read ? "" : " (not every unit of it)"),
      onclick: function (ev) { ev.preventDefault(); goToStep(ev.target, c.turn, c.step); } }, c.text);
  }
  function claimChip(c, i) {
    return el("sup", { class: "mark m-" + c.primary, "data-claim-mark": c.primary, "data-claim": i,
      title: "claim " + (i + 1) + ": " + c.text + " · " + c.marks.map(function (m) { return MARK_NAME[m]; }).join(", ") +
        (c.extracted_by !== "rules" ? " · read by " + c.extracted_by : "") }, MARK_SYMBOL[c.primary] + (i + 1));
  }
  function reportText(rep) {
    return el("div", { class: "report-text", "data-report": rep.turn }, rep.pieces.map(function (p) {
      if (p.claims && p.claims.length) return el("span", { class: "claim-marks" }, p.claims.map(function (i) { return claimChip(rep.claims[i], i); }));
      if (p.cite !== null && p.cite !== undefined) return citeLink(rep.citations[p.cite]);
      var m = p.sentence !== null && p.sentence !== undefined ? rep.sentence_marks[p.sentence] : null;
      return el("span", { class: m ? "sent m-" + m : null, "data-sentence-mark": m || null }, p.text);
    }), rep.cut ? el("div", { class: "warn" }, "… the report is longer than the view shows") : null);
  }
  function claimTable(rep) {
    if (!rep.claims.length) return el("p", { class: "muted" }, "no claims about named methods read from this report");
    return el("table", { class: "claims" },
      el("thead", null, el("tr", null, ["#", "claim", "marks", "read by", "judged support", "gold"].map(function (h) { return el("th", null, h); }))),
      el("tbody", null, rep.claims.map(function (c, i) {
        return el("tr", { class: "m-" + c.primary, "data-claim-row": i },
          el("td", { class: "num" }, i + 1), el("td", null, c.text, c.violates ? el("div", { class: "muted small" }, "breaks: " + c.violates) : null),
          el("td", null, c.marks.map(function (m) { return el("span", { class: "mark m-" + m }, MARK_SYMBOL[m] + " " + MARK_NAME[m]); })),
          el("td", null, c.extracted_by), el("td", { class: "small" }, c.support.join("; ") || "–"),
          el("td", null, c.gold === null || c.gold === undefined ? "–" : "gold " + (c.gold + 1)));
      })));
  }
  function num(v, d) { return v === null || v === undefined ? "–" : v.toFixed(d); }
  function judgedPanel(j) {
    if (!j) return null;
    var parts = [];
    if (j.flae) {
      var f = j.flae, dims = ["read", "insh", "stru"];
      parts.push(el("div", { class: "judged-block", "data-judged": "flae" },
        el("h4", null, "FLAE quality (MMDR-Bench): ", el("strong", null, num(f.value, 1)), " / 100"),
        f.error ? el("p", { class: "warn" }, f.error) : null,
        el("table", { class: "scores" }, el("thead", null, el("tr", null, ["dimension", "formula", "judge", "fused", "weight"].map(function (h) { return el("th", null, h); }))),
          el("tbody", null, dims.map(function (d) {
            return el("tr", null, el("th", null, d.toUpperCase() + "."), el("td", null, num(f.formula[d], 2)), el("td", null, f.judged ? num(f.judged[d], 2) : "–"),
              el("td", null, f.fused ? num(f.fused[d], 2) : "–"), el("td", null, f.weights ? num(f.weights[d], 2) : "–"));
          }))),
        el("p", { class: "muted small" }, "alpha " + num(f.alpha, 2) + " from the judge (deterministic alpha of Eq. 8: " + num(f.alpha_det, 2) + ")")));
    }
    if (j.personalization) {
      var p = j.personalization;
      parts.push(el("div", { class: "judged-block", "data-judged": "personalization" },
        el("h4", null, "P-Score personalization (PDR): ", el("strong", null, num(p.value, 2)), " / 10"),
        p.error ? el("p", { class: "warn" }, p.error) : null,
        Object.keys(p.dimensions || {}).map(function (d) {
          var dim = p.dimensions[d];
          return el("details", null, el("summary", null, d.replace(/_/g, " ") + ": " + num(dim.score, 2) + " (weight " + num(dim.weight, 2) + ")"),
            el("ul", { class: "criteria" }, dim.criteria.map(function (c) {
              return el("li", null, c.text + " — weight " + num(c.weight, 2) + ", score " + num(c.score, 0), c.analysis ? el("div", { class: "muted small" }, c.analysis) : null);
            })));
        })));
    }
    if (j.support && j.support.length) {
      parts.push(el("p", { "data-judged": "support" }, "Judged support (FACT-style, against the text the agent read): " + j.judged_supported + " of " + j.cited + " cited claims supported"));
    }
    if (j.extraction) {
      var x = j.extraction;
      parts.push(el("p", { "data-judged": "extraction" }, "Judged extraction (" + x.prompt_version + "): " + x.sentences + " sentence(s) sent, " + x.claims + " claim(s) added" +
        (x.errors ? ", " + x.errors + " without a readable reply" : "") + (x.refused.length ? "; refused: " + x.refused.join("; ") : "")));
    }
    return el("details", { class: "judged-panel", open: true, "data-judge": j.judge },
      el("summary", null, "Judged by " + j.judge + " · " + j.calibration_label), parts);
  }
  function reportBlock(rep) {
    return el("div", { class: "report", "data-report-turn": rep.turn },
      el("div", { class: "label" }, "report · claims read by " + rep.extraction),
      el("div", { class: "mark-legend" }, MARKS.map(function (m) {
        return el("span", { class: "mark m-" + m[0], "data-mark-count": m[0] }, m[1] + " " + m[2] + " " + (rep.counts[m[0]] || 0));
      })),
      rep.problems.length ? el("div", { class: "warn" }, "problems: " + rep.problems.join("; ")) : null,
      reportText(rep), claimTable(rep), judgedPanel(rep.judged));
  }

  function ratio(v) { return v === null || v === undefined ? "–" : v.toFixed(2); }
  function turnProcess(p) {
    var parts = [];
    if (p.executed_calls) parts.push("efficiency " + ratio(p.efficiency) + " (" + p.useful_calls.length + "/" + p.executed_calls + " calls on target)");
    if (p.redundant_calls.length) parts.push(p.redundant_calls.length + " redundant call" + (p.redundant_calls.length > 1 ? "s" : ""));
    if (p.reformulations.length) parts.push(p.reformulations.length + " new quer" + (p.reformulations.length > 1 ? "ies" : "y") + ", " +
      p.reformulations.filter(function (r) { return r.moved_up; }).length + " moved the target up");
    if (p.reuse !== null && p.reuse !== undefined) parts.push("reuse " + p.reuse_hit + "/" + p.reuse_need + " required units in memory");
    var g = p.grounding;
    var ungrounded = g && (g.source === "none" || g.source === "figure_other");
    if (g) parts.push(g.source === "none" ? "answer traceable to nothing in the trace" :
      g.source === "figure_other" ? "answer not grounded: only a figure the turn does not require was open (" + g.where + ")" :
      "answer traced: " + g.source.replace("_", " ") + (g.where ? " (" + g.where + ")" : ""));
    if (!parts.length) return null;
    return el("p", { class: "meta process" + (ungrounded ? " ungrounded" : ""), "data-turn-process": p.turn }, "process: " + parts.join(" · "));
  }
  var PROCESS_ROWS = [["distinct_queries", "distinct queries", 0], ["papers_surfaced", "papers surfaced", 0], ["papers_opened", "papers opened", 0],
    ["units_read", "units read", 0], ["units_per_paper", "units per paper", 2], ["reformulations", "reformulations", 0],
    ["moved_up", "…moved the target up", 0], ["repeated_calls", "repeated calls", 0], ["reread_units", "re-read units", 0],
    ["redundancy", "redundancy", 2], ["efficiency", "efficiency", 2], ["reuse", "reuse", 2], ["grounding", "grounding", 2]];
  function processPanel(p) {
    if (!p) return null;
    return el("details", { class: "process-panel", open: true, "data-process": "episode" },
      el("summary", null, "Process metrics (from the trace)"),
      el("table", { class: "scores" }, el("tbody", null, PROCESS_ROWS.map(function (r) {
        var v = p[r[0]];
        return el("tr", null, el("th", null, r[1]), el("td", { "data-metric": r[0] }, r[2] ? ratio(v) : fmt(v, 0)));
      }))),
      p.ungrounded_turns && p.ungrounded_turns.length ? el("p", { class: "warn" }, "answers traceable to nothing: turn " + p.ungrounded_turns.join(", ")) : null);
  }

  function episodeHeader(ep) {
    return el("div", { class: "ephead" },
      el("div", null, badge(ep.success, ep.errored), " ", el("strong", null, ep.run_id), el("span", { class: "muted" }, " · agent " + (ep.agent || "?"))),
      ep.agent_checks && Object.keys(ep.agent_checks).length ? el("p", { class: "warn", "data-agent-checks": "1" },
        "agent checks: " + Object.keys(ep.agent_checks).map(function (k) { return k + " " + ep.agent_checks[k]; }).join(", ") +
        ". The agent broke the protocol here; each agent_check event in the trace says what it did and whether it was refused, charged to the budget or flagged.") : null,
      ep.errored ? el("p", { class: "warn", "data-errored": "1" }, "errored: a " + (ep.bucket || "provider") + " error before any wrong turn. Not a failure of the agent: left out of the scores (unless scored with errors as failures); `epi retry` runs it again.") : null,
      (ep.attempts || []).length ? el("details", { class: "attempts", open: true, "data-attempts": ep.attempts.length },
        el("summary", null, ep.attempts.length + " earlier failed attempt" + (ep.attempts.length > 1 ? "s" : "") + " (set aside by epi retry, not scored)"),
        el("ul", null, ep.attempts.map(function (a) {
          return el("li", { "data-attempt": a.number }, "attempt " + a.number + ": " + a.status + (a.bucket ? " (" + a.bucket + ")" : "") +
            " · " + a.model_calls + " model calls, " + a.tool_calls + " tool calls" + (a.error ? " · " + a.error : "") + " · " + a.file);
        }))) : null,
      el("div", { class: "muted small" }, [ep.split, ep.task_type, ep.initiation, ep.n_turns + " turns", "status " + ep.status,
        ep.bucket ? "bucket " + ep.bucket : null, ep.tool_calls + " tool calls" + (ep.refused_calls ? " (+" + ep.refused_calls + " refused)" : ""), ep.tokens + " tokens", fmt(ep.wall_s) + " s"].filter(Boolean).join(" · ")),
      ep.failure ? el("a", { class: "failure-summary", href: "#", onclick: function (ev) {
        ev.preventDefault(); var m = document.querySelector("[data-failure-marker]"); if (m) m.scrollIntoView({ block: "center" }); } },
        "✖ " + failName(ep.failure.type) + " at turn " + ep.failure.turn + ", step " + (ep.failure.step || "answer") + ": " + ep.failure.why) : null,
      (ep.notes || []).map(function (n) { return el("p", { class: "warn" }, n); }),
      processPanel(ep.process));
  }

  // ---- messages tab: each model request rebuilt from the parts the trace stores ----
  // The same steps as harness/trace_store.py RequestIndex.body (what `epi trace export --call N` writes): the call's
  // message hashes follow its parents (the first `keep` of the parent's, then its own), each part is its stored JSON
  // text with tool results (JSON-escaped, maybe cut to `chars` code points) and image payloads (base64) put back, and
  // the body is {"messages":[m1,m2,...] followed by the head object without its opening brace.
  function jsonEscaped(text) { return JSON.stringify(text).slice(1, -1); }  // Python's json.dumps(ensure_ascii=False)[1:-1]
  function firstCodePoints(s, n) {  // Python's s[:n]: n code points, not UTF-16 units
    var i = 0, k = 0;
    while (i < s.length && k < n) {
      var c = s.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
      k++;
    }
    return s.slice(0, i);
  }
  function RequestBook(src) {
    this.src = src; this.byN = {}; this.len = {};
    var self = this;
    src.calls.forEach(function (c) { self.byN[c.n] = c; });
  }
  RequestBook.prototype.call = function (n) {
    var c = this.byN[n];
    if (!c) throw new Error("no model call " + n + " in this trace");
    return c;
  };
  RequestBook.prototype.count = function (n) {  // messages in call n, from the lengths alone (no lists built)
    if (this.len[n] !== undefined) return this.len[n];
    var chain = [], k = n;
    while (k !== null && k !== undefined && this.len[k] === undefined) {
      var c = this.byN[k];
      if (!c || c.head === null || c.head === undefined) return null;
      if (c.parent !== null && c.parent !== undefined && c.parent >= k) return null;
      chain.push(c); k = c.parent;
    }
    for (var i = chain.length - 1; i >= 0; i--) {
      var p = chain[i].parent, base = p === null || p === undefined ? 0 : this.len[p];
      this.len[chain[i].n] = Math.min(chain[i].keep, base) + chain[i].messages.length;
    }
    return this.len[n];
  };
  RequestBook.prototype.hashes = function (n) {  // call n's message hashes: one list, built root first
    var chain = [], k = n;
    while (k !== null && k !== undefined) {
      var c = this.call(k);
      if (c.head === null || c.head === undefined) throw new Error("model call " + k + " was stored whole (trace before v4): it has no message hashes");
      if (c.parent !== null && c.parent !== undefined && c.parent >= k) throw new Error("model call " + k + " names a later call " + c.parent + " as its parent");
      chain.push(c); k = c.parent;
    }
    var out = [];
    for (var i = chain.length - 1; i >= 0; i--) {
      if (chain[i].keep > out.length) throw new Error("model call " + chain[i].n + " keeps " + chain[i].keep + " messages of call " + chain[i].parent + ", which has " + out.length);
      out.length = chain[i].keep;
      Array.prototype.push.apply(out, chain[i].messages);
    }
    return out;
  };
  RequestBook.prototype.part = function (h, n) {
    var blob = this.src.blobs[h];
    if (blob === undefined) throw new Error("model call " + n + ": the trace holds no part with hash " + h.slice(0, 16) + "...");
    if (typeof blob === "string") return blob;
    var src = this.src;
    return blob.map(function (piece) {
      if (typeof piece === "string") return piece;
      if (piece.tool_result !== undefined) {
        var text = src.results[piece.tool_result];
        if (text === undefined) throw new Error("model call " + n + ": no tool_call result with hash " + piece.tool_result.slice(0, 16) + "...");
        var esc = jsonEscaped(text);
        return piece.chars === null || piece.chars === undefined ? esc : firstCodePoints(esc, piece.chars);
      }
      var data = src.images[piece.image];
      if (data === undefined) throw new Error("model call " + n + ": image " + piece.image + " is not in the viewer (" + (src.notes.join("; ") || "missing") + ")");
      return data;
    }).join("");
  };
  RequestBook.prototype.parts = function (n) {  // {head, messages}: the JSON texts of call n
    var c = this.call(n), self = this;
    if (c.head === null || c.head === undefined) throw new Error("model call " + n + " was stored whole (trace before v4): only its JSON is known");
    return { head: this.part(c.head, n), messages: this.hashes(n).map(function (h) { return self.part(h, n); }) };
  };
  RequestBook.prototype.body = function (n) {  // the exact body, as a string (its UTF-8 bytes are what was sent)
    var p = this.parts(n), rest = p.head.slice(1).replace(/^[ \t\n\r\u000b\u000c]+/, "");
    return '{"messages":[' + p.messages.join(",") + "]" + (rest === "}" ? "}" : "," + rest);
  };
  var books = {};
  function bookOf(run, id, j, src) { var key = run + "\u0000" + id + "\u0000" + j; return books[key] || (books[key] = new RequestBook(src)); }
  window.epiRequestBody = function (run, id, n, j) {  // for scripts and tests: the rebuilt body of call n (source j, 0: the run's trace)
    var data = reqLoaded[run + "\u0000" + id];
    if (!data) throw new Error("requests of " + id + " are not loaded (open its messages tab)");
    return bookOf(run, id, j || 0, data.sources[j || 0]).body(n);
  };
  function utf8(s) { return new TextEncoder().encode(s); }
  function shaCheck(body, want) {
    var span = el("span", { class: "muted small", "data-sha-check": "pending" }, want ? " · checking sha256…" : " · no sha256 recorded");
    if (!want) { span.setAttribute("data-sha-check", "none"); return span; }
    if (!(window.crypto && crypto.subtle)) { span.setAttribute("data-sha-check", "unavailable"); span.textContent = " · sha256 not checked (the browser offers no SHA-256 on this page)"; return span; }
    crypto.subtle.digest("SHA-256", utf8(body)).then(function (buf) {
      var hex = Array.prototype.map.call(new Uint8Array(buf), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
      var ok = hex === want;
      span.setAttribute("data-sha-check", ok ? "match" : "mismatch");
      span.className = ok ? "ok-text small" : "warn";
      span.textContent = ok ? " · ✓ sha256 matches the trace's record" : " · ✗ sha256 differs from the trace's record: a part was altered";
    });
    return span;
  }
  function contentView(content) {
    if (content === null || content === undefined) return null;
    if (typeof content === "string") return el("pre", { class: "msg-text" }, content);
    if (!Array.isArray(content)) return el("pre", { class: "msg-text" }, JSON.stringify(content, null, 1));
    return content.map(function (item) {
      if (item && item.type === "text") return el("pre", { class: "msg-text" }, item.text);
      var url = item && item.type === "image_url" && item.image_url ? (typeof item.image_url === "string" ? item.image_url : item.image_url.url) : null;
      if (typeof url === "string" && /^data:image\/(png|jpeg|gif|webp);base64,/.test(url)) {
        return el("figure", { class: "msg-image" }, el("img", { src: url, alt: "image sent to the model" }),
          el("figcaption", { class: "muted small" }, "image sent, " + Math.floor((url.length - url.indexOf(",") - 1) * 3 / 4).toLocaleString() + " bytes"));
      }
      return el("pre", { class: "msg-text" }, JSON.stringify(item, null, 1));
    });
  }
  function messageView(text, i) {
    var m;
    try { m = JSON.parse(text); } catch (e) { return el("div", { class: "msg", "data-message": i }, el("div", { class: "warn" }, "message " + (i + 1) + " is not JSON"), el("pre", null, text)); }
    var role = m && typeof m === "object" ? String(m.role || "?") : "?";
    var rest = {};
    if (m && typeof m === "object") Object.keys(m).forEach(function (k) { if (k !== "role" && k !== "content") rest[k] = m[k]; });
    return el("div", { class: "msg role-" + role.replace(/[^a-z_]/g, ""), "data-message": i },
      el("div", { class: "msg-role" }, (i + 1) + " · " + role, el("span", { class: "muted small" }, " · " + utf8(text).length.toLocaleString() + " bytes")),
      contentView(m && typeof m === "object" ? m.content : m),
      Object.keys(rest).length ? el("pre", { class: "msg-extra" }, JSON.stringify(rest, null, 1)) : null);
  }
  function requestView(book, n) {
    var c = book.call(n);
    var title = "call " + n + " · turn " + c.turn + ", step " + c.step + (c.purpose !== "step" ? " · " + c.purpose : "");
    if (c.head === null || c.head === undefined) {
      return el("div", { class: "request", "data-request": n },
        el("h4", null, title), el("p", { class: "warn" }, "this trace predates v4: its request was stored as JSON with image data left out, so this is not the exact bytes sent"),
        el("pre", { class: "msg-text" }, JSON.stringify(c.whole, null, 1)));
    }
    var parts, body;
    try { parts = book.parts(n); body = book.body(n); } catch (e) {
      return el("div", { class: "request", "data-request": n }, el("h4", null, title), el("p", { class: "warn", "data-request-error": "1" }, "cannot rebuild this request: " + e.message));
    }
    var head; try { head = JSON.parse(parts.head); } catch (e) { head = parts.head; }
    var raw = el("pre", { class: "raw-body", "data-request-body": n });
    var details = el("details", { class: "raw", ontoggle: function () { if (details.open && !raw.firstChild) raw.textContent = body; } },
      el("summary", null, "exact request body (" + utf8(body).length.toLocaleString() + " bytes, as `epi trace export --call " + n + "` writes it)"), raw);
    return el("div", { class: "request" + (c.error ? " failed-call" : ""), "data-request": n },
      el("h4", null, title, el("span", { class: "muted small" }, " · " + parts.messages.length + " messages"), shaCheck(body, c.sha256)),
      c.error ? el("p", { class: "warn", "data-failed-call": n }, "the provider answered with an error (a failed attempt, not counted as a model call): " + c.error) : null,
      parts.messages.map(messageView),
      el("details", null, el("summary", null, "other fields (model, tools, sampling)"), el("pre", { class: "msg-extra" }, typeof head === "string" ? head : JSON.stringify(head, null, 1))),
      details);
  }
  function callTable(book, j, id, k, q) {
    return el("table", { class: "episodes calls", "data-calls": j },
      el("thead", null, el("tr", null, ["call", "turn", "step", "purpose", "messages", "new parts", "tokens in / out", "latency s", "result"].map(function (h) { return el("th", null, h); }))),
      el("tbody", null, book.src.calls.map(function (c) {
        var n = book.count(c.n), sel = String(q.src || 0) === String(j) && String(q.call) === String(c.n);
        return el("tr", { class: (c.error ? "failed" : "") + (sel ? " selected" : ""), "data-call-row": c.n, "data-failed-call": c.error ? c.n : null },
          el("td", null, el("a", { href: episodeHash(id, k, null, { tab: "messages", src: j || "", call: c.n }) }, "#" + c.n)),
          el("td", { class: "num" }, c.turn), el("td", { class: "num" }, c.step), el("td", null, c.purpose),
          el("td", { class: "num" }, n === null ? (c.whole ? "stored whole" : "?") : n), el("td", { class: "num" }, c.messages.length),
          el("td", { class: "num" }, c.input_tokens + " / " + c.output_tokens), el("td", { class: "num" }, fmt(c.latency_s, 2)),
          el("td", null, c.error ? el("span", { class: "badge bad", title: c.error }, "failed: " + c.error.slice(0, 80)) : el("span", { class: "badge ok" }, "answered")));
      })));
  }
  function messagesTab(data, id, k, q) {
    if (!data.sources.length) return el("p", { class: "muted" }, "no trace: the episode did not start in this run");
    var out = [];
    data.sources.forEach(function (src, j) {
      var book = bookOf(k, id, j, src), failed = src.calls.filter(function (c) { return c.error; }).length;
      out.push(el("section", { class: "card source" + (src.attempt ? " attempt" : ""), "data-source": j, "data-attempt-source": src.attempt || null },
        el("h3", null, src.label, el("span", { class: "muted small" }, " · status " + src.status + " · " + src.calls.length + " request" + (src.calls.length === 1 ? "" : "s") +
          (failed ? " (" + failed + " answered with an error)" : ""))),
        src.attempt ? el("p", { class: "warn" }, "an earlier attempt at this episode that failed; epi retry set it aside and ran the episode again") : null,
        src.notes.map(function (n) { return el("p", { class: "warn" }, n); }),
        src.calls.length ? callTable(book, j, id, k, q) : el("p", { class: "muted" }, "no model requests in this trace"),
        String(q.src || 0) === String(j) && q.call && book.byN[+q.call] ? requestView(book, +q.call) : null));
    });
    if (!q.call) out.splice(1, 0, el("p", { class: "muted" }, "pick a call to see the exact request it sent, rebuilt from the parts the trace stores"));
    return out;
  }

  function episodePage(id, q) {
    var k = +(q.run || 0), vs = q.vs === undefined || q.vs === "" ? null : +q.vs;
    var box = el("div", { id: "episode" }, el("p", { class: "muted" }, "loading episode…"));
    var runs = [k].concat(vs !== null && vs !== k && INDEX.runs[vs] ? [vs] : []);
    var entries = runs.map(function (r) { return findEntry(r, id); });
    if (!lastList || lastList.run !== k) lastList = { run: k, ids: INDEX.runs[k] ? INDEX.runs[k].episodes.map(function (e) { return e.id; }) : [], hash: hashOf("/", { run: k || "" }) };
    var nav = el("div", { class: "epnav" }, el("a", { href: lastList ? lastList.hash : "#/" }, "← episode list"));
    if (lastList && lastList.run === k) {
      var i = lastList.ids.indexOf(id);
      var keep = q.tab === "messages" ? { tab: "messages" } : null;
      if (i > 0) append(nav, el("a", { href: episodeHash(lastList.ids[i - 1], k, vs, keep), id: "prev" }, "‹ previous"));
      if (i >= 0 && i < lastList.ids.length - 1) append(nav, el("a", { href: episodeHash(lastList.ids[i + 1], k, vs, keep), id: "next" }, "next ›"));
      if (i >= 0) append(nav, el("span", { class: "muted" }, (i + 1) + " of " + lastList.ids.length + " in the filtered list (keys j / k)"));
    }
    if (INDEX.runs.length > 1) {
      append(nav, el("label", null, "compare with ", el("select", { id: "vs", onchange: function (ev) { location.hash = episodeHash(id, k, ev.target.value); } },
        el("option", { value: "" }, "(none)"),
        INDEX.runs.map(function (r, j) { return j === k ? null : el("option", { value: j, selected: j === vs }, r.run_id); }))));
    }
    var tab = q.tab === "messages" ? "messages" : "timeline", entry = entries[0];
    append(nav, el("span", { class: "tabs" },
      el("a", { href: episodeHash(id, k, vs), class: tab === "timeline" ? "tab on" : "tab", id: "tab-timeline" }, "timeline"),
      el("a", { href: episodeHash(id, k, null, { tab: "messages" }), class: tab === "messages" ? "tab on" : "tab", id: "tab-messages" },
        "messages" + (entry && entry.requests ? " (" + entry.requests + ")" : ""))));
    if (tab === "messages") {
      Promise.all([entry ? loadEpisode(k, entry) : Promise.resolve(null), entry ? loadRequests(k, entry) : Promise.resolve(null)]).then(function (r) {
        box.textContent = "";
        if (!r[0]) { append(box, el("p", { class: "warn" }, "Episode " + id + " is not in this run.")); return; }
        append(box, [episodeHeader(r[0]), el("div", { id: "messages" }, messagesTab(r[1], id, k, q))]);
        var selected = box.querySelector("[data-request]");
        if (selected) selected.scrollIntoView({ block: "start" });
      }).catch(function (err) { box.textContent = ""; append(box, el("p", { class: "warn" }, String(err.message || err))); });
      return [el("h1", { class: "eptitle" }, id), nav, box];
    }
    Promise.all(entries.map(function (e, j) { return e ? loadEpisode(runs[j], e) : Promise.resolve(null); })).then(function (eps) {
      box.textContent = "";
      var present = eps.filter(Boolean);
      if (!present.length) { append(box, el("p", { class: "warn" }, "Episode " + id + " is not in this run.")); return; }
      var cols = eps.length;
      append(box, el("div", { class: "cols c" + cols }, eps.map(function (ep, j) {
        return ep ? episodeHeader(ep) : el("div", { class: "warn" }, "not in run " + INDEX.runs[runs[j]].run_id);
      })));
      var nTurns = Math.max.apply(null, present.map(function (ep) { return ep.turns.length; }));
      for (var t = 0; t < nTurns; t++) {
        append(box, el("div", { class: "cols c" + cols }, eps.map(function (ep) {
          return ep && ep.turns[t] ? turnBlock(ep.turns[t], ep.n_turns, ep) : el("div", { class: "muted" }, "—");
        })));
      }
    }, function (err) { box.textContent = ""; append(box, el("p", { class: "warn" }, String(err.message || err))); });
    return [el("h1", { class: "eptitle" }, id), nav, box];
  }

  function render() {
    var r = parseHash(), app = document.getElementById("app"), crumbs = document.getElementById("crumbs");
    app.textContent = ""; crumbs.textContent = "";
    var m = r.path.match(/^\/episode\/(.+)$/);
    if (m) {
      var id = decodeURIComponent(m[1]);
      append(crumbs, [el("a", { href: lastList ? lastList.hash : "#/" }, "runs"), " / ", id]);
      append(app, episodePage(id, r.q));
      window.scrollTo(0, 0);
    } else {
      append(crumbs, INDEX.runs.map(function (x) { return x.run_id; }).join(" vs "));
      append(app, overview(r.q));
    }
  }
  window.addEventListener("hashchange", render);
  // j / k walk the filtered episode list from an episode page (the keys of most log viewers)
  document.addEventListener("keydown", function (ev) {
    if (ev.target && /^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) return;
    var link = ev.key === "j" ? document.getElementById("next") : ev.key === "k" ? document.getElementById("prev") : null;
    if (link) { ev.preventDefault(); location.hash = link.getAttribute("href"); }
  });
  render();
})();
