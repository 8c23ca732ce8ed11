"""The board's brain: rules, notation, move inference, clock, game record, feed and journal formats.

Pure logic with no I/O and no hardware import; time is passed in as monotonic nanoseconds.
Submodules are imported on demand so that ``import firmware`` stays cheap on a Pi Zero 2.
"""

__version__ = "0.1.0"
