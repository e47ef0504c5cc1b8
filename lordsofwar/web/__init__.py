"""The web platform: accounts, lobby, live and turn-based games in the browser.

The server is the only authority on game state; it rebuilds every position with the rules engine
(:mod:`lordsofwar.rules`) and never re-implements a rule.
"""
