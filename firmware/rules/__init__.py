"""The rules core: squares, rule sets, positions and moves, FEN, perft, notation, the end of a
game and the draw rules."""
