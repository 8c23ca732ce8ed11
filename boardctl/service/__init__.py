"""The board's daemon (``boardctl run``): ``service.Service`` composed of its parts, the game in
play, sensing, the data path, the feed and journal, the board's face, the referee's loop and
inbox, the arbiter's desk; the control socket and the hardware (docs/DESIGN.md)."""
