/* The live page of a hall: boards pushed by the relay over Server-Sent Events (/events).
   Plain JavaScript, no build step, nothing fetched from outside the relay. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var token = new URLSearchParams(location.search).get("token");
  var query = token ? "?token=" + encodeURIComponent(token) : "";
  var boards = {};          // name -> {el, view, got (performance.now() of the reading)}
  var grid = document.getElementById("boards");
  var statusEl = document.getElementById("status");
  var dialog = document.getElementById("detail");
  var open = null;          // the board shown in the dialog: {name, moves, start, at}
  var delay = 0;
  var seen = false;         // a first state came: until then the page is connecting
  var order = new Intl.Collator(undefined, { numeric: true });
  // What the tests and benchmarks read: seconds from the relay hearing a record to the DOM.
  var stats = window.liveStats = { n: 0, lat: [] };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* Clock text: H:MM:SS from an hour up, M:SS below (CONTRACT.md). */
  function clockText(sec) {
    var s = Math.max(0, Math.floor(sec + 1e-6));
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    var ss = (r < 10 ? "0" : "") + r;
    return h ? h + ":" + (m < 10 ? "0" : "") + m + ":" + ss : m + ":" + ss;
  }

  /* Square n (1..N, PDN order from Black's side) -> [column, row] on the drawing. */
  function cell(n, size) {
    var half = size / 2, row = Math.floor((n - 1) / half), k = (n - 1) % half;
    return [row % 2 === 0 ? 2 * k + 1 : 2 * k, row];
  }

  /* A sensor's square (algebraic from White's side, CONTRACT.md "Squares") -> [column, row]
     on the drawing, or null. */
  function algCell(sq, size) {
    var m = /^([a-j])(10|[1-9])$/.exec(String(sq));
    if (!m) return null;
    var col = m[1].charCodeAt(0) - 97, row = size - Number(m[2]);
    return col < size && row >= 0 ? [col, row] : null;
  }

  /* How the game's notation names that square: its number on 100 squares, else as sensed. */
  function sqName(sq, size) {
    var c = size === 10 && algCell(sq, size);
    return c ? String(c[1] * 5 + Math.floor(c[0] / 2) + 1) : String(sq);
  }

  var darkPaths = {};
  function darkPath(size) {
    if (!darkPaths[size]) {
      var d = "";
      for (var n = 1; n <= size * size / 2; n++) {
        var c = cell(n, size);
        d += "M" + c[0] + " " + c[1] + "h1v1h-1z";
      }
      darkPaths[size] = d;
    }
    return darkPaths[size];
  }

  function diagram(size) {
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + size + " " + size);
    svg.setAttribute("class", "diagram");
    svg.setAttribute("role", "img");
    svg.innerHTML = '<rect class="light" width="' + size + '" height="' + size + '"/>' +
      '<path class="dark" d="' + darkPath(size) + '"/><path class="hl"/>' +
      '<path class="man w"/><path class="man b"/><path class="k w"/><path class="k b"/>';
    return svg;
  }

  /* A circle as path data, so that each kind of piece is one path: cheap to redraw. */
  function disc(x, y, r) {
    return "M" + (x - r) + " " + y + "a" + r + " " + r + " 0 1 0 " + 2 * r + " 0a" + r + " " +
      r + " 0 1 0 " + -2 * r + " 0z";
  }

  function drawPosition(svg, size, sq, hl, label) {
    var d = { w: "", b: "", W: "", B: "" }, lit = "";
    for (var i = 0; i < sq.length; i++) {
      var p = sq.charAt(i);
      if (p === ".") continue;
      var c = cell(i + 1, size), x = c[0] + 0.5, y = c[1] + 0.5;
      d[p.toLowerCase()] += disc(x, y, 0.38);
      if (p === "W" || p === "B") d[p] += disc(x, y, 0.2);
    }
    (hl || []).forEach(function (n) {
      var c = typeof n === "string" ? algCell(n, size) :
        n >= 1 && n <= size * size / 2 ? cell(n, size) : null;
      if (c) lit += "M" + c[0] + " " + c[1] + "h1v1h-1z";
    });
    var paths = svg.getElementsByTagName("path");  // dark, hl, man w, man b, k w, k b
    paths[1].setAttribute("d", lit);
    paths[2].setAttribute("d", d.w);
    paths[3].setAttribute("d", d.b);
    paths[4].setAttribute("d", d.W);
    paths[5].setAttribute("d", d.B);
    svg.setAttribute("aria-label", label);
  }

  function player(side) {
    var d = el("div", "pl " + side);
    d.appendChild(el("span", "name"));
    var c = el("span", "clock");
    c.setAttribute("role", "timer");
    d.appendChild(c);
    return d;
  }

  function card(name) {
    var a = el("article", "board");
    a.dataset.board = name;
    a.tabIndex = 0;
    a.setAttribute("role", "button");
    var head = el("div", "head");
    head.appendChild(el("span", "no", "Board " + name));
    head.appendChild(el("span", "rd"));
    var badges = el("span", "badges");
    head.appendChild(badges);
    a.appendChild(head);
    a.appendChild(player("black"));
    a.appendChild(el("div", "svgbox"));
    a.appendChild(player("white"));
    var last = el("p", "last");
    last.appendChild(el("span", "num"));
    last.appendChild(el("span", "move"));
    a.appendChild(last);
    a.addEventListener("click", function () { show(name); });
    a.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(name); }
    });
    // Boards in natural order (2 before 10): a binary search among those drawn.
    var cards = grid.children, lo = 0, hi = cards.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (order.compare(cards[mid].dataset.board, name) < 0) lo = mid + 1; else hi = mid;
    }
    grid.insertBefore(a, cards[lo] || null);
    return a;
  }

  function moveLabel(m) {
    return Math.ceil(m.ply / 2) + (m.side === "white" ? ". " : "… ");
  }

  function badgeList(v) {
    var b = v.badges || {}, out = [];
    if (b.flag) out.push(["flag", b.flag === "?" ? "Flag fell" : "Flag: " + b.flag]);
    if (b.irregular) out.push(["irr", "Irregularity: " + b.irregular]);
    if (b.offline) out.push(["off", "Offline"]);
    if (b.paused) out.push(["pause", "Clocks paused"]);
    if (b.adjourned) out.push(["pause", "Adjourned"]);
    if (v.result) out.push(["res", v.result + (v.reason ? " (" + v.reason + ")" : "")]);
    return out;
  }

  function update(v) {
    var b = boards[v.board];
    if (!b) b = boards[v.board] = { el: card(v.board), size: 0 };
    b.view = v;
    b.got = performance.now();
    var a = b.el;
    if (b.size !== v.size) {
      var box = a.querySelector(".svgbox");
      box.textContent = "";
      b.svg = diagram(v.size);
      box.appendChild(b.svg);
      b.size = v.size;
    }
    a.dataset.fen = v.fen;
    a.querySelector(".rd").textContent = v.round ? "Round " + v.round : "";
    a.dataset.ply = v.ply;
    a.querySelector(".black .name").textContent = v.black || "Black";
    a.querySelector(".white .name").textContent = v.white || "White";
    a.setAttribute("aria-label", "Board " + v.board + ": " + (v.white || "White") + " against " +
      (v.black || "Black") + ". Open its moves.");
    drawPosition(b.svg, v.size, v.sq, v.last && v.last.hl, "Position " + v.fen);
    a.querySelector(".last .num").textContent = v.last ? moveLabel(v.last) : "";
    a.querySelector(".last .move").textContent = v.last ? v.last.move : "No move yet";
    var badges = a.querySelector(".badges"), list = badgeList(v);
    badges.textContent = "";
    list.forEach(function (x) { badges.appendChild(el("span", "badge " + x[0], x[1])); });
    a.classList.toggle("alert", !!(v.badges.flag || v.badges.irregular));
    tickBoard(b);
    if (open && open.name === v.board) refresh(false);
    document.getElementById("empty").hidden = true;
  }

  function tickBoard(b) {
    var c = b.view.clock;
    ["white", "black"].forEach(function (side) {
      var e = b.el.querySelector("." + side + " .clock");
      var text = "";
      if (c) {
        var t = c[side];
        if (c.running === side) t -= c.age + (performance.now() - b.got) / 1000;
        text = clockText(t);
      }
      if (e.textContent !== text) e.textContent = text;
      e.classList.toggle("running", !!c && c.running === side);
      e.setAttribute("aria-label", side + " clock " + text);
    });
  }

  setInterval(function () {
    for (var name in boards) {
      var c = boards[name].view.clock;
      if (c && c.running) tickBoard(boards[name]);
    }
  }, 200);

  /* -- the arbiter's log -- */
  function logEntry(e) {
    var list = document.getElementById("log-list");
    var li = el("li", "k-" + e.kind);
    var t = el("time", "", new Date(e.t * 1000).toLocaleTimeString([], { hour12: false }));
    t.dateTime = new Date(e.t * 1000).toISOString();
    li.appendChild(t);
    li.appendChild(document.createTextNode(" Board " + e.board + ": " + e.kind + " — " + e.text));
    list.insertBefore(li, list.firstChild);
    while (list.children.length > 500) list.removeChild(list.lastChild);
  }

  /* -- one board opened: its moves with clock times, stepping, PDN -- */
  function show(name) {
    open = { name: name, moves: [], at: -1, follow: true };
    deskShow(name);
    var rd = boards[name] && boards[name].view.round;
    document.getElementById("detail-title").textContent = "Board " + name + (rd ? ", round " + rd : "");
    document.getElementById("download").href = "/board/" + encodeURIComponent(name) + ".pdn" + query;
    document.getElementById("download").setAttribute("download", name + ".pdn");
    document.getElementById("d-svg").textContent = "";
    if (!dialog.open) dialog.showModal();
    refresh(true);
  }

  function refresh(first) {
    var want = open;
    fetch("/board/" + encodeURIComponent(want.name) + ".json" + query).then(function (r) {
      if (!r.ok) throw new Error("board " + want.name + ": " + r.status);
      return r.json();
    }).then(function (data) {
      if (open !== want) return;
      var follow = first || want.at === want.moves.length;
      want.moves = data.moves;
      want.start = data.start;
      want.view = data.board;
      if (follow) want.at = data.moves.length;
      renderMoves();
      step(want.at);
    }).catch(function (err) { statusEl.textContent = String(err.message || err); });
  }

  function renderMoves() {
    var body = document.getElementById("moves");
    body.textContent = "";
    var row = null;
    open.moves.forEach(function (m, i) {
      if (m.side === "white" || !row) {
        row = el("tr");
        row.appendChild(el("th", "", String(Math.ceil(m.ply / 2))));
        row.lastChild.scope = "row";
        row.appendChild(el("td"));
        row.appendChild(el("td"));
        body.appendChild(row);
      }
      var b = el("button", "mv");
      b.type = "button";
      b.dataset.index = String(i + 1);
      b.appendChild(el("span", "m", m.move));
      if (m.clock) {
        b.appendChild(document.createTextNode(" "));
        b.appendChild(el("span", "ct", clockText(m.clock[m.side === "white" ? 0 : 1])));
      }
      b.addEventListener("click", function () { step(i + 1); });
      row.children[m.side === "white" ? 1 : 2].appendChild(b);
    });
  }

  function step(i) {
    var o = open;
    if (!o) return;
    o.at = Math.max(0, Math.min(o.moves.length, i));
    var v = o.view, m = o.at ? o.moves[o.at - 1] : null;
    var box = document.getElementById("d-svg");
    if (!box.firstChild || o.size !== v.size) {
      box.textContent = "";
      box.appendChild(diagram(v.size));
      o.size = v.size;
    }
    var sq = m ? m.sq : o.start.sq;
    drawPosition(box.firstChild, v.size, sq, m && m.hl, "Position " + (m ? m.fen : o.start.fen));
    document.getElementById("d-at").textContent = m ? "Move " + moveLabel(m) + m.move : "Start";
    var clock = m && m.clock;
    document.getElementById("d-white").textContent = (v.white || "White") + (clock ? " " + clockText(clock[0]) : "");
    document.getElementById("d-black").textContent = (v.black || "Black") + (clock ? " " + clockText(clock[1]) : "");
    Array.prototype.forEach.call(document.querySelectorAll("#moves .mv"), function (b) {
      var on = Number(b.dataset.index) === o.at;
      b.classList.toggle("on", on);
      if (on) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current");
    });
  }

  function nav(id, f) { document.getElementById(id).addEventListener("click", function () { step(f()); }); }
  nav("first", function () { return 0; });
  nav("prev", function () { return open.at - 1; });
  nav("next", function () { return open.at + 1; });
  nav("last", function () { return open.moves.length; });
  dialog.addEventListener("keydown", function (e) {
    if (e.key === "ArrowLeft") step(open.at - 1);
    else if (e.key === "ArrowRight") step(open.at + 1);
  });
  document.getElementById("close").addEventListener("click", function () { dialog.close(); });
  dialog.addEventListener("close", function () { open = null; });

  /* -- the arbiter's desk: acts on a board through the relay (POST /arbiter/BOARD), each after
     a confirmation; the token goes in the Authorization header, never in a cookie. -- */
  var arbiter = false;
  var RESULTS = { 10: ["2-0", "1-1", "0-2", "0-0"], 8: ["1-0", "1/2-1/2", "0-1", "0-0"] };

  function desk(name, body) {
    return fetch("/arbiter/" + encodeURIComponent(name), {
      method: "POST", cache: "no-store", credentials: "omit",
      headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (r.status !== 200) return { ok: false, error: j.error || "HTTP " + r.status, status: r.status };
        return j;
      });
    }, function (err) { return { ok: false, error: String(err.message || err) }; });
  }

  function confirmAct(text, then) {
    var box = document.getElementById("confirm");
    document.getElementById("confirm-text").textContent = text;
    box.onclose = null;
    document.getElementById("confirm-yes").onclick = function () { box.close(); then(); };
    document.getElementById("confirm-no").onclick = function () { box.close(); };
    box.showModal();
    document.getElementById("confirm-no").focus();
  }

  function seconds(text) {
    var parts = String(text).trim().split(":"), total = 0;
    if (!parts.length || parts.length > 3) return NaN;
    for (var i = 0; i < parts.length; i++) {
      if (!/^\d+(\.\d+)?$/.test(parts[i])) return NaN;
      total = total * 60 + Number(parts[i]);
    }
    return total;
  }

  function val(id) { return document.getElementById(id).value; }

  /* What each button asks of the board: [request, the question] (null: input missing). */
  function request(act, name) {
    var on = " on board " + name + "?";
    switch (act) {
      case "start": return [{ cmd: "start" }, "Start the clocks" + on];
      case "pause": return [{ cmd: "pause" }, "Pause the clocks" + on];
      case "resume": return [{ cmd: "resume" }, "Resume the clocks" + on];
      case "accept": return [{ cmd: "accept" }, "Accept the position on the board as it stands" + on];
      case "clock-set":
        var t = seconds(val("clock-time"));
        if (!(t >= 0)) return null;
        return [{ cmd: "clock-set", side: val("clock-side"), seconds: t },
          "Set " + val("clock-side") + "'s clock to " + clockText(t) + on];
      case "moves-set":
        var n = Number(val("moves-count"));
        if (val("moves-count") === "" || !(n >= 0)) return null;
        return [{ cmd: "moves-set", side: val("moves-side"), moves: n },
          "Count " + n + " moves made by " + val("moves-side") + on];
      case "adjourn":
        if (!val("sealed").trim()) return null;
        return [{ cmd: "adjourn", sealed: val("sealed").trim() }, "Adjourn the game" + on];
      case "result":
        var body = { cmd: "result", result: val("result") };
        if (val("reason")) body.reason = val("reason");
        return [body, "Enter the result " + body.result + (body.reason ? " (" + body.reason + ")" : "") + on];
      case "takeback":
        var k = Number(val("takeback-plies"));
        if (!(k >= 1)) return null;
        return [{ cmd: "takeback", plies: k }, "Take back " + k + " ply" + (k === 1 ? "" : "s") + on];
    }
    return null;
  }

  function deskShow(name) {
    var box = document.getElementById("desk");
    box.hidden = !(arbiter && token);
    if (box.hidden) return;
    document.getElementById("desk-out").textContent = "";
    document.getElementById("tl-list").textContent = "";
    document.getElementById("tl-steps").hidden = true;
    var v = boards[name] && boards[name].view, sel = document.getElementById("result");
    sel.textContent = "";
    (RESULTS[v && v.size === 8 ? 8 : 10]).forEach(function (r) { sel.appendChild(el("option", "", r)); });
    document.getElementById("tl-ply").value = v && v.ply ? v.ply : 1;
  }

  Array.prototype.forEach.call(document.querySelectorAll("#desk .act"), function (b) {
    b.addEventListener("click", function () {
      var name = open && open.name, out = document.getElementById("desk-out");
      if (!name) return;
      var ask = request(b.dataset.act, name);
      if (!ask) { out.textContent = "Fill in the value first."; return; }
      confirmAct(ask[1], function () {
        out.textContent = "Sent to board " + name + "…";
        desk(name, ask[0]).then(function (j) {
          // a 504: the board did not answer in time, and may have acted all the same
          out.textContent = j.ok ? "Board " + name + ": done" + (j.warning ? " (" + j.warning + ")" : "") :
            "Board " + name + (j.status === 504 ? " did not answer: " : " refused: ") + j.error;
          out.classList.toggle("bad", !j.ok);
          out.dataset.ok = j.ok ? "1" : "0";
          if (j.ok && open && open.name === name) refresh(false);
        });
      });
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll("#hallbar .act"), function (b) {
    b.addEventListener("click", function () {
      var cmd = b.dataset.act === "pause-all" ? "pause" : "resume";
      var names = Object.keys(boards).sort(order.compare);
      var out = document.getElementById("hall-out");
      confirmAct((cmd === "pause" ? "Pause" : "Resume") + " the clocks on every board (" +
        names.length + ")?", function () {
        out.textContent = "Sent to " + names.length + " boards…";
        Promise.all(names.map(function (n) { return desk(n, { cmd: cmd }); })).then(function (all) {
          var bad = names.filter(function (n, i) { return !all[i].ok; });
          out.textContent = (names.length - bad.length) + " of " + names.length + " boards " +
            (cmd === "pause" ? "paused" : "resumed") + (bad.length ? "; not: " + bad.join(", ") : "");
          out.dataset.ok = bad.length ? "0" : "1";
        });
      });
    });
  });

  /* -- the dispute view: the sensor events that led to a ply, stepped through -- */
  function eventText(e) {
    var size = open && open.view ? open.view.size : 10;
    if (e.type === "lift" || e.type === "place") return e.type + " " + sqName(e.square, size);
    if (e.type === "press") return "press " + (e.side || "");
    if (e.type === "board") return "board: " + (e.record.type || "") + (e.record.kind ? " " + e.record.kind : "");
    if (e.type === "clock-set") return "clock-set " + e.side + " " + clockText(e.seconds);
    return e.type;
  }

  function tlStep(i) {
    var o = open, tl = o && o.timeline;
    if (!tl || !tl.events.length) return;
    tl.at = Math.max(0, Math.min(tl.events.length - 1, i));
    var e = tl.events[tl.at], t0 = tl.events[0].t;
    document.getElementById("tl-at").textContent = (tl.at + 1) + "/" + tl.events.length + ": " +
      eventText(e) + " at +" + (e.t - t0).toFixed(2) + " s";
    Array.prototype.forEach.call(document.querySelectorAll("#tl-list li"), function (li, k) {
      li.classList.toggle("on", k === tl.at);
      if (k === tl.at) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    });
    var before = tl.ply >= 2 && o.moves[tl.ply - 2], box = document.getElementById("d-svg");
    if (box.firstChild && o.view) {
      drawPosition(box.firstChild, o.view.size, before ? before.sq : o.start.sq,
        e.square ? [e.square] : [], "Position before ply " + tl.ply + ", " + eventText(e));
    }
  }

  document.getElementById("tl-show").addEventListener("click", function () {
    var name = open && open.name, ply = Number(val("tl-ply"));
    if (!name || !(ply >= 1)) return;
    var list = document.getElementById("tl-list");
    list.textContent = "";
    document.getElementById("tl-at").textContent = "Asking board " + name + "…";
    document.getElementById("tl-steps").hidden = false;
    desk(name, { cmd: "timeline", ply: ply }).then(function (j) {
      if (!open || open.name !== name) return;
      if (!j.ok) { document.getElementById("tl-at").textContent = "Board " + name + ": " + j.error; return; }
      open.timeline = { ply: ply, events: j.events || [], at: 0 };
      var t0 = j.events.length ? j.events[0].t : 0;
      j.events.forEach(function (e, k) {
        var li = el("li", "ev-" + e.type, "+" + (e.t - t0).toFixed(2) + " s " + eventText(e));
        li.dataset.type = e.type;
        li.addEventListener("click", function () { tlStep(k); });
        list.appendChild(li);
      });
      if (j.move) list.appendChild(el("li", "made", "ply " + j.move.ply + ": " + j.move.move));
      if (!j.events.length) document.getElementById("tl-at").textContent = "No sensor events recorded";
      else tlStep(0);
    });
  });
  function tlNav(id, f) {
    document.getElementById(id).addEventListener("click", function () {
      if (open && open.timeline) tlStep(f(open.timeline));
    });
  }
  tlNav("tl-first", function () { return 0; });
  tlNav("tl-prev", function (tl) { return tl.at - 1; });
  tlNav("tl-next", function (tl) { return tl.at + 1; });
  tlNav("tl-last", function (tl) { return tl.events.length - 1; });

  /* -- the stream -- */
  function setStatus(live) {
    var what = token ? "Arbiter view: live, not delayed" :
      delay ? "Delayed by " + Math.round(delay / 60) + " min" : "Live";
    statusEl.textContent = live ? what : seen ? "Reconnecting…" : "Connecting…";
    statusEl.classList.toggle("down", !live);
  }

  function onState(e) {
    var t0 = performance.now();
    var s = JSON.parse(e.data);
    delay = s.delay;
    if (s.title) {
      document.getElementById("title").textContent = s.title;
      document.title = s.title + " — live";
    }
    var keep = {};
    s.boards.forEach(function (v) { keep[v.board] = true; });
    Object.keys(boards).forEach(function (n) {
      if (!keep[n]) { boards[n].el.remove(); delete boards[n]; }
    });
    s.boards.forEach(update);
    var empty = document.getElementById("empty");
    empty.textContent = "No game has started yet.";
    empty.hidden = s.boards.length > 0;
    seen = true;
    if (s.arbiter) {
      arbiter = true;
      document.getElementById("hallbar").hidden = !token;
      document.getElementById("log").hidden = false;
      document.getElementById("log-list").textContent = "";
      (s.log || []).forEach(logEntry);
    }
    setStatus(true);
    stats.stateMs = performance.now() - t0;
    stats.stateAt = performance.now();
  }

  var source = new EventSource("/events" + query);
  source.addEventListener("state", onState);
  source.addEventListener("board", function (e) {
    var v = JSON.parse(e.data);
    update(v);
    stats.n++;
    stats.lat.push(Date.now() / 1000 - v.ts);
    if (stats.lat.length > 5000) stats.lat.shift();
  });
  source.addEventListener("log", function (e) { logEntry(JSON.parse(e.data)); });
  source.addEventListener("open", function () { if (seen) setStatus(true); });  // live once a state came
  source.addEventListener("error", function () { setStatus(false); });
})();
