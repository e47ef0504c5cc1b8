"""The lessons: the /learn hub, the lesson pages and the stateless lesson API (docs/learn.md)."""
