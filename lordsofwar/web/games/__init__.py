"""Games: the game service (positions, clocks, actions, bots), the hub of live sockets, and the game API, pages and socket."""
