"""The voice with a real espeak-ng (issue 40 item 3.2 and 3.3): a short game's utterances
written as WAV files in order and audible (sox's RMS) in each language; espeak-ng missing from
PATH or without an audio device named once while ``say`` goes on returning; a stuck espeak-ng
(a fake command that never ends) holding no caller up, killed by its pid at the stop or at the
deadline on the injected clock; the bounded queue."""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from voice_games import need, rms, short_game

from boardctl.voice import Voice, VoiceSettings
from boardctl.voice.espeak import Espeak
from boardctl.voice.speaker import Speaker
from boardctl.voice.utterances import SpeechQueue, Utterance
from firmware.formats.feed import encode_line

#: A WAV whose RMS amplitude is below this is silence (espeak-ng's speech: 0.05-0.15).
SILENCE = 0.01
KINDS = ["game", "move", "move", "move", "move", "move", "engine-move", "irregularity",
         "cleared", "flag"]


@pytest.fixture(autouse=True)
def _programs() -> None:
    need("espeak-ng", "sox")


class FrozenClock:
    """The injected clock: moves only when the test says."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """A bounded wait for another thread or process to get somewhere."""
    pause = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if predicate():
            return True
        pause.wait(0.01)
    return predicate()


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def fake_espeak(tmp: Path, body: str) -> Path:
    """A command standing in for espeak-ng (the outermost edge): a shell script that, as
    espeak-ng with ``--stdin``, waits for its text (``$text``) before it does anything (it
    is started ahead, the speaker's warm process)."""
    path = tmp / "fake-espeak"
    path.write_text(f"#!/bin/sh\nIFS= read -r text\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("lang", ["en", "et", "ru", "nl", "fr"])
def test_a_short_game_as_wav_files_in_order(lang: str, tmp_path: Path) -> None:
    game = short_game(tmp_path)
    out = tmp_path / "wav"
    voice = Voice(VoiceSettings(enabled=True, lang=lang, out_dir=str(out), queue=32),
                  clock=FrozenClock()).start()
    try:
        for record in game.records:
            voice.say(record)
            assert voice.wait(30.0)  # each said before the next: none made stale
    finally:
        voice.close()
    files = sorted(p.name for p in out.iterdir())
    assert files == [f"{n:04d}-{kind}.wav" for n, kind in enumerate(KINDS, 1)]
    levels = [rms(out / name) for name in files]
    assert all(level > SILENCE for level in levels), levels
    status = voice.status()
    assert status["said"] == len(KINDS) and status["dropped"] == 0 and status["quiet"] is None


def test_numbering_goes_on_after_the_files_there_and_feed_lines_are_taken(
        tmp_path: Path) -> None:
    out = tmp_path / "wav"
    out.mkdir()
    (out / "0041-move.wav").write_bytes(b"")
    voice = Voice(VoiceSettings(enabled=True, out_dir=str(out)), clock=FrozenClock()).start()
    try:
        voice.send(encode_line({"type": "clock", "event": "pause", "clock": None,
                                "running": None}, 7))
        voice.send('{"seq":8,"type":"clock","event":"resume","crc":"00000000"}\n')  # damaged
        assert voice.wait(30.0)
    finally:
        voice.close()
    assert sorted(p.name for p in out.iterdir()) == ["0041-move.wav", "0042-pause.wav"]
    assert voice.status()["damaged"] == 1


def test_a_hushed_voice_says_what_it_had_and_nothing_after(tmp_path: Path) -> None:
    """The board stopping (SIGTERM) hushes the voice first: the clocks paused for the stop
    are its own bookkeeping, not a pause to announce."""
    out = tmp_path / "wav"
    voice = Voice(VoiceSettings(enabled=True, out_dir=str(out)), clock=FrozenClock()).start()
    pause = {"type": "clock", "event": "pause", "clock": None, "running": None}
    try:
        voice.send(encode_line(pause, 7))
        voice.hush()
        voice.send(encode_line(pause, 8))
        assert voice.wait(30.0)
    finally:
        voice.close()
    assert sorted(p.name for p in out.iterdir()) == ["0001-pause.wav"]


def test_espeak_missing_from_path_is_named_once(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    game = short_game(tmp_path)
    voice = Voice(VoiceSettings(enabled=True), clock=FrozenClock())
    try:
        with caplog.at_level(logging.ERROR, logger="boardctl.voice"):
            voice.start()  # named here, at the board's start
            assert voice.status()["quiet"] is not None
            for record in game.records * 3:
                voice.say(record)
            assert voice.wait(30.0)
    finally:
        voice.close()
    errors = [r.getMessage() for r in caplog.records]
    assert len(errors) == 1
    assert errors[0].startswith("voice: cannot run 'espeak-ng': not found")
    assert "apt install espeak-ng" in errors[0]
    status = voice.status()
    assert status["said"] == 0 and status["unsaid"] > 0
    assert status["quiet"] is not None


def test_no_audio_device_is_named_once(tmp_path: Path,
                                       caplog: pytest.LogCaptureFixture) -> None:
    """A real espeak-ng on an ALSA device that is not there: it exits 0 and says so on
    stderr."""
    voice = Voice(VoiceSettings(enabled=True, device="kabelaud_no_such_device"),
                  clock=FrozenClock()).start()
    try:
        with caplog.at_level(logging.ERROR, logger="boardctl.voice"):
            for record in short_game(tmp_path).records:
                voice.say(record)
            assert voice.wait(30.0)
    finally:
        voice.close()
    errors = [r.getMessage() for r in caplog.records]
    assert len(errors) == 1 and "no sound out" in errors[0], errors
    assert "kabelaud_no_such_device" in errors[0] or "PCM" in errors[0]
    assert voice.status()["said"] == 0


def test_a_stuck_espeak_holds_no_caller_and_is_killed_at_stop(tmp_path: Path) -> None:
    """The fake never ends (and has a child of its own); 200 records are handed over while it
    runs, the queue stays bounded, and the stop kills both by the group's pid."""
    pids = tmp_path / "pids"
    fake = fake_espeak(tmp_path, f'sleep 1000 &\necho "$$ $!" > {pids}.new\n'
                       f'mv {pids}.new {pids}\nwait')
    voice = Voice(VoiceSettings(enabled=True, command=str(fake), queue=4),
                  clock=FrozenClock()).start()
    try:
        voice.say({"type": "clock", "event": "pause", "clock": None, "running": None})
        assert wait_until(pids.exists)
        shell, child = (int(x) for x in pids.read_text().split())
        for n in range(200):
            voice.say({"type": "clock", "event": "resume" if n % 2 else "pause",
                       "clock": None, "running": None})
        for ply in range(1, 40):
            voice.say({"type": "move", "ply": ply, "side": "white", "move": "32-28",
                       "fen": "?"})
        assert not voice.wait(0.5)  # still speaking the first
        assert alive(shell) and alive(child)
        assert len(voice.speaker.queue) <= 4
        assert voice.speaker.runner.pid == shell
    finally:
        voice.close()
    assert not alive(shell)  # reaped by the speaker's thread before close() returned
    assert wait_until(lambda: not alive(child), 5.0)  # SIGKILL to the group: on its way
    assert voice.speaker.runner.pid is None


def test_a_stuck_espeak_is_killed_at_the_deadline(tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    """On the injected clock: the first run never ends; once the clock passes the deadline
    it is killed, said in the log, and the next utterance is written."""
    marker, pids = tmp_path / "stuck-once", tmp_path / "pids"
    real = "espeak-ng"
    fake = fake_espeak(tmp_path, f'if [ ! -e {marker} ]; then touch {marker}; '
                       f'echo $$ > {pids}.new; mv {pids}.new {pids}; exec sleep 1000; fi\n'
                       f'printf "%s\\n" "$text" | exec {real} "$@"')
    clock = FrozenClock()
    out = tmp_path / "wav"
    speaker = Speaker(Espeak(command=str(fake)), out, max_seconds=30.0, clock=clock).start()
    try:
        with caplog.at_level(logging.WARNING, logger="boardctl.voice"):
            speaker.put(Utterance("first", "move"))
            speaker.put(Utterance("second", "move"))
            assert wait_until(pids.exists)
            stuck = int(pids.read_text())
            assert not speaker.wait(0.3)
            clock.now += 31.0
            assert speaker.wait(30.0)
    finally:
        speaker.close()
    assert wait_until(lambda: not alive(stuck), 5.0)
    assert speaker.timeouts == 1 and speaker.said == 1 and speaker.quiet is None
    assert [p.name for p in out.iterdir()] == ["0002-move.wav"]
    assert [r.getMessage() for r in caplog.records] == [
        f"voice: {fake} did not end within 30 s: killed (1 so far)"]


def test_a_failing_espeak_makes_the_voice_quiet(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    fake = fake_espeak(tmp_path, 'echo "espeak-ng: voice not found" >&2\nexit 1')
    speaker = Speaker(Espeak(command=str(fake)), tmp_path / "wav", clock=FrozenClock()).start()
    try:
        with caplog.at_level(logging.ERROR, logger="boardctl.voice"):
            for n in range(5):
                speaker.put(Utterance(f"text {n}", "move"))
            assert speaker.wait(30.0)
    finally:
        speaker.close()
    assert [r.getMessage() for r in caplog.records] == [
        f"voice: {fake}: exit status 1: espeak-ng: voice not found: the voice is quiet from "
        "now on (docs/VOICE.md)"]
    assert speaker.said == 0 and speaker.unsaid == 4
    assert list((tmp_path / "wav").iterdir()) == []  # no part file left behind


def test_an_output_directory_that_cannot_be_made(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with caplog.at_level(logging.ERROR, logger="boardctl.voice"):
        speaker = Speaker(Espeak(), blocker / "wav", clock=FrozenClock()).start()
        speaker.put(Utterance("text", "move"))
        speaker.close()
    assert speaker.quiet is not None and "cannot write WAV files" in speaker.quiet
    assert len(caplog.records) == 1 and speaker.unsaid == 1


def test_the_queue_is_bounded_and_keeps_what_matters() -> None:
    q = SpeechQueue(capacity=3)
    q.put(Utterance("move 1", "move"))
    q.put(Utterance("computer", "engine-move", essential=True))
    q.put(Utterance("move 2", "move"))
    q.put(Utterance("wrong", "irregularity", essential=True))  # full: drops "move 1"
    assert q.dropped == 1 and len(q) == 3
    q.put(Utterance("wrong again", "irregularity", essential=True,
                    replaces=frozenset({"irregularity"})))  # the stale one goes, not counted
    assert q.replaced == 1 and q.dropped == 1
    q.put(Utterance("flag", "flag", essential=True))  # full: drops "move 2"
    q.put(Utterance("result", "result", essential=True))  # all essential: drops the oldest
    assert q.dropped == 3
    taken = [q.take(0.0) for _ in range(3)]
    assert [u.text for u in taken if u is not None] == ["wrong again", "flag", "result"]
    assert q.take(0.0) is None
    for _ in taken:
        q.done()
    assert q.join(0.0)
    q.put(Utterance("wrong", "irregularity", essential=True))
    q.put(Utterance("right again", "cleared", replaces=frozenset({"irregularity"}),
                    retracts=True))  # the irregularity was never said: neither is
    assert len(q) == 0 and q.replaced == 3 and q.join(0.0)
    q.put(Utterance("right again", "cleared", replaces=frozenset({"irregularity"}),
                    retracts=True))  # nothing to retract: said
    assert len(q) == 1
    with pytest.raises(ValueError):
        SpeechQueue(0)


def test_say_returns_at_once_while_nothing_runs(tmp_path: Path) -> None:
    """A voice never started (no thread takes anything): ``say`` still returns, and the
    inbox keeps the latest records only."""
    voice = Voice(VoiceSettings(enabled=True), clock=FrozenClock())
    for n in range(1500):
        voice.say({"type": "move", "ply": n, "side": "white", "move": "32-28"})
    assert voice.lost == 500
    voice.close()
    assert os.environ.get("PATH")  # the other tests' PATH is untouched


def test_the_warm_process_says_each_announcement_whole_and_in_order(tmp_path: Path) -> None:
    """Each utterance goes to the espeak-ng started ahead (its pid known before the text),
    whole (spaces, accents, Cyrillic), in order; the real espeak-ng's WAV from stdin is the
    one its command line makes of the same text."""
    log = tmp_path / "said"
    fake = fake_espeak(tmp_path, f'printf "%s %s\\n" "$$" "$text" >> {log}')
    texts = ["white, thirty two to twenty eight", "Valge: 32–28, ééé", "белые: 32-28", "x"]
    speaker = Speaker(Espeak(command=str(fake)), clock=FrozenClock()).start()
    try:
        assert wait_until(lambda: speaker.runner.warm_pid is not None)
        first = speaker.runner.warm_pid
        for text in texts:
            speaker.put(Utterance(text, "move"))
        assert speaker.wait(30.0)
        assert wait_until(lambda: speaker.runner.warm_pid not in (None, first))
    finally:
        speaker.close()
    lines = log.read_text(encoding="utf-8").splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == texts
    assert int(lines[0].split()[0]) == first and speaker.said == len(texts)
    out = tmp_path / "wav"
    real = Speaker(Espeak(voice="en"), out, clock=FrozenClock()).start()
    try:
        real.put(Utterance(texts[0], "move"))
        assert real.wait(30.0)
    finally:
        real.close()
    by_argv = tmp_path / "argv.wav"
    subprocess.run(Espeak(voice="en").argv(texts[0], by_argv), check=True)
    assert (out / "0001-move.wav").read_bytes() == by_argv.read_bytes()


def test_a_warm_process_killed_between_moves_loses_no_announcement(tmp_path: Path) -> None:
    """The process waiting for the next move killed (by its pid, at once before the move):
    the move is still said, by a new process; and the one after it."""
    out = tmp_path / "wav"
    speaker = Speaker(Espeak(), out, clock=FrozenClock()).start()
    try:
        speaker.put(Utterance("first move", "move"))
        assert speaker.wait(30.0)
        for _ in range(2):
            assert wait_until(lambda: speaker.runner.warm_pid is not None)
            warm = speaker.runner.warm_pid
            assert warm is not None
            os.kill(warm, signal.SIGKILL)  # no waiting for it to be gone
            speaker.put(Utterance("next move", "move"))
            assert speaker.wait(30.0)
            assert not alive(warm)
    finally:
        speaker.close()
    assert speaker.quiet is None and speaker.said == 3
    names = sorted(p.name for p in out.iterdir())
    assert names == ["0001-move.wav", "0002-move.wav", "0003-move.wav"]
    assert min(rms(out / name) for name in names) > SILENCE


def test_close_stops_the_warm_process(tmp_path: Path) -> None:
    speaker = Speaker(Espeak(), tmp_path / "wav", clock=FrozenClock()).start()
    assert wait_until(lambda: speaker.runner.warm_pid is not None)
    warm = speaker.runner.warm_pid
    assert warm is not None and alive(warm)
    speaker.close()
    assert speaker.runner.warm_pid is None and not alive(warm)
    assert not Path(f"/proc/{warm}").exists()  # reaped too: no process left
