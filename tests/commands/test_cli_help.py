"""Every ``--help`` prints its ``%`` signs as the reader should see them (issue 11: ``boardctl
relay --help`` printed ``[%%clock]``): argparse %-formats argument help but not descriptions,
so ``%%`` belongs only in argument help."""

from __future__ import annotations

import argparse

import pytest

from boardctl.cli import build_parser


def _all_parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    parser = build_parser()
    found = [("boardctl", parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += sorted(action.choices.items())
    return found


def test_no_help_text_prints_a_doubled_percent() -> None:
    for name, parser in _all_parsers():
        text = parser.format_help()  # also raises on a bare % in an argument's help
        assert "%%" not in text, name


def test_relay_help_shows_the_clock_command_literally() -> None:
    relay = dict(_all_parsers())["relay"]
    assert "[%clock]" in " ".join(relay.format_help().split())


def test_an_unknown_option_is_named_before_a_missing_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36: ``boardctl --frobnicate`` said only "the following arguments are required:
    COMMAND"."""
    from boardctl.cli import main

    for argv, words in ((["--frobnicate"], "unrecognized arguments: --frobnicate"),
                        ([], "required: COMMAND"),
                        (["status", "--frob"], "unrecognized arguments: --frob")):
        with pytest.raises(SystemExit) as done:
            main(argv)
        err = capsys.readouterr().err
        assert done.value.code == 2 and words in err and err.count("\n") == 2, err
