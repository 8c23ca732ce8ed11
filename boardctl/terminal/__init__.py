"""The board in a terminal: ``boardctl watch`` and ``boardctl play`` (issue 29)."""
