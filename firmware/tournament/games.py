"""Results from the games themselves: PDN games matched to the round's pairings.

A game is found by its tags: ``Round`` (``R``, or the relay's ``R.B`` with the board after the
dot) and ``White``/``Black`` names; without names, by ``Round`` and ``Board`` through the
round's board assignment. A game with no round (no ``Round`` tag, or ``?``: a board's game
before any setup) is not a tournament game and is left out. A game played with the colours the
wrong way round counts for the players who played it, as seed 004 §12 has the result stand
once the game is over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from firmware.errors import TournamentError
from firmware.limits import ascii_digits
from firmware.pdn import PdnGame
from firmware.tournament.results import Result, parse_result
from firmware.tournament.scoring import Key
from firmware.tournament.state import RoundGame, Tournament

_UNNAMED = {"", "?", "-"}


@dataclass(frozen=True, slots=True)
class Found:
    game: RoundGame
    result: Result | None  #: None while the game is in play


def round_and_board(tags: dict[str, str]) -> tuple[str, str]:
    rnd = tags.get("Round", "").strip()
    board = tags.get("Board", "").strip()
    if "." in rnd:
        rnd, _, from_round = rnd.partition(".")
        board = board or from_round
    return rnd, board


def match_game(t: Tournament, pdn: PdnGame) -> Found | None:
    """The pairing a PDN game belongs to; None for a game outside the tournament (no round:
    no ``Round`` tag, or ``?``, as a board's game before any setup); TournamentError naming
    the game if it claims a round but fits no pairing."""
    where = f"{pdn.source}: {pdn.title}"
    rnd_text, board = round_and_board(pdn.tags)
    if rnd_text in _UNNAMED:
        return None
    if not ascii_digits(rnd_text):
        raise TournamentError(f"{where}: Round tag {rnd_text[:20]!r} is not a round number")
    number = int(rnd_text)
    if not 1 <= number <= t.rounds:
        raise TournamentError(f"{where}: round {number} is not a round of this tournament "
                              f"(1-{t.rounds})")
    games, _ = t.games(number)
    white = pdn.tags.get("White", "").strip()
    black = pdn.tags.get("Black", "").strip()
    if white in _UNNAMED and black in _UNNAMED:
        game = next((g for g in games if g.board == board), None)
        if game is None:
            raise TournamentError(f"{where}: no names, and round {number} has no board "
                                  f"{board[:20]!r}")
        return Found(game, _result(pdn, where))
    try:
        white_name = t.player(white).name
        black_name = t.player(black).name
    except TournamentError as exc:
        raise TournamentError(f"{where}: {exc}") from None
    result = _result(pdn, where)
    for game in games:
        if (game.white, game.black) == (white_name, black_name):
            return Found(game, result)
        if (game.white, game.black) == (black_name, white_name):  # §12: the result stands
            return Found(game, None if result is None else result.reversed())
    raise TournamentError(f"{where}: {white_name} and {black_name} are not paired in "
                          f"round {number}")


def _result(pdn: PdnGame, where: str) -> Result | None:
    text = (pdn.result or pdn.tags.get("Result", "*")).strip()
    if text in ("*", ""):
        return None
    try:
        return parse_result(text)
    except TournamentError as exc:
        raise TournamentError(f"{where}: {exc}") from None


def results_from_games(t: Tournament, pdns: Iterable[PdnGame]) -> dict[Key, Result]:
    """Every finished game's result by pairing. The same game twice with the same result (a
    file and the relay) is fine; two different results for one pairing are an error."""
    found: dict[Key, Result] = {}
    for pdn in pdns:
        match = match_game(t, pdn)
        if match is None or match.result is None:
            continue
        g = match.game
        key = (g.round, g.white, g.black)
        if key in found and found[key] != match.result:
            raise TournamentError(
                f"{pdn.source}: {pdn.title}: round {g.round} {g.white} - {g.black} has two "
                f"results, {found[key].text} and {match.result.text}"
            )
        found[key] = match.result
    return found
