"""The network is not the board (issue 41 item 3), on a real ``boardctl run --sim --opponent
lidraughts`` process against the stand-in: the connection cut mid-game and mid-capture, the
server restarted, a garbage line and an oversized line in the game's stream, a move the server
refuses, a wrong token. Each fault is injected by the stand-in; no move is lost, doubled or
committed on one side only, and the game goes on to its end."""

from __future__ import annotations

import json
from pathlib import Path

from support.lidraughts_standin import LidraughtsStandin
from support.online_board import OnlineBoard, board, opened, play_plies, real_moves, standin

from boardctl.online.moves import li_route
from firmware.rules.sets import Side

__all__ = ["board", "standin"]  # fixtures


def journal_notes(board: OnlineBoard, kind: str) -> list[dict[str, object]]:
    """The journal's notes of ``kind`` (what the board told of the link)."""
    out = []
    for path in board.state.rglob("*.jsonl"):
        for line in path.read_text(errors="replace").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("note") == kind:
                out.append(rec)
    return out


def same_game(board: OnlineBoard, standin: LidraughtsStandin, gid: str) -> None:
    """The board's moves are the server's, each once."""
    server = standin.games[gid]
    moves = board.ask("status")["moves"]
    assert len(moves) == len(server.plies) == len(server.entries) or \
        len(moves) == len(server.plies)
    assert board.game()["plies"] == len(server.plies)


def test_the_connection_cut_mid_game_is_resumed(board: OnlineBoard,
                                                standin: LidraughtsStandin) -> None:
    moves = real_moves(8)
    game = opened(board, standin, moves[:4])
    standin.unavailable = True  # the way out gone: every stream dropped, no answer
    standin.cut_streams()
    board.until(lambda: board.online()["link"] == "down", "the link said down")
    status = board.ask("status")
    assert status["online"]["reason"] and "\n" not in status["online"]["reason"]
    assert status["online"]["game"]["move"] is None
    standin.unavailable = False
    standin.wait_for(lambda: standin.streams_open("game") >= 1)
    board.until(lambda: board.online()["link"] == "up", "the link back")
    play_plies(board, standin, game.id, Side.WHITE, moves, first=5)
    same_game(board, standin, game.id)
    assert [m.key for m in standin.games[game.id].plies] == [m.key for m in moves]
    said = [n["link"] for n in journal_notes(board, "online-link")]
    assert said == ["down", "up"], said  # told once each, as it changed


def test_the_connection_cut_mid_capture(board: OnlineBoard,
                                        standin: LidraughtsStandin) -> None:
    """White (the opponent) takes two a step at a time (33-22, 22-31); the streams are cut
    between the steps: the board shows the whole capture once it reads the game again."""
    moves = real_moves(11, index=1)
    capture = moves[10]
    assert len(capture.captured) == 2
    game = opened(board, standin, moves[:10], side=Side.BLACK)
    route = capture.route
    with standin.lock:
        assert standin.games[game.id].step(route[0], route[1], standin.clock.ms) is None
        standin.changed(standin.games[game.id])
    standin.cut_streams()
    with standin.lock:
        assert standin.games[game.id].step(route[1], route[2], standin.clock.ms) is None
    line = board.opponents_move()
    assert line["ply"] == 11 and len(line["captured"]) == 2
    same_game(board, standin, game.id)


def test_a_server_restart_mid_game(board: OnlineBoard, standin: LidraughtsStandin) -> None:
    moves = real_moves(6)
    game = opened(board, standin, moves[:2])
    standin.restart()  # the port closed and opened again, the games kept
    play_plies(board, standin, game.id, Side.WHITE, moves, first=3)
    assert [m.key for m in standin.games[game.id].plies] == [m.key for m in moves]
    same_game(board, standin, game.id)
    standin.resign(game.id)
    assert board.result()["result"] == "2-0"


def test_a_garbage_and_an_oversized_line(board: OnlineBoard,
                                         standin: LidraughtsStandin) -> None:
    moves = real_moves(6)
    game = opened(board, standin, moves[:2])
    standin.send_line(b"{not json at all")
    standin.send_line(b'{"type": "gameState", "moves": ' + b"1" * (8 << 20) + b"}")
    play_plies(board, standin, game.id, Side.WHITE, moves, first=3)
    assert [m.key for m in standin.games[game.id].plies] == [m.key for m in moves]
    assert board.proc is not None
    rss_kib = int(next(line.split()[1] for line in
                       Path(f"/proc/{board.proc.pid}/status").read_text().splitlines()
                       if line.startswith("VmHWM:")))
    assert rss_kib < 200_000, rss_kib  # the 8 MiB line was never held


def test_a_move_the_server_refuses_is_taken_back(board: OnlineBoard,
                                                 standin: LidraughtsStandin) -> None:
    moves = real_moves(4)
    game = opened(board, standin, [])
    server = standin.games[game.id]
    real_step = server.step
    refused: list[int] = []

    def refuse_once(a: int, b: int, now_ms: int) -> str | None:
        if not refused:
            refused.append(a)
            return f"Piece on {a:02d} cannot move to {b:02d}"
        return real_step(a, b, now_ms)

    server.step = refuse_once  # type: ignore[method-assign]
    alg = board.rules.geometry.algebraic
    board.hand(alg(moves[0].start), alg(moves[0].end), [])
    board.sim("press", "white")  # committed, posted, refused: taken back at once
    board.until(lambda: (board.game() or {}).get("irregularity"), "the refusal")
    status = board.ask("status")
    assert status["online"]["game"]["irregularity"]["kind"] == "move-refused"
    assert status["moves"] == []  # taken back: the board waits for another move
    assert alg(moves[0].end) in status["leds"]  # the way back lit (the referee's marks win)
    feed = [r for r in board.feed_lines() if r["type"] == "irregularity"]
    assert feed[-1]["kind"] == "move-refused"
    board.hand(alg(moves[0].end), alg(moves[0].start), [])  # the piece back
    board.until(lambda: not board.game()["irregularity"]
                and board.ask("status")["irregularity"] is None, "the way back done")
    standin.script(game.id, [li_route(moves[1])])
    board.play(moves[0])  # played again: taken this time
    board.opponents_move()
    assert [m.key for m in server.plies] == [m.key for m in moves[:2]]


def test_a_wrong_token_is_one_line_and_the_board_plays_on(tmp_path: Path,
                                                          standin: LidraughtsStandin) -> None:
    secret = "wrong-token-4f9a2c"
    b = OnlineBoard(tmp_path, standin, token=secret)
    try:
        b.until(lambda: b.online()["link"] == "failed", "the link failed")
        reason = b.online()["reason"]
        assert "\n" not in reason and secret not in reason
        b.play(real_moves(1)[0])  # offline: the board referees as ever
        assert len(b.ask("status")["moves"]) == 1
    finally:
        b.stop()
    log = b.stderr()
    assert secret not in log
    assert sum("plays on offline" in line for line in log.splitlines()) == 1
    assert all(secret not in p.read_text(errors="replace") for p in b.state.rglob("*")
               if p.is_file())
