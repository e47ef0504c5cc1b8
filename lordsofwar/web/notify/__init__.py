"""Email notifications for turn-based games (docs/web.md, "Email notifications")."""
