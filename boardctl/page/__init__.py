"""The board's own page (docs/PAGE.md): ``boardctl run ... --http HOST:PORT`` serves, from the
service's process, a page for a phone on the home network: the game live (the diagram, both
clocks ticking, the moves, irregularities and what the LEDs ask for, the engine's or a remote
side's move to carry out, a hint, resign and a draw offer), the next game's settings, and every
game the board holds to step through and download as PDN; JSON endpoints beside it.

Parts, each handed what it uses:

- :mod:`boardctl.page.settings`: ``--http``, ``--http-password-file`` and the config's ``[http]``
  read once (the password file too).
- :mod:`boardctl.page.gate`: who may change and read (the password, sessions, the slowdown of
  wrong passwords).
- :mod:`boardctl.page.view`: the page's state from the service's ``status`` (pure).
- :mod:`boardctl.page.live`: a feed sink and the thread that turns feed lines into state events
  on the page's Server-Sent Events channel (the relay's stream loop writes every viewer).
- :mod:`boardctl.page.archive`: the games in the state directory (list, PDN as ``boardctl
  export`` gives it, the positions after each ply).
- :mod:`boardctl.page.api` and :mod:`boardctl.page.routes`: the HTTP requests, on the relay's
  HTTP server (boardctl.relay.http) as one of its ``extra_handlers``.
- :mod:`boardctl.page.server`: the page assembled and tied to the service (``BoardPage``).

Nothing here runs on the referee's thread or waits for it beyond ``Service.command`` (whose
``status`` the service caches): the board never waits for a page.
"""
