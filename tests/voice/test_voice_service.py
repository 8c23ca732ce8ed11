"""The voice as one of a running service's feed sinks (docs/DESIGN.md "Feed sinks"), as it
can be plugged in today: the service, on its virtual clock, plays a real game's first plies
through the simulated board, and the voice writes what it says as WAV files in order."""

from __future__ import annotations

from pathlib import Path

from support.service_helpers import game_log, run_until, sim_service
from voice_games import need, rms

from boardctl.voice import Voice, VoiceSettings


def test_the_voice_as_a_feed_sink_of_a_running_service(tmp_path: Path) -> None:
    need("espeak-ng", "sox")
    out = tmp_path / "wav"
    voice = Voice(VoiceSettings(enabled=True, lang="et", out_dir=str(out), queue=100),
                  clock=lambda: 0.0).start()
    service, clock = sim_service(tmp_path / "state", game_log(4), sinks=[voice])
    try:
        service.boot()
        run_until(service, clock, 30.0)
        assert voice.wait(60.0)
    finally:
        service.close()
        voice.close()
    names = sorted(p.name for p in out.iterdir())
    assert names == ["0001-game.wav"] + [f"{n:04d}-move.wav" for n in range(2, 6)]
    assert min(rms(out / name) for name in names) > 0.01
    assert voice.status()["damaged"] == 0 and voice.status()["said"] == 5
