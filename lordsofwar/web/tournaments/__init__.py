"""Tournaments: Swiss (FIDE Dutch), round robin (FIDE Berger) and arena events."""
