"""The hands of the board: the ``boardctl`` command line and the service loop."""

from boardctl import logs

logs.setup()  # the boardctl and hw loggers' one handler: a line on stderr (journald-aware)
