"""Players' decks on the web: the deck API (/api/decks), the decks pages, and the choice of a deck for a game."""
