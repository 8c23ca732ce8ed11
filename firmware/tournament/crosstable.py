"""The crosstable as CSV and as an HTML page: pure functions of a Crosstable.

Rows are the players in the order of their draw numbers, one column per opponent's number, as
the tournament tables of seed 004 are kept; each cell holds the row player's marks against that
opponent in round order (§37: 1, ½, 0, and + / - for games not played), ``×`` on the diagonal.
Points, Sonneborn-Berger (the tie-break, see :mod:`firmware.tournament.scoring`) and the place
follow.
"""

from __future__ import annotations

import csv
import html
import io
from fractions import Fraction

from firmware.tournament.results import format_points, symbol
from firmware.tournament.scoring import Crosstable, Standing
from firmware.tournament.state import Tournament

DIAGONAL = "×"


def _cell(row: Standing, column: Standing) -> str:
    if row is column:
        return DIAGONAL
    marks = [symbol(c.points, c.played) for c in sorted(row.cells, key=lambda c: c.round)
             if c.opponent == column.name and c.points is not None]
    return "".join(marks)


def _decimal(value: Fraction) -> str:
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    return text or "0"


def _header(table: Crosstable) -> list[str]:
    return ["No", "Name", "Rating", "Club"] + [str(s.number) for s in table.standings] + [
        "Points", "SB", "Place"]


def _row(t: Tournament, table: Crosstable, s: Standing) -> list[str]:
    p = t.player(s.name)
    return [str(s.number), s.name, "" if p.rating is None else str(p.rating), p.club or ""] + [
        _cell(s, other) for other in table.standings]


def render_csv(t: Tournament, table: Crosstable) -> str:
    """The crosstable as CSV (UTF-8 text, one header line; points and SB as decimals)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(_header(table))
    for s in table.standings:
        writer.writerow(_row(t, table, s) + [_decimal(s.points), _decimal(s.sonneborn_berger),
                                             s.place])
    return out.getvalue()


_STYLE = """body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}
th,td{border:1px solid #888;padding:.2em .4em;text-align:center}td.name{text-align:left}
td.x{background:#ccc}caption{font-weight:bold;margin:.5em}p.note{font-size:90%}"""


def render_html(t: Tournament, table: Crosstable) -> str:
    """The crosstable as a complete HTML page (no script, no external asset)."""
    e = html.escape
    title = t.event or "Crosstable"
    head = "".join(f"<th scope=col>{e(h)}</th>" for h in _header(table))
    rows = []
    for s in table.standings:
        cells = _row(t, table, s)
        tds = [f"<td>{e(cells[0])}</td>", f"<th scope=row class=name>{e(cells[1])}</th>",
               f"<td>{e(cells[2])}</td>", f"<td>{e(cells[3])}</td>"]
        tds += [f"<td class=x>{DIAGONAL}</td>" if c == DIAGONAL else f"<td>{e(c)}</td>"
                for c in cells[4:]]
        tds += [f"<td>{e(format_points(s.points))}</td>",
                f"<td>{e(_decimal(s.sonneborn_berger))}</td>", f"<td>{e(s.place)}</td>"]
        rows.append(f"<tr data-player=\"{e(s.name)}\">{''.join(tds)}</tr>")
    notes = []
    for s in table.standings:
        if s.withdrew_after is not None:
            notes.append(f"{e(s.name)} withdrew after round {s.withdrew_after}; the games not "
                         "played are scored to the opponents (1953 rules §38).")
    for name in table.annulled:
        notes.append(f"{e(name)} withdrew having played fewer than half of the games; those "
                     "games are annulled (1953 rules §38).")
    notes.append("Ties are broken by Sonneborn-Berger (SB), FIDE Handbook C.07; the 1953 rules "
                 "(Kabe. Võistlusmäärused) are silent on ties.")
    caption = " · ".join(x for x in (t.event, t.site, t.date) if x) or "Crosstable"
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content=\"width=device-width, initial-scale=1\">"
        f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>\n"
        f"<table><caption>{e(caption)}</caption><thead><tr>{head}</tr></thead><tbody>\n"
        + "\n".join(rows)
        + "\n</tbody></table>\n"
        + "".join(f"<p class=note>{n}</p>\n" for n in notes)
        + "</body></html>\n"
    )


def render_text(t: Tournament, table: Crosstable) -> str:
    """The crosstable for a terminal: fixed-width columns, the ranking's notes below."""
    header = _header(table)
    rows = [_row(t, table, s) + [format_points(s.points), _decimal(s.sonneborn_berger),
                                 s.place] for s in table.standings]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i in (1, 3) else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in [header, *rows]]
    lines += [f"annulled (1953 rules §38): {name}" for name in table.annulled]
    return "\n".join(lines) + "\n"
