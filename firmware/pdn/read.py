"""The PDN reader behind :func:`firmware.pdn.read_games`: a tokenizer for the PDN 3.0 reading
grammar and the sloppy forms real files hold (see :mod:`firmware.pdn` for the list), and the
reader that turns tokens into :class:`~firmware.pdn.PdnGame` objects with errors naming the
file, the game and the line."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import IO

from firmware.errors import PdnError
from firmware.limits import clip
from firmware.pdn.clock import parse_clock
from firmware.pdn.model import MoveText, PdnGame, Setup, item_label

_SQ = r"(?:[a-jA-J](?:10|[1-9])|[1-9][0-9]?|0[1-9])"
_SEP = r"[-xX:×]"
_END = r"(?=$|[\s\[\]{}();%,])"
_TOKEN = re.compile(
    rf"""
    (?P<ws>\s+)
  | (?P<linecomment>(?:%|;)[^\n]*)
  | (?P<tag>\[\s*(?P<tagname>[A-Za-z][A-Za-z0-9_]*)\s*"(?P<tagvalue>(?:[^"\\\n]|\\.)*+)"\s*\])
  | (?P<loosetag>\[\s*(?P<loosename>[A-Za-z][A-Za-z0-9_]*)
        (?:\s*"(?P<quoted>[^\n]*)"|\s+(?P<bare>[^"\]\n]*))\s*\][ \t]*(?=\n|$))
  | (?P<comment>\{{)
  | (?P<setup>/\s*FEN\s*"[^"\n]*"\s*/)
  | (?P<result>(?:1-0|0-1|1/2-1/2|½-½|2-0|0-2|1-1|0-0|\*){_END})
  | (?P<number>[0-9]+(?:\.\.\.|\.|…))
  | (?P<ellipsis>\.\.\.|…)
  | (?P<move>(?P<squares>{_SQ}(?:\s*{_SEP}\s*{_SQ})++|[a-jA-J](?:10|[1-9])[a-jA-J](?:10|[1-9])
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
    data: str | bytes = source.read() if hasattr(source, "read") else source
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
    braces = _Braces(text)
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
            end, closed = braces.comment_end(pos)
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


_BRACE = re.compile(r"[{}]")


class _Braces:
    """Which ``}`` balances each ``{`` of a text, found in one forward pass as the tokenizer
    asks: linear in the text however its comments nest (a scan to the end for each unbalanced
    ``{`` made ``{{}`` x 30,000 take minutes). At most :data:`MAX_PAIRS` pairs are kept ahead
    of the reader; past that, the first ``}`` closes, the PDN grammar's own rule."""

    MAX_PAIRS = 1 << 16

    def __init__(self, text: str) -> None:
        self.text = text
        self._braces = _BRACE.finditer(text)
        self._open: list[int] = []
        self._match: dict[int, int] = {}
        self._done = False

    def comment_end(self, start: int) -> tuple[int, bool]:
        """End (exclusive) of the comment opening at ``start``: nested braces are balanced; if
        the file never balances them, the first ``}`` closes. False: no ``}`` at all."""
        match = self._match
        while start not in match and not self._done:
            brace = next(self._braces, None)
            if brace is None or len(match) > self.MAX_PAIRS:
                self._done = True
                break
            at = brace.start()
            if brace.group() == "{":
                self._open.append(at)
            elif self._open:
                match[self._open.pop()] = at
        end = match.pop(start, None)
        if end is not None:
            return end + 1, True
        first = self.text.find("}", start)
        if first < 0:
            return len(self.text), False
        return first + 1, True


class Reader:
    """The reader's state over one text's tokens: the game being read, the last move or
    setup (where comments, NAGs and variations attach), an open variation."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.game: PdnGame | None = None
        self.index = 0
        self.ended = False  # the current game has its terminator
        self.depth = 0  # how deep in a variation
        self.variation_start = 0
        self.variation_parts: list[str] = []
        self.last: MoveText | Setup | None = None
        self.pending_number: int | None = None

    def games(self) -> Iterator[PdnGame]:
        handler = _ON_TOKEN.get
        for tok in _tokens(self.text, self.source):
            if self.depth > 0:
                self._in_variation(tok)
                continue
            if (self.game is None or self.ended or tok.kind == "tag") and self._starts_a_game(tok):
                if self.game is not None:
                    yield self.game
                self.index += 1
                self.game = PdnGame(self.source, self.index, tok.line)
                self.ended = False
                self.last = None
                self.pending_number = None
            assert self.game is not None
            handler(tok.kind, Reader._unreadable)(self, self.game, tok)
        if self.depth > 0:
            assert self.game is not None
            raise PdnError(
                f"{self.game.where()}: line {self.variation_start}: a variation '(' is never "
                "closed"
            )
        if self.game is not None:
            yield self.game

    def _starts_a_game(self, tok: _Token) -> bool:
        """A tag after a game's moves or terminator, or moves after its terminator."""
        game = self.game
        starts_body = tok.kind in ("move", "number", "setup", "ellipsis", "lparen")
        return (game is None or (tok.kind == "tag" and (bool(game.body) or self.ended))
                or (self.ended and starts_body))

    def _in_variation(self, tok: _Token) -> None:
        """A token inside ``( ... )``: kept as text on the move it follows."""
        if tok.kind == "lparen":
            self.depth += 1
        elif tok.kind == "rparen":
            self.depth -= 1
        if self.depth > 0:
            self.variation_parts.append(self._token_text(tok))
            return
        assert self.game is not None
        raw = " ".join(self.variation_parts)
        if isinstance(self.last, MoveText):
            self.last.variations.append(raw)
        else:
            self.game.comments.append(f"({raw})")

    # -- one token of a game's body (_ON_TOKEN) ----------------------------------------------

    def _tag(self, game: PdnGame, tok: _Token) -> None:
        game.tags[tok.text] = tok.value

    def _comment_token(self, game: PdnGame, tok: _Token) -> None:
        self._comment(game, self.last, tok.text)

    def _setup(self, game: PdnGame, tok: _Token) -> None:
        fen = _setup_fen(tok.text)
        assert fen is not None  # the token is a well-formed setup command
        self.last = Setup(fen, tok.line)
        game.body.append(self.last)

    def _number(self, game: PdnGame, tok: _Token) -> None:
        self.pending_number = self._int(tok, tok.text.split(".")[0], "move number")

    def _ellipsis(self, game: PdnGame, tok: _Token) -> None:
        pass

    def _move(self, game: PdnGame, tok: _Token) -> None:
        self.last = MoveText(re.sub(r"\s+", "", tok.text), self.pending_number, tok.line,
                             tok.value)
        self.pending_number = None
        game.body.append(self.last)

    def _strength(self, game: PdnGame, tok: _Token) -> None:
        if tok.text == "*" and not isinstance(self.last, MoveText):
            game.result = "*"
            self.ended = True
        elif isinstance(self.last, MoveText):
            self.last.strength += tok.text

    def _nag(self, game: PdnGame, tok: _Token) -> None:
        if isinstance(self.last, MoveText):
            self.last.nags.append(self._int(tok, tok.text[1:], "NAG"))

    def _int(self, tok: _Token, digits: str, what: str) -> int:
        """A move number or NAG: PdnError for more digits than any real one has."""
        if len(digits) > 9:
            raise PdnError(f"{self.source}: line {tok.line}: {what} {digits[:12]}... is "
                           "too long")
        return int(digits)

    def _result(self, game: PdnGame, tok: _Token) -> None:
        game.result = "1/2-1/2" if tok.text == "½-½" else tok.text
        self.ended = True

    def _lparen(self, game: PdnGame, tok: _Token) -> None:
        self.depth = 1
        self.variation_start = tok.line
        self.variation_parts = []

    def _rparen(self, game: PdnGame, tok: _Token) -> None:
        raise PdnError(f"{game.where()}: line {tok.line}: ')' without '('")

    def _unreadable(self, game: PdnGame, tok: _Token) -> None:
        last = self.last
        where = f"after {item_label(last)}" if last is not None else "before the first move"
        shown = clip(tok.text, 40)
        raise PdnError(f"{game.where()}: line {tok.line}: cannot read {shown!r} {where}")

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


#: What each kind of token does in a game's body (any other kind cannot be read there).
_ON_TOKEN: dict[str, Callable[[Reader, PdnGame, _Token], None]] = {
    "tag": Reader._tag,
    "comment": Reader._comment_token,
    "setup": Reader._setup,
    "number": Reader._number,
    "ellipsis": Reader._ellipsis,
    "move": Reader._move,
    "strength": Reader._strength,
    "nag": Reader._nag,
    "result": Reader._result,
    "lparen": Reader._lparen,
    "rparen": Reader._rparen,
}


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
