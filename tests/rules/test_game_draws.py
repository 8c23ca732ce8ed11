"""End of game: losses, declared results, and every draw rule with a constructed position and
a move sequence that runs its count out (firmware.rules.game cites the paragraphs)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from firmware.errors import IllegalMoveError, RulesError
from firmware.rules.game import DrawCounter, Game, parse_result, result_text
from firmware.rules.notation import parse_move
from firmware.rules.position import Move, Position
from firmware.rules.sets import Side, find_rules

MAIN_ROAD = {"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"}


def game_from(rules: str, fen: str, fischer: bool = True) -> Game:
    rs = find_rules(rules)
    return Game(rs, Position.from_fen(rs, fen), fischer)


def quiet(
    game: Game,
    plies: int,
    men: bool = False,
    allow: Callable[[Game, Move], bool] | None = None,
) -> None:
    """Play ``plies`` moves that capture nothing, crown nothing, give the opponent no capture,
    reach a position not seen before, and move a king (a man when ``men``). A small depth-first
    search with backtracking finds such a line; AssertionError if there is none."""
    plan = "m" * plies if men else "k" * plies
    assert plan_line(game, plan, allow), f"no quiet line of {plies} in {game.position.fen()}"


def plan_line(
    game: Game, plan: str, allow: Callable[[Game, Move], bool] | None = None
) -> bool:
    """Depth-first: push moves following ``plan`` ('k' king move, 'm' man move)."""
    budget = [20_000]

    def search(depth: int) -> bool:
        if depth == len(plan):
            return True
        budget[0] -= 1
        if budget[0] < 0 or game.outcome() is not None:
            return False
        p = game.position
        seen = set(game.history)
        for move in p.legal_moves():
            piece = p.piece_at(move.start)
            assert piece is not None
            if move.is_capture or move.promotes or piece.king != (plan[depth] == "k"):
                continue
            after = p.play(move)
            if after in seen or after.has_capture():
                continue
            if allow is not None and not allow(game, move):
                continue
            game.push(move)
            if search(depth + 1):
                return True
            game.pop()
        return False

    return search(0)


def counter(game: Game, rule: str) -> DrawCounter:
    found = [c for c in game.draw_counters() if c.rule == rule]
    assert len(found) == 1, game.draw_counters()
    return found[0]


def play(game: Game, *texts: str) -> None:
    for text in texts:
        game.push(parse_move(game.position, text))


# -- results ----------------------------------------------------------------------------------


def test_result_forms() -> None:
    assert result_text(find_rules("international"), Side.WHITE) == "2-0"
    assert result_text(find_rules("international1953"), None) == "1-1"
    assert result_text(find_rules("russian"), Side.BLACK) == "0-1"
    assert result_text(find_rules("home"), None) == "1/2-1/2"
    assert parse_result("2-0") == parse_result("1-0") == (Side.WHITE, True)
    assert parse_result(" 1/2-1/2 ") == parse_result("1-1") == (None, True)
    assert parse_result("0-0") == (None, False)
    with pytest.raises(RulesError):
        parse_result("*")


# -- losses -----------------------------------------------------------------------------------


def test_no_legal_move_loses() -> None:
    g = game_from("russian", "W:Wa1:Bb2,c3")  # 000 6.1.2: the white man is blocked
    outcome = g.outcome()
    assert outcome is not None and outcome.winner is Side.BLACK and outcome.result == "0-1"
    assert "no legal move" in outcome.reason


def test_no_pieces_loses_after_the_last_capture() -> None:
    g = game_from("international", "W:W32:B28")
    assert g.outcome() is None
    play(g, "32x23")
    outcome = g.outcome()
    assert outcome is not None and outcome.result == "2-0" and "no pieces" in outcome.reason
    assert g.pop() is not None and g.outcome() is None  # taking back undoes the end


def test_declared_results_and_withdrawal() -> None:
    g = Game("international")
    g.declare("0-1", "resignation")
    outcome = g.outcome()
    assert outcome is not None and outcome.result == "0-2" and outcome.winner is Side.BLACK
    assert outcome.reason == "resignation"
    g.declare("0-0", "arbiter")
    assert g.outcome() is not None and g.outcome().result == "0-0"  # type: ignore[union-attr]
    g.declare(None, "")
    assert g.outcome() is None
    with pytest.raises(RulesError):
        g.declare("3-0", "typo")


def test_illegal_push_and_empty_pop_are_refused() -> None:
    g = Game("russian")
    other = Position.from_fen(g.rules, "W:Wc3:Bd4").legal_moves()[0]
    with pytest.raises(IllegalMoveError):
        g.push(other)
    with pytest.raises(RulesError):
        g.pop()


# -- repetition -------------------------------------------------------------------------------

SHUFFLE = ("e1-f2", "d8-e7", "f2-e1", "e7-d8")
SHUFFLE_FEN = "W:WKe1,a3,c3:BKd8,f8,h6"


def test_threefold_repetition_russian() -> None:
    g = game_from("russian", SHUFFLE_FEN)
    play(g, *SHUFFLE)
    assert g.repetitions() == 2 and g.outcome() is None
    assert counter(g, "000 7.2.3").moves_left == 1
    play(g, *SHUFFLE[:3])
    assert g.outcome() is None
    play(g, SHUFFLE[3])
    outcome = g.outcome()
    assert outcome is not None and outcome.result == "1/2-1/2"
    assert "repetition" in outcome.reason and "7.2.3" in outcome.reason


def test_repetition_on_claim_in_the_1953_rules() -> None:
    g = game_from("russian1953", SHUFFLE_FEN)
    play(g, *SHUFFLE, *SHUFFLE)
    assert g.outcome() is None  # 004 §16d: only on claim
    assert [c.rule for c in g.claimable()] == ["004 §16d"]
    outcome = g.claim_draw()
    assert outcome.winner is None and g.outcome() == outcome


def test_no_claim_without_grounds() -> None:
    g = game_from("russian1953", SHUFFLE_FEN)
    with pytest.raises(RulesError):
        g.claim_draw()


def test_a_setup_restarts_the_repetition_history() -> None:
    g = game_from("russian", SHUFFLE_FEN)
    start = g.position
    play(g, *SHUFFLE)
    g.setup(start)
    play(g, *SHUFFLE)
    assert g.repetitions() == 2 and g.outcome() is None
    play(g, *SHUFFLE)
    assert g.outcome() is not None


# -- king moves -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, fen, limit, rule",
    [
        ("russian", "W:WKe1,a3:BKd8,h6", 15, "000 7.2.5"),
        ("brazilian", "W:WKe1,a3:BKd8,h6", 15, "000 7.2.5"),
        ("international64", "W:WKe1,a3:BKd8,h6", 15, "001 6.2"),
        ("international", "W:WK47,K49,36:BK4,K2,15", 25, "003 6.2"),
    ],
)
def test_king_moves_without_capture(rules: str, fen: str, limit: int, rule: str) -> None:
    g = game_from(rules, fen)
    quiet(g, 2 * limit - 1)
    assert g.outcome() is None
    assert counter(g, rule).moves_left == 1
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and outcome.winner is None and rule in outcome.reason


def test_a_man_move_restarts_the_king_count() -> None:
    g = game_from("russian", "W:WKe1,a3:BKd8,h6")
    assert plan_line(g, "k" * 20 + "m")
    assert all(c.rule != "000 7.2.5" for c in g.draw_counters())
    quiet(g, 29)
    assert g.outcome() is None
    assert counter(g, "000 7.2.5").moves_left == 1


# -- Russian endgames (000 7.2.4, 7.2.6-7.2.9) -----------------------------------------------


def off_road(game: Game, move: Move) -> bool:
    """The lone (black) king keeps off the main road."""
    name = game.rules.geometry.algebraic(move.end)
    return game.position.turn is Side.WHITE or name not in MAIN_ROAD


def on_road(game: Game, move: Move) -> bool:
    name = game.rules.geometry.algebraic(move.end)
    return game.position.turn is Side.WHITE or name in MAIN_ROAD


def test_three_kings_against_a_lone_king_15_moves() -> None:
    g = game_from("russian", "W:WKc1,Ke1,Kg1:BKh2")
    quiet(g, 28, allow=off_road)  # 14 moves each
    c = counter(g, "000 7.2.4")
    assert c.moves_left == 1 and c.side is Side.WHITE
    quiet(g, 1, allow=off_road)  # White's 15th
    outcome = g.outcome()
    assert outcome is not None and "7.2.4" in outcome.reason


def test_lone_king_on_the_main_road_5_moves() -> None:
    g = game_from("russian", "W:WKc1,Ke1,Kg1:BKa1", fischer=True)
    quiet(g, 8, allow=on_road)
    assert counter(g, "000 7.2.7").moves_left == 1
    quiet(g, 1, allow=on_road)
    outcome = g.outcome()
    assert outcome is not None and "7.2.7" in outcome.reason


def test_leaving_the_main_road_stops_that_count() -> None:
    g = game_from("russian", "B:WKg1,Kh2,Kh4:BKc3")
    assert counter(g, "000 7.2.7").moves_left == 5
    play(g, "c3-a5")  # off the road: 7.2.7 no longer applies, 7.2.4 counts on
    assert all(c.rule != "000 7.2.7" for c in g.draw_counters())
    assert counter(g, "000 7.2.4").moves_left == 15
    quiet(g, 1)
    assert counter(g, "000 7.2.4").moves_left == 14


def test_two_kings_against_a_lone_king_5_moves() -> None:
    g = game_from("russian", "B:WKc1,Ke1:BKh2")
    quiet(g, 9)  # Black first: White has made 4 moves
    assert counter(g, "000 7.2.8").moves_left == 1
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and "7.2.8" in outcome.reason


@pytest.mark.parametrize("fen", ["W:WKc1,Ke1:BKh2", "W:WKc1,Ke1,Kg1:BKa1", "W:WKc1,a3:BKh2"])
def test_without_fischer_increments_drawn_at_once(fen: str) -> None:
    outcome = game_from("russian", fen, fischer=False).outcome()
    assert outcome is not None and "7.2.9" in outcome.reason
    assert game_from("russian", fen, fischer=True).outcome() is None


def test_kings_on_both_sides_4_pieces_30_moves() -> None:
    g = game_from("russian", "W:WKe1,a3:BKh8,h6")
    assert plan_line(g, "k" * 26 + "m" + "k" * 26 + "m" + "k" * 5)
    assert g.outcome() is None
    assert counter(g, "000 7.2.6").moves_left == 1 and counter(g, "000 7.2.6").side is None
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and "7.2.6" in outcome.reason


def test_six_pieces_count_60_and_a_capture_restarts() -> None:
    g = game_from("russian", "W:WKe1,a3,c3:BKd8,f8,h6")
    assert counter(g, "000 7.2.6").moves_left == 60
    quiet(g, 4)
    assert counter(g, "000 7.2.6").moves_left == 58
    g2 = game_from("russian", "W:WKe1,a3,c3,g3:BKd8,f8,h6,f4")  # 8 pieces: not counted
    assert all(c.rule != "000 7.2.6" for c in g2.draw_counters())
    play(g2, "g3:e5")
    assert counter(g2, "000 7.2.6").moves_left == 60


# -- International (003 6.3, 6.4) and International 64 (001 6.3) -------------------------------


def test_international_three_kings_16_moves_each() -> None:
    g = game_from("international", "W:WK47,K49,K48:BK3")
    quiet(g, 31)
    assert counter(g, "003 6.3").moves_left == 1
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and outcome.result == "1-1" and "6.3" in outcome.reason


def test_international_capture_during_the_16_does_not_restart_or_switch_to_5() -> None:
    g = game_from("international", "B:WK13,K31,K46:BK35")
    play(g, "35x2")  # 2 kings against a king now: the 16-move count goes on (003 6.3)
    assert [c.rule for c in g.draw_counters() if c.rule.startswith("003 6.")] == ["003 6.3"]
    quiet(g, 30)
    assert g.outcome() is None
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and "6.3" in outcome.reason


def test_international_two_kings_5_moves_each() -> None:
    g = game_from("international", "W:WK47,K49:BK3")
    quiet(g, 9)
    assert counter(g, "003 6.4").moves_left == 1
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and "6.4" in outcome.reason


def test_international64_king_against_two_kings_5_moves_each() -> None:
    g = game_from("international64", "W:WKc1:BKh8,Kf8")
    quiet(g, 9)
    assert counter(g, "001 6.3").moves_left == 1
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and "001 6.3" in outcome.reason and outcome.result == "1/2-1/2"


# -- 1953 rules (004 §16, §31) ----------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, fen, rule",
    [
        ("russian1953", "W:WKc1,Ke1,Kg1:BKh2", "004 §16c"),
        ("international1953", "W:WK47,K49,K48,K36:BK3", "004 §31"),
    ],
)
def test_1953_lone_king_18_moves(rules: str, fen: str, rule: str) -> None:
    g = game_from(rules, fen)
    quiet(g, 34)
    assert counter(g, rule).moves_left == 1
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and rule in outcome.reason


def test_1953_three_kings_are_not_enough_on_100_squares() -> None:
    g = game_from("international1953", "W:WK46,K50,K45:BK5")
    assert all(c.rule != "004 §31" for c in g.draw_counters())


def test_1953_thirty_moves_without_change_on_claim() -> None:
    g = game_from("russian1953", "W:WKe1,a3:BKh8,h6")
    quiet(g, 59)
    c = counter(g, "004 §16b")
    assert c.claim and c.moves_left == 1
    quiet(g, 1)
    assert g.outcome() is None
    assert [c.rule for c in g.claimable()] == ["004 §16b"]
    assert "004 §16b" in g.claim_draw().reason


# -- home (002) -------------------------------------------------------------------------------


def test_home_fifteen_moves_without_capture() -> None:
    g = game_from("home", "W:WKe1,a3:BKh8,h6")
    assert plan_line(g, "k" * 20 + "m" + "k" * 8)  # a man moving does not restart this count
    assert counter(g, "002").moves_left == 1
    quiet(g, 1)
    outcome = g.outcome()
    assert outcome is not None and "002" in outcome.reason


def test_home_threefold() -> None:
    g = game_from("home", SHUFFLE_FEN)
    play(g, *SHUFFLE, *SHUFFLE)
    outcome = g.outcome()
    assert outcome is not None and "repetition" in outcome.reason


# -- the record -------------------------------------------------------------------------------


def test_the_first_ending_stays_when_play_goes_on() -> None:
    g = game_from("russian", SHUFFLE_FEN)
    play(g, *SHUFFLE, *SHUFFLE)
    first = g.outcome()
    assert first is not None
    play(g, "e1-f2")
    assert g.outcome() == first
    g.pop()
    g.pop()
    assert g.outcome() is None


def test_counters_sorted_nearest_first() -> None:
    g = game_from("russian", "W:WKc1,Ke1,Kg1:BKh2")
    quiet(g, 3, allow=off_road)
    lefts = [c.moves_left for c in g.draw_counters()]
    assert lefts == sorted(lefts) and len(lefts) >= 2


def test_1953_claim_before_the_repeating_move() -> None:
    g = game_from("russian1953", SHUFFLE_FEN)
    play(g, *SHUFFLE, *SHUFFLE[:3])
    last = parse_move(g.position, SHUFFLE[3])
    outcome = g.claim_draw(last)  # 004 §16: claim instead of making the move
    assert outcome.winner is None and "on claim" in outcome.reason
    assert len(g.moves) == 7
    g2 = game_from("russian1953", SHUFFLE_FEN)
    with pytest.raises(RulesError):
        g2.claim_draw(parse_move(g2.position, SHUFFLE[0]))


def test_every_ending_says_why_it_ended() -> None:
    from firmware.rules.game import Termination

    no_pieces = game_from("russian", "W:Wc3:Bd4")
    no_pieces.push(parse_move(no_pieces.position, "c3xe5"))
    ended = no_pieces.outcome()
    assert ended is not None and ended.termination is Termination.NO_PIECES
    blocked = game_from("russian", "W:Wa1:Bb2,c3").outcome()  # the white man is blocked
    assert blocked is not None and blocked.termination is Termination.NO_MOVES
    claimed = game_from("russian1953", "W:WKc1,Ke1:BKd8,Kf8")
    for _ in range(2):  # the same position a third time: a draw on claim (004 §16d)
        for text in ("c1-b2", "d8-c7", "b2-c1", "c7-d8"):
            claimed.push(parse_move(claimed.position, text))
    assert claimed.claim_draw().termination is Termination.CLAIMED
    counted = game_from("russian", "B:WKc1,Ke1:BKh2")  # 000 7.2.8: by the 5th move
    quiet(counted, 10)
    drawn = counted.outcome()
    assert drawn is not None and drawn.termination is Termination.DRAW_RULE
    declared = Game("russian")
    declared.declare("1-0", "resignation")
    assert declared.outcome().termination is Termination.DECLARED  # type: ignore[union-attr]


def test_draw_rules_follow_the_rule_set_class() -> None:
    from firmware.rules.game import DRAW_RULES, _draw_rules
    from firmware.rules.sets import International, RuleSet, Russian

    for name in ("russian", "brazilian", "international", "international64", "russian1953",
                 "international1953", "home"):
        rules = find_rules(name)
        assert type(rules) in DRAW_RULES, name
        assert _draw_rules(rules) is DRAW_RULES[type(rules)]
    # The 1953 rules are their own, though their classes derive from today's.
    assert _draw_rules(find_rules("russian1953")) is not DRAW_RULES[Russian]

    class Club(Russian):  # a club's variant: Russian rules unless it says otherwise
        name = "club"

    class Big(RuleSet):
        name = "big"
        size = 10

    assert _draw_rules(Club()) is DRAW_RULES[Russian]
    assert _draw_rules(Big()) is DRAW_RULES[International]
