/* The draughts diagram and the clocks' text, shared by the hall's live page (live.js) and the
   board's own page (boardctl/page/static/page.js). Plain JavaScript, no build step.

   A position is drawn from its pieces string: the dark squares 1..N in PDN order (from
   Black's side, row by row), one letter each: w/b men, W/B kings, "." empty. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";

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

  /* A square given as a number (PDN) or a name (algebraic) -> [column, row], or null. */
  function cellOf(sq, size) {
    if (typeof sq === "string" && !/^\d+$/.test(sq)) return algCell(sq, size);
    var n = Number(sq);
    return n >= 1 && n <= size * size / 2 ? cell(n, size) : null;
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

  /* The board's drawing: light and dark squares, a layer for highlighted squares, one for
     marks, one path per kind of piece; ``numbers``: each dark square's number in its corner,
     over the pieces (a man leaves the corner free) (10x10). */
  function diagram(size, numbers) {
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 " + size + " " + size);
    svg.setAttribute("class", "diagram");
    svg.setAttribute("role", "img");
    var nums = "";
    if (numbers) {
      for (var n = 1; n <= size * size / 2; n++) {
        var c = cell(n, size);
        nums += '<text x="' + (c[0] + 0.03) + '" y="' + (c[1] + 0.17) + '">' + n + "</text>";
      }
      nums = '<g class="num">' + nums + "</g>";
    }
    svg.innerHTML = '<rect class="light" width="' + size + '" height="' + size + '"/>' +
      '<path class="dark" d="' + darkPath(size) + '"/><path class="hl"/>' +
      '<g class="marks"></g>' +
      '<path class="man w"/><path class="man b"/><path class="k w"/><path class="k b"/>' + nums;
    return svg;
  }

  /* A circle as path data, so that each kind of piece is one path: cheap to redraw. */
  function disc(x, y, r) {
    return "M" + (x - r) + " " + y + "a" + r + " " + r + " 0 1 0 " + 2 * r + " 0a" + r + " " +
      r + " 0 1 0 " + -2 * r + " 0z";
  }

  /* The pieces ``sq`` on ``svg``, the squares ``hl`` (numbers or names) lit. */
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
      var c = cellOf(n, size);
      if (c) lit += "M" + c[0] + " " + c[1] + "h1v1h-1z";
    });
    svg.querySelector(".hl").setAttribute("d", lit);
    svg.querySelector(".man.w").setAttribute("d", d.w);
    svg.querySelector(".man.b").setAttribute("d", d.b);
    svg.querySelector(".k.w").setAttribute("d", d.W);
    svg.querySelector(".k.b").setAttribute("d", d.B);
    svg.setAttribute("aria-label", label);
  }

  window.Draughts = {
    NS: NS, clockText: clockText, cell: cell, algCell: algCell, cellOf: cellOf,
    sqName: sqName, diagram: diagram, disc: disc, drawPosition: drawPosition
  };
})();
