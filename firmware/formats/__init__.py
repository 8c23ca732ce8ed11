"""What the board writes and reads: the event log vocabulary, the feed's typed records and
their one reader (a line read once, at the edge), feed line framing, the scoresheet, the
journal format."""
