"""Learning from your mistakes (/learn/mistakes/{game}): the decisions a game's analysis flagged as your mistakes, as exercises."""
