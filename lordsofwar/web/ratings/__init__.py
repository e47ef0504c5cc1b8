"""Ratings: OpenSkill ratings per pool, updated once when a rated game ends; leaderboards and
rating histories."""
