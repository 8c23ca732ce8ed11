"""Opponents not at the board (issue 41): players of the door (boardctl.service.door) whose
moves come over a network: lidraughts (``lidraughts``), another board (``board``); ``shown``
is what the board shows of either, ``lineup`` seats them."""
