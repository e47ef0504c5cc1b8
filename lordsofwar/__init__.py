"""Lords of War: an exact rules engine, notation and tools for the tactical card game."""

__version__ = "0.1.0"
