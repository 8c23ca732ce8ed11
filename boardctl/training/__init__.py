"""Training on the board (issue 42, docs/TRAINING.md): guess the move of a master game and
puzzles, each a player of the player door (``boardctl.service.door``)."""
