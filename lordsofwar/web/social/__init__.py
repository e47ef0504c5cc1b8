"""Friends, presence and blocking (docs/community.md)."""
