"""Learning the game: the rules guide, lessons and puzzles (docs/learn.md)."""
