"""Play on lidraughts through its Bot API (issue 41): the network side of an opponent who is
not at the board, on the standard library alone, apart from the service.

The player the service plugs in holds a :class:`LidraughtsLink` (``link.start()``), drains
its events on the referee's thread (``link.poll()``: :mod:`boardctl.online.events`) and acts
on the game through ``link.game`` (:class:`OnlineGame`: ``post_move``, ``resign``,
``offer_draw``, ``answer_draw``, ``abort``), none of which waits on the network.

Modules: ``settings`` (the options), ``token``, ``transport`` (HTTP), ``ndjson`` (framing),
``streams`` (a thread per stream, reconnecting), ``fields`` (typed reads of the server's
JSON), ``variants`` (variants, clocks, decline reasons), ``moves`` (moves both ways),
``tracker`` (the game as the server shows it: pure), ``poster`` (the board's requests,
reconciled after a lost answer), ``policy`` (which challenges to take), ``challenges``
(answering and sending them), ``game``, ``link``, ``worker``, ``events``, ``errors``.
docs/ONLINE.md is the user's side.
"""

from boardctl.online.errors import LinkError, OnlineError, ProtocolError
from boardctl.online.game import OnlineGame
from boardctl.online.link import LidraughtsLink
from boardctl.online.settings import OnlineSettings

__all__ = ["LidraughtsLink", "LinkError", "OnlineError", "OnlineGame", "OnlineSettings",
           "ProtocolError"]
