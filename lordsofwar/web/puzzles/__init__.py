"""Puzzles on the web: solving a shipped puzzle, puzzle ratings, the daily puzzle and streak mode
(docs/learn.md, "Puzzles")."""
