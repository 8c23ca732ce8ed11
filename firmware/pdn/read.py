"""The PDN reader behind :func:`firmware.pdn.read_games`: a tokenizer for the PDN 3.0 reading
grammar and the sloppy forms real files hold (see :mod:`firmware.pdn` for the list), and the
reader that turns tokens into :class:`~firmware.pdn.PdnGame` objects with errors naming the
file, the game and the line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO

from firmware.errors import PdnError
from firmware.pdn.clock import parse_clock
from firmware.pdn.model import MoveText, PdnGame, Setup, item_label

_SQ = r"(?:[a-jA-J](?:10|[1-9])|[1-9][0-9]?|0[1-9])"
_SEP = r"[-xX:×]"
_END = r"(?=$|[\s\[\]{}();%,])"
_TOKEN = re.compile(
    rf"""
    (?P<ws>\s+)
  | (?P<linecomment>(?:%|;)[^\n]*)
  | (?P<tag>\[\s*(?P<tagname>[A-Za-z][A-Za-z0-9_]*)\s*"(?P<tagvalue>(?:[^"\\\n]|\\.)*)"\s*\])
  | (?P<loosetag>\[\s*(?P<loosename>[A-Za-z][A-Za-z0-9_]*)
        (?:\s*"(?P<quoted>[^\n]*)"|\s+(?P<bare>[^"\]\n]*))\s*\][ \t]*(?=\n|$))
  | (?P<comment>\{{)
  | (?P<setup>/\s*FEN\s*"[^"\n]*"\s*/)
  | (?P<result>(?:1-0|0-1|1/2-1/2|½-½|2-0|0-2|1-1|0-0|\*){_END})
  | (?P<number>[0-9]+(?:\.\.\.|\.|…))
  | (?P<ellipsis>\.\.\.|…)
  | (?P<move>(?P<squares>{_SQ}(?:\s*{_SEP}\s*{_SQ})+|[a-jA-J](?:10|[1-9])[a-jA-J](?:10|[1-9])
        |[0-9]{{4}}(?![0-9]))(?P<glued>\([!?]+\)|[!?*+=]+(?:[0-9]+)?)?(?:\.(?=\s|$))?)
  | (?P<strength>\([!?]+\)|[!?*+=]+(?:[0-9]+)?)
  | (?P<nag>\$[0-9]+)
  | (?P<lparen>\()
  | (?P<rparen>\))
    """,
    re.VERBOSE,
)
class _Token:
    __slots__ = ("kind", "text", "line", "value")

    def __init__(self, kind: str, text: str, line: int, value: str = "") -> None:
        self.kind = kind
        self.text = text
        self.line = line
        self.value = value


def decode(source: str | bytes | IO[str] | IO[bytes]) -> str:
    data: str | bytes = source.read() if hasattr(source, "read") else source  # type: ignore[union-attr]
    if not isinstance(data, str | bytes):
        raise PdnError(f"PDN must be text, bytes or an open file, not {type(data).__name__}")
    if isinstance(data, bytes):
        text = ""
        for encoding in ("utf-8-sig", "cp1252", "latin-1"):
            try:
                text = data.decode(encoding)
                break
            except UnicodeDecodeError:
                continue
    else:
        text = data
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _tokens(text: str, source: str) -> Iterator[_Token]:
    pos, line, n = 0, 1, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            end = pos
            while end < n and not text[end].isspace():
                end += 1
            yield _Token("junk", text[pos:end], line)
            line += text.count("\n", pos, end)
            pos = end
            continue
        kind = m.lastgroup
        assert kind is not None
        start = pos
        if kind == "comment":
            end, closed = _comment_end(text, pos)
            if not closed:
                raise PdnError(f"{source}: line {line}: a comment '{{' is never closed")
            yield _Token("comment", text[pos + 1 : end - 1], line)
            pos = end
        elif kind == "tag":
            value = m.group("tagvalue").replace('\\"', '"').replace("\\\\", "\\")
            yield _Token("tag", m.group("tagname"), line, value)
            pos = m.end()
        elif kind == "loosetag":  # unescaped quotes inside, or no quotes: take the line
            value = m.group("quoted") if m.group("quoted") is not None else m.group("bare")
            yield _Token("tag", m.group("loosename"), line, value.strip())
            pos = m.end()
        elif kind == "move":
            yield _Token("move", m.group("squares"), line, m.group("glued") or "")
            pos = m.end()
        else:
            pos = m.end()
            if kind not in ("ws", "linecomment"):
                yield _Token(kind, m.group(), line)
        line += text.count("\n", start, pos)


def _comment_end(text: str, start: int) -> tuple[int, bool]:
    """End (exclusive) of the comment opening at ``start``: nested braces are balanced; if the
    file never balances them, the first ``}`` closes (the PDN grammar's own rule)."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1, True
        i += 1
    first = text.find("}", start)
    if first < 0:
        return n, False
    return first + 1, True


class Reader:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source

    def games(self) -> Iterator[PdnGame]:
        game: PdnGame | None = None
        index = 0
        ended = False  # the current game has its terminator
        depth = 0
        variation_start = 0
        variation_parts: list[str] = []
        last: MoveText | Setup | None = None
        pending_number: int | None = None
        for tok in _tokens(self.text, self.source):
            if depth > 0:
                if tok.kind == "lparen":
                    depth += 1
                elif tok.kind == "rparen":
                    depth -= 1
                if depth > 0:
                    variation_parts.append(self._token_text(tok))
                else:
                    assert game is not None
                    raw = " ".join(variation_parts)
                    if isinstance(last, MoveText):
                        last.variations.append(raw)
                    else:
                        game.comments.append(f"({raw})")
                continue
            starts_body = tok.kind in ("move", "number", "setup", "ellipsis", "lparen")
            if game is None or (tok.kind == "tag" and (game.body or ended)) or (
                ended and starts_body
            ):
                if game is not None:
                    yield game
                index += 1
                game = PdnGame(self.source, index, tok.line)
                ended = False
                last = None
                pending_number = None
            kind = tok.kind
            if kind == "tag":
                game.tags[tok.text] = tok.value
            elif kind == "comment":
                self._comment(game, last, tok.text)
            elif kind == "setup":
                fen = _setup_fen(tok.text)
                assert fen is not None  # the token is a well-formed setup command
                last = Setup(fen, tok.line)
                game.body.append(last)
            elif kind == "number":
                pending_number = int(tok.text.split(".")[0])
            elif kind == "ellipsis":
                pass
            elif kind == "move":
                last = MoveText(re.sub(r"\s+", "", tok.text), pending_number, tok.line, tok.value)
                pending_number = None
                game.body.append(last)
            elif kind == "strength":
                if tok.text == "*" and not isinstance(last, MoveText):
                    game.result = "*"
                    ended = True
                elif isinstance(last, MoveText):
                    last.strength += tok.text
            elif kind == "nag":
                if isinstance(last, MoveText):
                    last.nags.append(int(tok.text[1:]))
            elif kind == "result":
                game.result = "1/2-1/2" if tok.text == "½-½" else tok.text
                ended = True
            elif kind == "lparen":
                depth = 1
                variation_start = tok.line
                variation_parts = []
            elif kind == "rparen":
                raise PdnError(f"{game.where()}: line {tok.line}: ')' without '('")
            else:
                where = f"after {item_label(last)}" if last is not None else "before the first move"
                shown = tok.text if len(tok.text) <= 40 else tok.text[:40] + "..."
                raise PdnError(f"{game.where()}: line {tok.line}: cannot read {shown!r} {where}")
        if depth > 0:
            assert game is not None
            raise PdnError(
                f"{game.where()}: line {variation_start}: a variation '(' is never closed"
            )
        if game is not None:
            yield game

    @staticmethod
    def _token_text(tok: _Token) -> str:
        if tok.kind == "comment":
            return "{" + tok.text + "}"
        if tok.kind == "tag":
            return f'[{tok.text} "{tok.value}"]'
        return tok.text

    @staticmethod
    def _comment(game: PdnGame, last: MoveText | Setup | None, text: str) -> None:
        comment = text.strip()
        if last is None:
            game.comments.append(comment)
            return
        last.comments.append(comment)
        if isinstance(last, MoveText):
            clock = parse_clock(comment)
            if clock is not None:
                last.clock = clock


def _setup_fen(text: str) -> str | None:
    m = re.fullmatch(r'/\s*FEN\s*"([^"]*)"\s*/', text, re.DOTALL)
    return m.group(1).strip() if m else None


def read_games(
    text: str | bytes | IO[str] | IO[bytes], source: str = "<pdn>"
) -> Iterator[PdnGame]:
    """The games of a PDN text, bytes or open file (text or binary), one by one.

    ``source`` names the file in messages. A text that cannot be read raises PdnError naming the
    file, the game and the line; games before it have been yielded already. Bytes are read as
    UTF-8 (a BOM is dropped), falling back to Windows-1252 as old collections are.
    """
    yield from Reader(decode(text), source).games()
