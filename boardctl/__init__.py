"""The hands of the board: the ``boardctl`` command line and the service loop."""
