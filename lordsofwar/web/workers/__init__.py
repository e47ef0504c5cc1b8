"""Search workers over Redis Streams: the bots' turns, hints and analysis decisions of every
server process, taken from a queue by ``lordsofwar worker`` processes on any machine that reaches
Redis (docs/web.md, "Search workers"; docs/deploy.md, "Workers")."""
