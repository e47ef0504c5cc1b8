"""The lobby: open and direct challenges, answering them, and the lists of games."""
