"""The built-in draughts engine (pure: no I/O, time passed in) and the Hub protocol codec."""
