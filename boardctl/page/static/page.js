/* The board's own page (docs/PAGE.md): the game live (pushed by the service over Server-Sent
   Events, /api/events), the next game's settings (POST /api/new), the games the board holds
   (/api/games). Plain JavaScript, no build step, nothing fetched from anywhere but the board;
   the diagram and the clocks' text are the live page's (draughts.js). */
(function () {
  "use strict";
  var D = window.Draughts;
  var state = null;          // the last state from the board
  var got = 0;               // performance.now() when it came
  var options = null;        // /api/options: rule sets, presets, levels, password
  var filled = null;         // the game whose settings the form was filled from
  var live = null;           // the EventSource
  var replay = null;         // the game stepped through: {game, at}
  // What the tests and benchmarks read: each position shown, and when.
  var stats = window.pageStats = { n: 0, shown: [], lat: [] };
  var LED_SAID = {
    "restore": "put a piece back on ", "remove": "take the piece off ",
    "must-move": "this piece must move: ", "wrong": "no piece may stand on ",
    "land": "land on "
  };

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function side(s) { return s === "white" ? "White" : "Black"; }
  function say(id, text, bad) {
    var e = $(id);
    e.textContent = text || "";
    e.classList.toggle("bad", !!bad);
  }

  /* A request to the board: resolves to {status, body} (body: JSON or null). */
  function api(method, path, body) {
    var init = { method: method, cache: "no-store", credentials: "same-origin", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (j) {
        if (r.status === 401) needSignIn(j && j.error);
        return { status: r.status, body: j };
      });
    }, function (err) { return { status: 0, body: { error: String(err.message || err) } }; });
  }
  function failed(r) {
    return (r.body && r.body.error) || (r.status ? "HTTP " + r.status : "the board is not reachable");
  }

  /* -- sections -- */
  function showView() {
    var name = (location.hash || "#game").slice(1);
    if (["game", "new", "games"].indexOf(name) < 0) name = "game";
    ["game", "new", "games"].forEach(function (v) {
      $("v-" + v).hidden = v !== name;
      $("tab-" + v).classList.toggle("on", v === name);
      if (v === name) $("tab-" + v).setAttribute("aria-current", "page");
      else $("tab-" + v).removeAttribute("aria-current");
    });
    if (name === "games") loadGames();
    window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", showView);

  /* -- signing in -- */
  function needSignIn(why) {
    $("signin").hidden = false;
    if (why) $("signin-why").textContent = why;
  }
  $("signin-form").addEventListener("submit", function (e) {
    e.preventDefault();
    api("POST", "/api/login", { password: $("password").value }).then(function (r) {
      if (r.status !== 200) { say("signin-out", failed(r), true); return; }
      $("password").value = "";
      $("signin").hidden = true;
      say("signin-out", "");
      start();
    });
  });

  /* -- the diagram -- */
  function board(box, size) {
    if (!box.firstChild || box.dataset.size !== String(size)) {
      box.textContent = "";
      box.appendChild(D.diagram(size, size === 10));
      box.dataset.size = String(size);
    }
    return box.firstChild;
  }

  /* The LEDs' squares and the move to carry out, drawn over the position. */
  function marks(svg, size, leds, move) {
    var g = svg.querySelector(".marks"), html = "";
    function square(sq, cls) {
      var c = D.cellOf(sq, size);
      if (c) html += '<rect class="' + cls + '" x="' + (c[0] + 0.06) + '" y="' + (c[1] + 0.06) +
        '" width=".88" height=".88" rx=".08"/>';
    }
    Object.keys(leds || {}).forEach(function (sq) {
      if (leds[sq] !== "last-move") square(sq, "led " + leds[sq]);
    });
    if (move) {
      (move.route || []).forEach(function (sq, i, all) {
        square(sq, i === 0 || i === all.length - 1 ? "go end" : "go");
      });
      (move.captured || []).forEach(function (sq) { square(sq, "go off"); });
    }
    g.innerHTML = html;
  }

  /* -- the game live -- */
  function clocks() {
    var c = state && state.clock;
    ["white", "black"].forEach(function (s) {
      var e = $("pl-" + s).querySelector(".clock");
      var ms = c && c[s];
      var text = "";
      if (typeof ms === "number") {
        var t = ms / 1000;
        if (c.running === s) t -= (performance.now() - got) / 1000;
        text = D.clockText(t);
        e.classList.toggle("low", t < 10);
      }
      if (e.textContent !== text) e.textContent = text;
      e.classList.toggle("running", !!c && c.running === s);
      e.setAttribute("aria-label", side(s) + "'s clock " + text);
    });
  }
  setInterval(function () { if (state && state.clock && state.clock.running) clocks(); }, 200);

  function opponentOf(s, who) {
    var o = s.opponent;
    return o && o.side === who ? o : null;
  }

  function players(s) {
    ["white", "black"].forEach(function (who) {
      var o = opponentOf(s, who), name = s[who] || side(who);
      if (o && o.kind === "engine") {  // its tag is the engine's own name (boardctl 0.1.0)
        name = "Computer" + (o.level ? " (level " + o.level + ")" : "") + (s[who] ? ": " + s[who] : "");
      } else if (o && !s[who]) name = o.name || o.kind;
      $("pl-" + who).querySelector(".name").textContent = name;
      $("pl-" + who).classList.toggle("turn", s.turn === who && !s.result);
    });
  }

  function said(s) {
    if (s.result) return "Game over: " + s.result + (s.reason ? " (" + s.reason + ")" : "");
    if (s.adjourned) return "The game is adjourned.";
    if (!s.started) return "Waiting for the start: set up the pieces and press the clock.";
    var running = s.clock && s.clock.running;
    if (s.clock && s.clock.white !== null && !running) return side(s.turn) + " to move; the clocks are stopped.";
    return side(s.turn) + " to move.";
  }

  function notice(kind, text) {
    var p = el("p", "notice " + kind, text);
    $("notices").appendChild(p);
  }

  function notices(s) {
    $("notices").textContent = "";
    var size = s.size, name = function (sq) { return D.sqName(sq, size); };
    var e = s.engine, r = s.remote;
    if (s.alarm) notice("alarm", "Alarm: " + s.alarm);
    if (e && e.move) notice("go", "The computer plays " + e.move.move + ": carry it out on the board.");
    else if (e && e.thinking) notice("info", "The computer is thinking…");
    if (r && r.move) notice("go", (r.source ? r.source + " plays " : "The other side plays ") + r.move + ": carry it out on the board.");
    if (e && e.hint) notice("info", "Hint: " + e.hint);
    if (e && e.error) notice("alarm", "Engine: " + e.error);
    if (s.irregularity) notice("alarm", "Irregularity: " + s.irregularity);
    if (e && e.irregularity) notice("alarm", "Not the computer's move on the board");
    var asks = Object.keys(s.leds || {}).filter(function (sq) { return LED_SAID[s.leds[sq]]; });
    if (asks.length) {
      notice("leds", "The LEDs ask: " + asks.sort().map(function (sq) {
        return LED_SAID[s.leds[sq]] + name(sq);
      }).join("; ") + ".");
    }
  }

  /* -- an opponent not at the board: lidraughts, another board -- */
  var REMOTE = { lidraughts: true, board: true };
  function remoteOpponent(s) {
    var o = s && s.opponent;
    return o && REMOTE[o.kind] ? o : null;
  }
  function opponentName(o) {
    return o.kind === "lidraughts" ? (o.name || "the opponent") : "Board " + (o.name || "?");
  }
  function linkNote(o) {
    if (o.kind === "board") {
      return o.link === "down" ? ["alarm", "Board " + (o.name || "?") + " is away — the board keeps refereeing until it is back."] : null;
    }
    if (o.link === "down") return ["alarm", "Link to lidraughts down — the board keeps refereeing; moves are sent when it is back."];
    if (o.link === "failed") return ["alarm", "The link to lidraughts failed: " + (o.reason || "refused") + ". The board plays on offline."];
    if (o.link === "connecting") return ["info", "Connecting to lidraughts…"];
    return null;
  }
  function opposite(s) {
    var o = remoteOpponent(s);
    $("opp").hidden = !o;
    if (!o) return;
    var name = o.kind === "lidraughts"
      ? (o.name ? "Opponent: " + o.name + " on lidraughts" : "lidraughts: no game yet (waiting for a challenge)")
      : "Opponent: board " + (o.name || "?");
    if (o.side && (o.kind === "board" || o.name)) name += " (" + side(o.side) + ")";
    $("opp-name").textContent = name;
    var note = linkNote(o);
    $("link-note").hidden = !note;
    if (note) {
      $("link-note").className = "notice " + note[0];
      $("link-note").textContent = note[1];
      $("link-note").title = o.reason || "";
    }
    var offer = o.draw_offer || {}, open = !s.result && (offer.theirs || offer.mine);
    $("offer").hidden = !open;
    if (!open) return;
    $("offer-text").textContent = offer.theirs ? opponentName(o) + " offers a draw."
      : "Draw offered" + (o.kind === "lidraughts" ? ": it goes with your next move." : ".");
    $("offer-accept").hidden = !offer.theirs;
    $("offer-decline").hidden = !(offer.theirs && o.kind === "board");
  }

  /* Moves in rows of a number, White's and Black's; ``black``: the first one is Black's. */
  function moveList(list, moves, black, at, onPick) {
    list.textContent = "";
    var number = 1;
    if (black && moves.length) {
      list.appendChild(el("li", "n", "1."));
      list.appendChild(el("li", "w"));
    }
    moves.forEach(function (m, i) {
      var white = (i % 2 === 0) !== !!black;
      if (white) list.appendChild(el("li", "n", (number) + "."));
      var li = el("li", white ? "w" : "b");
      var b = el("button", "mv", m);
      b.type = "button";
      if (i + 1 === at) { b.classList.add("on"); b.setAttribute("aria-current", "step"); }
      if (onPick) b.addEventListener("click", function () { onPick(i + 1); });
      else b.tabIndex = -1;
      li.appendChild(b);
      list.appendChild(li);
      if (!white) number++;
    });
  }

  /* Whether a game's first move is Black's: the side to move now, back over its moves. */
  function blackFirst(turn, plies) {
    return (turn === "black") === (plies % 2 === 0);
  }

  function render(s) {
    var first = !state || state.game !== s.game;
    state = s;
    got = performance.now();
    var game = $("v-game");
    game.dataset.fen = s.fen;
    game.dataset.ply = String(s.ply);
    game.dataset.game = s.game;
    if (s.board) { $("title").textContent = "Board " + s.board; document.title = "Board " + s.board; }
    var svg = board($("board"), s.size);
    D.drawPosition(svg, s.size, s.sq, s.last && s.last.hl, "Position " + s.fen);
    marks(svg, s.size, s.leds, (s.engine && s.engine.move) || s.remote);
    players(s);
    clocks();
    $("said").textContent = said(s);
    notices(s);
    opposite(s);
    var o = s.opponent, engine = !!o && o.kind === "engine", person = remoteOpponent(s);
    $("acts").hidden = !((engine || (person && person.playing && s.started)) && !s.result);
    $("hint").hidden = !engine;
    moveList($("moves"), s.moves, blackFirst(s.turn, s.moves.length), s.moves.length, null);
    var last = $("moves").lastChild;
    if (last) last.scrollIntoView({ block: "nearest" });
    if (first || filled === null) fill(s);
    stats.n++;
    stats.shown.push({ ply: s.ply, fen: s.fen, at: Date.now() });
    if (stats.shown.length > 2000) stats.shown.shift();
    if (s.ts) stats.lat.push(Date.now() / 1000 - s.ts);
  }

  function start() {
    if (live) live.close();
    api("GET", "/api/options").then(function (r) {
      if (r.status !== 200) { say("status", failed(r), true); return; }
      options = r.body;
      setUp(options);
      if (!options.read_open && !options.signed_in) { needSignIn(); say("status", "Signed out"); return; }
      live = new EventSource("/api/events");
      live.addEventListener("state", function (e) { render(JSON.parse(e.data)); say("status", "Live"); });
      live.addEventListener("open", function () { say("status", "Live"); });
      live.addEventListener("error", function () { say("status", state ? "Reconnecting…" : "Connecting…", true); });
    });
  }

  /* -- the person's acts against the engine or an opponent not at the board: hint (the
     engine's only), draw, resign -- */
  function ask(text) {
    return new Promise(function (done) {
      var box = $("confirm");
      $("confirm-text").textContent = text;
      $("confirm-yes").onclick = function () { box.close(); done(true); };
      $("confirm-no").onclick = function () { box.close(); done(false); };
      box.oncancel = function () { done(false); };
      box.showModal();
      $("confirm-no").focus();
    });
  }
  function act(cmd, question, done) {
    (question ? ask(question) : Promise.resolve(true)).then(function (yes) {
      if (!yes) return;
      api("POST", "/api/" + cmd, {}).then(function (r) {
        say("act-out", r.status === 200 ? done(r.body) : failed(r), r.status !== 200);
      });
    });
  }
  $("hint").addEventListener("click", function () {
    act("hint", null, function () { return "Hint asked: the LEDs show it when the computer has it."; });
  });
  function drawAnswer(b) {
    if (b && b.draw === "accepted") return "Draw agreed.";
    var o = remoteOpponent(state);
    return o && o.kind === "lidraughts" ? "Draw offered: it goes with your next move." : "Draw offered.";
  }
  $("draw").addEventListener("click", function () {
    var o = remoteOpponent(state);
    if (o) {
      act("offer-draw", (o.draw_offer && o.draw_offer.theirs ? "Accept the draw " + opponentName(o) + " offers?"
        : "Offer " + opponentName(o) + " a draw?"), drawAnswer);
      return;
    }
    act("offer-draw", "Offer the computer a draw?", function (b) {
      return b && b.draw === "accepted" ? "The computer accepts: a draw." : "The computer declines the draw.";
    });
  });
  $("offer-accept").addEventListener("click", function () {
    act("offer-draw", "Accept the draw?", drawAnswer);
  });
  $("offer-decline").addEventListener("click", function () {
    act("decline-draw", null, function () { return "You declined the draw."; });
  });
  $("resign").addEventListener("click", function () {
    act("resign", "Resign this game?", function () { return "You resigned."; });
  });

  /* -- the next game's settings -- */
  function option(select, value, text) {
    var o = el("option", "", text);
    o.value = value;
    select.appendChild(o);
  }
  function setUp(o) {
    $("rules").textContent = "";
    o.rules.forEach(function (n) { option($("rules"), n, n); });
    $("tc").textContent = "";
    option($("tc"), "", "No clock");
    o.presets.forEach(function (p) { option($("tc"), p.name, p.description + " (" + p.control + ")"); });
    option($("tc"), "own", "Other (type it)…");
    $("level").textContent = "";
    o.levels.forEach(function (l) { option($("level"), l.level, l.level + (l.name ? " – " + l.name : "")); });
    $("open-note").hidden = o.password;
    filled = null;
  }
  function presetSource() {
    var name = $("tc").value, p = options && options.presets.filter(function (x) { return x.name === name; })[0];
    $("tc-own").hidden = name !== "own";
    $("tc-source").textContent = p ? "Source: " + p.source : "";
  }
  $("tc").addEventListener("change", presetSource);
  function levelShown() {
    $("level").disabled = document.querySelector('input[name="engine"]:checked').value === "off";
  }
  Array.prototype.forEach.call(document.querySelectorAll('input[name="engine"]'), function (r) {
    r.addEventListener("change", levelShown);
  });

  /* The form shows the game in play's settings (the usual next game is the same again). */
  function fill(s) {
    if (!options) return;
    filled = s.game;
    $("rules").value = s.rules;
    var tc = s.time_control || "";
    var known = options.presets.some(function (p) { return p.name === tc; });
    $("tc").value = !tc ? "" : known ? tc : "own";
    $("tc-own").value = known ? "" : tc;
    presetSource();
    var o = s.opponent && s.opponent.kind === "engine" ? s.opponent : null;
    document.querySelector('input[name="engine"][value="' + (o ? o.side : "off") + '"]').checked = true;
    $("level").value = o && o.level ? String(o.level) : "10";
    levelShown();
    $("white").value = s.white || "";
    $("black").value = s.black || "";
  }

  function newGame() {
    var body = { rules: $("rules").value, white: $("white").value, black: $("black").value };
    var tc = $("tc").value;
    body.time_control = tc === "own" ? ($("tc-own").value.trim() || null) : (tc || null);
    if ($("fen").value.trim()) body.fen = $("fen").value.trim();
    var choice = document.querySelector('input[name="engine"]:checked').value;
    var now = state && state.opponent && state.opponent.kind === "engine" ? state.opponent : null;
    if (choice === "off" && now) body.engine = null;
    if (choice !== "off") {
      body.engine = "builtin";
      body.engine_side = choice;
      body.engine_level = $("level").value;
    }
    return body;
  }

  $("new-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var body = newGame();
    var inPlay = state && state.ply > 0 && !state.result;
    (inPlay ? ask("A game is in play (ply " + state.ply + "). Start a new one all the same? " +
      "The game in play is kept in the games list.") : Promise.resolve(true)).then(function (yes) {
      if (!yes) return;
      if (inPlay) body.force = true;
      say("new-out", "Setting up…");
      api("POST", "/api/new", body).then(function (r) {
        if (r.status !== 200) { say("new-out", failed(r), true); return; }
        say("new-out", "A new game is set up: put the pieces on their squares, then press the clock to start.");
        filled = null;
        render(r.body);
        location.hash = "#game";
      });
    });
  });

  /* -- the games the board holds -- */
  function when(iso) {
    var d = new Date(iso);
    return isNaN(d) ? "" : d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  }
  function loadGames() {
    api("GET", "/api/games").then(function (r) {
      if (r.status !== 200) return;
      var list = $("game-list");
      list.textContent = "";
      $("games-empty").hidden = r.body.length > 0;
      r.body.forEach(function (g) {
        var li = el("li", "game");
        var b = el("button", "pick");
        b.type = "button";
        b.dataset.id = g.id;
        b.appendChild(el("span", "who", (g.white || "White") + " – " + (g.black || "Black")));
        b.appendChild(el("span", "res", g.current && !g.result ? "in play" : (g.result || "*")));
        b.appendChild(el("span", "meta", when(g.started) + " · " + g.plies + " plies · " + (g.rules || "")));
        b.addEventListener("click", function () { openGame(g.id); });
        li.appendChild(b);
        list.appendChild(li);
      });
    });
  }

  function openGame(id) {
    api("GET", "/api/games/" + encodeURIComponent(id) + ".json").then(function (r) {
      if (r.status !== 200) return;
      replay = { game: r.body, at: r.body.moves.length };
      $("replay").hidden = false;
      $("replay").dataset.game = id;
      $("replay-title").textContent = (r.body.white || "White") + " – " + (r.body.black || "Black") + (r.body.result ? ", " + r.body.result : "");
      $("r-pdn").href = "/api/games/" + encodeURIComponent(id) + ".pdn";
      $("r-pdn").setAttribute("download", id + ".pdn");
      step(replay.at);
      $("replay").scrollIntoView({ block: "start" });
    });
  }

  function step(i) {
    if (!replay) return;
    var g = replay.game;
    replay.at = Math.max(0, Math.min(g.moves.length, i));
    var m = replay.at ? g.moves[replay.at - 1] : null;
    var svg = board($("r-board"), g.size);
    D.drawPosition(svg, g.size, m ? m.sq : g.start.sq, m && m.hl, "Position " + (m ? m.fen : g.start.fen));
    marks(svg, g.size, {}, null);
    $("replay").dataset.fen = m ? m.fen : g.start.fen;
    $("replay").dataset.at = String(replay.at);
    $("r-at").textContent = m ? "Move " + Math.ceil(m.ply / 2) + (m.side === "white" ? ". " : "… ") + m.move : "Start";
    var c = m && m.clock;
    $("r-white").textContent = (g.white || "White") + (c && c[0] !== null ? " " + D.clockText(c[0]) : "");
    $("r-black").textContent = (g.black || "Black") + (c && c[1] !== null ? " " + D.clockText(c[1]) : "");
    moveList($("r-moves"), g.moves.map(function (x) { return x.move; }),
      g.moves.length > 0 && g.moves[0].side === "black", replay.at, step);
  }
  function nav(id, f) { $(id).addEventListener("click", function () { if (replay) step(f()); }); }
  nav("r-first", function () { return 0; });
  nav("r-prev", function () { return replay.at - 1; });
  nav("r-next", function () { return replay.at + 1; });
  nav("r-last", function () { return replay.game.moves.length; });
  $("replay").addEventListener("keydown", function (e) {
    if (e.key === "ArrowLeft") step(replay.at - 1);
    else if (e.key === "ArrowRight") step(replay.at + 1);
  });

  showView();
  start();
})();
