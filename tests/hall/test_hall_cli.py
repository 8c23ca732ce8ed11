"""``boardctl hall`` end to end on real files: a players list to a crosstable, and every kind
of bad input answered in one line with the tournament file left as it was."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from boardctl.cli import main

CSV_PLAYERS = "name,rating,club\nAavik,2310,Tartu\nBauer,2205,\nCerny,,Pärnu\nDahl,1990,Tallinn\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("boardctl: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    players = tmp_path / "players.csv"
    players.write_text(CSV_PLAYERS, encoding="utf-8")
    path = tmp_path / "t.json"
    code, out, _ = run(capsys, "hall", "init", "--state", str(path), "--players", str(players),
                       "--event", "Test")
    assert code == 0 and "4 players, 3 rounds" in out
    return path


def test_the_drawing_is_repeatable_with_a_seed(state: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "hall", "draw", "--state", str(state), "--seed", "42")[1]
    again = run(capsys, "hall", "draw", "--state", str(state), "--seed", "42")[1]
    assert first == again
    numbers = {p["name"]: p["number"] for p in json.loads(state.read_text())["players"]}
    assert sorted(numbers.values()) == [1, 2, 3, 4]
    assert {p["name"]: (p.get("rating"), p.get("club"))
            for p in json.loads(state.read_text())["players"]}["Cerny"] == (None, "Pärnu")


def test_pairings_follow_the_seeds_3_4_table(state: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "hall", "draw", "--state", str(state), "--seed", "1")
    numbers = {p["number"]: p["name"] for p in json.loads(state.read_text())["players"]}
    out = run(capsys, "hall", "pairings", "--state", str(state))[1]
    n = numbers
    # seed 004 appendix, "3 või 4 osavõtjaga": 1—(4) 2—3 | (4)—3 1—2 | 2—(4) 3—1
    assert out == (
        f"Round 1\n  board 1: {n[1]} - {n[4]}\n  board 2: {n[2]} - {n[3]}\n"
        f"Round 2\n  board 1: {n[4]} - {n[3]}\n  board 2: {n[1]} - {n[2]}\n"
        f"Round 3\n  board 1: {n[2]} - {n[4]}\n  board 2: {n[3]} - {n[1]}\n")


def test_from_games_and_arbiter_to_csv_and_html(state: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "hall", "draw", "--state", str(state), "--seed", "1")
    run(capsys, "hall", "boards", "--state", str(state), "t1", "t2")
    n = {p["number"]: p["name"] for p in json.loads(state.read_text())["players"]}
    games = tmp_path / "games.pdn"
    # round 1 as the relay writes it (Round "r.b", no Board tag), one by names only
    games.write_text(f'[Round "1.t1"]\n[White "{n[1]}"]\n[Black "{n[4]}"]\n\n2-0\n\n'
                     f'[Round "1.t2"]\n[White "?"]\n[Black "?"]\n\n1-1\n\n'
                     # played with the colours the wrong way round: §12, the result stands
                     f'[Round "2"]\n[White "{n[2]}"]\n[Black "{n[1]}"]\n\n0-2\n\n')
    code, out, err = run(capsys, "hall", "result", "--state", str(state), "--round", "2",
                         n[3], n[4], "+-")
    assert code == 0, err
    assert out.strip() == f"round 2: {n[4]} - {n[3]} -+"  # stored in the table's colours
    csv_out, html_out = tmp_path / "x.csv", tmp_path / "x.html"
    code, out, err = run(capsys, "hall", "crosstable", "--state", str(state), "--games",
                         str(games), "--csv", str(csv_out), "--html", str(html_out))
    assert code == 0, err
    rows = {r["No"]: r for r in csv.DictReader(io.StringIO(csv_out.read_text()))}
    assert rows["1"]["4"] == "1" and rows["1"]["2"] == "1" and rows["1"]["Points"] == "2"
    assert rows["2"]["1"] == "0" and rows["2"]["3"] == "½"
    assert rows["3"]["4"] == "+" and rows["4"]["3"] == "-"
    assert rows["3"]["Points"] == "1.5" and rows["1"]["Place"] == "1"
    assert "<table>" in html_out.read_text()
    assert n[1] in out and "Points" in out


def test_withdrawal_before_half_strikes_the_player(state: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "hall", "draw", "--state", str(state), "--seed", "1")
    code, out, _ = run(capsys, "hall", "withdraw", "--state", str(state), "Bauer",
                       "--after-round", "1")
    assert code == 0 and "§38" in out
    out = run(capsys, "hall", "crosstable", "--state", str(state))[1]
    assert "annulled (1953 rules §38): Bauer" in out


def test_withdrawal_before_the_start_with_an_odd_count_asks_for_a_new_draw(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players = tmp_path / "p.txt"
    players.write_text("A\nB\nC\nD\nE\n")
    path = tmp_path / "t.json"
    run(capsys, "hall", "init", "--state", str(path), "--players", str(players))
    run(capsys, "hall", "draw", "--state", str(path), "--seed", "3")
    code, out, _ = run(capsys, "hall", "withdraw", "--state", str(path), "E",
                       "--after-round", "0")
    assert code == 0 and "draw again" in out
    data = json.loads(path.read_text())
    assert [p["name"] for p in data["players"]] == ["A", "B", "C", "D"]
    assert all("number" not in p for p in data["players"])
    assert "no numbers drawn" in one_line_error(capsys, "hall", "pairings", "--state",
                                                str(path))


@pytest.mark.parametrize(("content", "message"), [
    ("Aavik\nBauer\nAavik\n", "duplicate player 'Aavik'"),
    ("Aavik\nbauer\nBAUER\n", "duplicate player"),
    ("Aavik\nBauer, Tartu\nCerny\n", "a comma in a plain list"),
    ("name,rating\nAavik,abc\nB,1\nC,2\n", "rating 'abc' is not a whole number"),
    ("name,elo\nA,1\n", "CSV header must name"),
    ("name,rating\nA,1,extra\nB,2\nC,3\n", "3 fields, header has 2"),
    ("Aavik\nBauer\n", "3-24 players, not 2"),
    ("\n".join(f"P{i}" for i in range(25)), "3-24 players, not 25"),
    ("A\x01\nB\nC\n", "control characters"),
])
def test_bad_players_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           content: str, message: str) -> None:
    players = tmp_path / "p.txt"
    players.write_text(content, encoding="utf-8")
    line = one_line_error(capsys, "hall", "init", "--state", str(tmp_path / "t.json"),
                          "--players", str(players))
    assert message in line
    assert not (tmp_path / "t.json").exists()


def test_bad_games_and_entries_leave_the_file_as_it_was(
        state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "hall", "draw", "--state", str(state), "--seed", "1")
    before = state.read_bytes()
    games = tmp_path / "g.pdn"
    cases = [
        ('[Round "1"]\n[White "Stranger"]\n[Black "Aavik"]\n\n1-0\n', "'Stranger' is not a "
         "player"),
        ('[Round "9"]\n[White "Aavik"]\n[Black "Bauer"]\n\n1-0\n', "round 9 is not a round"),
        ('[Round "1b"]\n[White "Aavik"]\n[Black "Bauer"]\n\n1-0\n', "is not a round number"),
        ('[Round "1"]\n[White "Aavik"]\n[Black "Aavik"]\n\n1-0\n', "not paired in round 1"),
        ('[Round "1"]\n[White "Aavik"]\n[Black "Bauer"]\n\n1-0 {unterminated\n', "games"),
    ]
    for text, message in cases:
        games.write_text(text)
        line = one_line_error(capsys, "hall", "crosstable", "--state", str(state), "--games",
                              str(games))
        assert message in line or "g.pdn" in line, line
    assert "unknown result" in one_line_error(
        capsys, "hall", "result", "--state", str(state), "--round", "1", "Aavik", "Bauer", "3-0")
    assert "is not a player" in one_line_error(
        capsys, "hall", "result", "--state", str(state), "--round", "1", "X", "Bauer", "1-0")
    assert "rounds 1-3" in one_line_error(capsys, "hall", "pairings", "--state", str(state),
                                          "--round", "4")
    assert "must match" in one_line_error(capsys, "hall", "boards", "--state", str(state),
                                          "b/1", "b2")
    assert "exists already" in one_line_error(capsys, "hall", "init", "--state", str(state),
                                              "--players", str(games))
    assert "--broker" in one_line_error(capsys, "hall", "start-round", "1", "--state",
                                        str(state), "--broker", "http://x", "--hall", "h")
    assert "hall name" in one_line_error(capsys, "hall", "start-round", "1", "--state",
                                         str(state), "--broker", "mqtt://127.0.0.1:1",
                                         "--hall", "a/b", "--dry-run")
    assert state.read_bytes() == before


@pytest.mark.parametrize(("content", "message"), [
    ("", "not JSON"),
    ("[]", "not a tournament file"),
    ('{"format": "kabelaud-tournament/1", "players": 5}', "'players' must be a list"),
    ('{"format": "kabelaud-tournament/1", "players": [{"name": "A", "number": 1}, '
     '{"name": "B", "number": 1}, {"name": "C", "number": 3}]}', "numbers must be 1..N"),
    ('{"format": "kabelaud-tournament/1", "players": [{"name": "A"}, {"name": "a"}, '
     '{"name": "C"}]}', "duplicate player"),
    ('{"format": "kabelaud-tournament/1", "cycles": 3, "players": [{"name": "A"}, '
     '{"name": "B"}, {"name": "C"}]}', "'cycles' must be 1 or 2"),
    ('{"format": "kabelaud-tournament/1", "rules": "chess", "players": [{"name": "A"}, '
     '{"name": "B"}, {"name": "C"}]}', "'rules': unknown rule set 'chess'"),
    ('{"format": "kabelaud-tournament/1", "time_control": "90 minutes", "players": '
     '[{"name": "A"}, {"name": "B"}, {"name": "C"}]}', "'time_control': bad time control"),
    ('{"format": "kabelaud-tournament/1", "time_control": 5400, "players": '
     '[{"name": "A"}, {"name": "B"}, {"name": "C"}]}', "'time_control' must be a text or null"),
])
def test_bad_tournament_files(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              content: str, message: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    assert message in one_line_error(capsys, "hall", "pairings", "--state", str(path))


def test_a_missing_tournament_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_line_error(capsys, "hall", "draw", "--state", str(tmp_path / "none.json"))
    assert "No such file" in line


def test_a_result_outside_the_pairings_does_not_load(state: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A hand-edited file: a result of two players who do not meet that round with those
    colours (or any result before the drawing) would count in the crosstable for a game that
    was never played."""
    from firmware.tournament.state import from_json

    undrawn = json.loads(state.read_text())
    run(capsys, "hall", "draw", "--state", str(state), "--seed", "1")
    drawn = json.loads(state.read_text())
    game = from_json(drawn).games(1)[0][0]
    cases = [(undrawn, game.white, game.black, "results before the drawing of numbers"),
             (drawn, game.black, game.white, f"a result of {game.black} - {game.white} in "
                                             "round 1, who do not meet"),
             (drawn, game.white, game.black, None)]
    for data, white, black, error in cases:
        data["results"] = [{"round": 1, "white": white, "black": black, "result": "1-1"}]
        state.write_text(json.dumps(data))
        if error is None:
            assert run(capsys, "hall", "crosstable", "--state", str(state))[0] == 0
        else:
            assert error in one_line_error(capsys, "hall", "crosstable", "--state", str(state))


def test_the_hall_and_arbiter_guides_cite_rule_documents_by_title() -> None:
    """Issue 31: "seed 004" is a name only the project's sources know; the guides a user reads
    name the rule documents by their titles (the 1953 rules: *Kabe. Võistlusmäärused*)."""
    import re

    docs = Path(__file__).resolve().parents[2] / "docs"
    for name in ("HALL.md", "ARBITER.md"):
        text = (docs / name).read_text(encoding="utf-8")
        assert re.search(r"\bseed\s+0\d\d", text) is None, name
        assert "/home/" not in text and "/Users/" not in text, name
    assert "Kabe.\nVõistlusmäärused" in (docs / "HALL.md").read_text(encoding="utf-8")
