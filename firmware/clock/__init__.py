"""The game clock: time controls, the two-face clock and its arithmetic, corrections, what a face
shows."""
