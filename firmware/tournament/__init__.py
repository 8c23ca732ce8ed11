"""Round-robin tournaments by seed 004 (1953 Soviet rules, Estonian edition 1955): players and
the drawing of numbers, pairings and colours by the appendix's tables, scores by §37-§38, the
crosstable. Pure: no I/O; the drawing's random generator is passed in.

Modules by concept: :mod:`.tables` (pairings), :mod:`.players`, :mod:`.state` (the organizer's
tournament), :mod:`.results` and :mod:`.scoring` (§37, §38, tie-breaks), :mod:`.games` (results
from PDN games), :mod:`.crosstable` (CSV and HTML), :mod:`.setup` (round setup messages).
"""
