"""The pure rules core: cards, mat geometry, positions, legal actions, notation."""
