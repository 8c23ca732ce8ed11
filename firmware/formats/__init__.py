"""What the board writes and reads: the event log vocabulary, feed records, feed line framing, the
journal format."""
