"""The live page of a hall: every board at a glance, in a browser, pushed by the relay.

- :mod:`boardctl.relay.live.model`: pure view model, feed records in (with the time they reached the
  relay), per-board view state out, as it stood at any instant (the public page is the same
  view ``--delay`` minutes earlier); the arbiter's event log. :mod:`boardctl.relay.live.diagram`:
  the pieces, move squares and positions the page draws.
- :mod:`boardctl.relay.live.stream`: Server-Sent Events channels with catch-up by ``Last-Event-ID``.
- :mod:`boardctl.relay.live.web`: the hub that plugs into the relay (``RelayState.observers`` and
the
  HTTP server's ``extra_handlers``) and its routes; the page itself is package data in
  ``static/`` (HTML, JS, CSS: no build step, no CDN, works on a hall LAN without internet).
"""
