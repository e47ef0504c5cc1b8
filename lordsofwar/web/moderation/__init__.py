"""Reports and moderation (docs/community.md, "Reports and moderation")."""
