"""Issue 31, item 5 (the relay's state): one game a game played (no empty game for a board
announced before its round's setup, read game for game by pydraughts), a feed without game
lines (``boardctl replay --format feed``) placed from its header's rule set at once, and a
result in its rule set's form only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.hall_helpers import write_log
from support.service_helpers import game_log
from test_relay_state import GAME, lines, move_records, real_moves

from boardctl.relay.state import RelayState
from firmware.formats.feed import decode_line, header_record
from firmware.pdn import read_games


def test_a_board_announced_before_its_setup_makes_one_game_not_two() -> None:
    state = RelayState()
    early = {**GAME, "game": "g0", "tags": {"Event": "?", "Round": "?"}}  # switched on
    setup = {**GAME, "game": "g1", "tags": {**GAME["tags"], "White": "Kask", "Black": "Tamm"}}
    records = [header_record("b1", "r", "international"), early, setup,
               *move_records("g1")[:4]]
    for line in lines(records):
        state.feed_line("b1", line)
    pdn = state.pdn()
    games = list(read_games(pdn, "relay"))
    assert len(games) == 1 and games[0].tags["White"] == "Kask"
    pdn_module = pytest.importorskip("draughts.PDN")
    assert len(pdn_module.PDNReader(pdn_text=pdn).games) == 1
    # a game with a move (or a result) is a game played: the next one does not drop it
    for line in lines([{**GAME, "game": "g2"}], start=len(records)):
        state.feed_line("b1", line)
    assert sorted(state.games) == ["g1", "g2"]


def test_a_feed_without_game_lines_starts_from_its_headers_rule_set(tmp_path: Path) -> None:
    """``boardctl replay --format feed`` prints a header naming the rules, then moves with no
    game id: the moves are on the PDN as they come, not only after the closing snapshot."""
    log = write_log(tmp_path / "game.jsonl",
                    game_log(6, seed=2, think=(0.1, 0.2), change_mind=0.0))
    done = subprocess.run([sys.executable, "-m", "boardctl", "replay", str(log), "--rules",
                           "international", "--format", "feed"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    feed = done.stdout.splitlines()
    moves = [line for line in feed if (decode_line(line) or {}).get("type") == "move"]
    assert moves and all("game" not in (decode_line(line) or {}) for line in moves)
    state = RelayState()
    for line in feed[:1] + moves:  # the header and the moves: no game line, no snapshot
        state.feed_line("replay", line)
    (game,) = state.games.values()
    assert [m["move"] for m in game.moves] == real_moves(6) and game.rules == "international"


def test_a_result_in_another_rule_sets_form_is_refused() -> None:
    told: list[str] = []
    state = RelayState(log=told.append)
    records = [header_record("7", "r", "international"), GAME, *move_records()[:2],
               {"type": "result", "game": "g1", "result": "1-0", "reason": "resignation"}]
    for line in lines(records):
        state.feed_line("p", line)
    assert state.games["g1"].result is None
    assert "result 1-0 refused: international writes 2-0" in "\n".join(told)
    state.feed_line("p", lines([{"type": "result", "game": "g1", "result": "2-0",
                                 "reason": "resignation"}], start=len(records))[0])
    assert state.games["g1"].result == "2-0"
    russian = {**GAME, "game": "r1", "rules": "russian"}
    for line in lines([russian, {"type": "result", "game": "r1", "result": "0-2",
                                 "reason": "x"}], start=len(records) + 1):
        state.feed_line("p", line)
    assert state.games["r1"].result is None and "russian writes 0-1" in "\n".join(told)


def test_the_round_tag_numbers_the_board_as_the_pdn_standard_writes_sub_rounds() -> None:
    """``boardctl hall boards b1 b2`` and ``start-round`` (the guide's own steps) set
    ``Round "1"`` and ``Board "b1"``: the relay wrote ``[Round "1.b1"]``. Now ``1.1`` (the
    standard's ``3.1``), the Board tag naming the board; no number, no sub-round; a game of no
    known round stays ``?``."""
    state = RelayState()
    for board, tags in (("b1", {"Round": "1", "Board": "b1"}), ("b12", {"Round": "1"}),
                        ("desk", {"Round": "1", "Board": "desk"}), ("b7", {"Round": "?"})):
        ident = f"g-{board}"
        records = [header_record(board, "r", "international"),
                   {**GAME, "game": ident, "tags": {**GAME["tags"], **tags}},
                   *move_records(ident)[:2]]
        for line in lines(records):
            state.feed_line(board, line)
    games = list(read_games(state.pdn(), "relay"))
    assert [(g.tags["Round"], g.tags.get("Board")) for g in games] == [
        ("1.1", "b1"), ("1.12", None), ("1", "desk"), ("?", None)]


def test_a_game_is_served_from_its_first_move_and_keeps_its_place() -> None:
    """lidraughts matches each game of a multi-game PDN to its chapter by its place in the
    file, and stops the round ("Game 2 matches with Chapter 1") when one moves; pydraughts
    stops reading at a game without moves. The round URL was sorted by board (a board whose
    round started late, its last game still in play, went in before the others) and served
    games set up but not started. Now a game is served from its first move (or its result),
    after every game served before it, and keeps that place."""
    from boardctl.relay.http import GameText, View, select_games

    state = RelayState()
    records: dict[str, list[dict]] = {}

    def send(board: str, *more: dict) -> None:  # each board's lines, seq counting on
        state.source(board, topic=True)
        sent = records.setdefault(board, [])
        new = [*([] if sent else [header_record(board, "r", "international")]), *more]
        for line in lines(new, start=len(sent)):
            state.feed_line(board, line)
        sent.extend(new)

    def served(path: str = "/H/round/4.pdn") -> str:  # as the relay hands it to its HTTP side
        view = View(tuple(GameText(g.key, g.round_tag(), g.tags.get("Board") or g.board, text,
                                   0.0) for g, text in state.texts() if g.shown))
        return "".join(g.text for g in select_games(view, "H", path) or [])

    def whites(path: str = "/H/round/4.pdn") -> list[str]:
        return [g.tags["White"] for g in read_games(served(path), path)]

    def game(white: str) -> dict:
        return {**GAME, "game": "r4", "tags": {**GAME["tags"], "Round": "4", "White": white}}

    send("b3", {**GAME, "game": "early", "tags": {"Round": "?", "White": "?"}})
    send("b3", game("W3"))
    send("b2", game("W2"))
    assert whites() == [] and served("/H.pdn") == ""  # set up, not started: nothing served
    send("b2", *move_records("r4")[:1])
    send("b1", game("W1"), *move_records("r4")[:2])  # b1's round started late: it comes last
    assert whites() == ["W2", "W1"]
    send("b3", *move_records("r4")[:1])
    send("b2", *move_records("r4")[1:3])
    assert whites() == ["W2", "W1", "W3"] and whites("/H.pdn") == ["W2", "W1", "W3"]
    pdn_module = pytest.importorskip("draughts.PDN")
    assert len(pdn_module.PDNReader(pdn_text=served()).games) == 3
