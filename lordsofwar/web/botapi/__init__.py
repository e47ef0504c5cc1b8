"""The bot API: personal access tokens, bot accounts, ndjson streams and the endpoints a bot acts with."""
