"""Game chat: the players' and the spectators' rooms of a game, and their abuse limits."""
