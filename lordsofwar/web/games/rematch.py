"""A rematch: a new game with a finished game's options and the sides swapped, at once against a
bot, else a challenge to the same opponent (it waits in their lobby). A custom deck is played
again as it was in the game.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from lordsofwar.i18n import _
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, CORE_ARMIES
from lordsofwar.rules.state import LENGTHS
from lordsofwar.web.games.runtime import GameError, Runtime
from lordsofwar.web.games.schemas import GameOptions
from lordsofwar.web.games.service import GameService
from lordsofwar.web.lobby import service as lobby
from lordsofwar.web.lobby.schemas import NewInvitation
from lordsofwar.web.models import Game, User


def _custom_of(game: Game) -> dict[str, Any]:
    """Whether the game allowed custom decks, and from which armies: as its options said (games
    made before options were kept: as its decks show)."""
    if game.options:
        return {"custom_decks": game.options["custom_decks"], "custom_armies": game.options["custom_armies"]}
    played = sorted({c.split(":")[0] for deck in game.decks for c in deck} & set(CORE_ARMIES))
    return {
        "custom_decks": any(a not in CORE_ARMIES for a in game.armies),
        "custom_armies": played or list(CORE_ARMIES),
    }


def rematch_options(game: Game, seat: int) -> GameOptions:
    """The options of a finished game for a rematch asked by ``seat``: the same rules, armies
    and time control, the sides swapped."""
    variant = notation.parse_variant(game.variant)
    length = next(
        (k for k, (u, c) in LENGTHS.items() if (u, c) == (variant.units_to_win, variant.commands_to_win)), "20/4"
    )
    return GameOptions.model_validate(
        {
            "rules": variant.rules,
            "hands": variant.hands,
            "mat": variant.mat,
            "length": length,
            "creator_army": game.armies[seat - 1] if game.armies[seat - 1] in CORE_ARMIES else "random",
            "opponent_army": game.armies[2 - seat] if game.armies[2 - seat] in CORE_ARMIES else "random",
            **_custom_of(game),
            "creator_side": str(3 - seat),
            "hints": bool((game.options or {}).get("hints")) and (game.bot1 is not None or game.bot2 is not None),
            "mode": game.mode,
            "minutes": max(1, game.initial_ms // 60_000) if game.mode == "live" else 10,
            "increment": game.increment_ms // 1000 if game.mode == "live" else 10,
            "days": max(1, game.turn_ms // 86_400_000) if game.mode == "turn" else 3,
            "public": game.public,
            "rated": game.rated,
        }
    )


async def rematch(db: AsyncSession, games: GameService, rt: Runtime, user: User) -> dict[str, Any]:
    """Ask for a rematch of the finished game ``rt`` as ``user``, one of its players: against a
    bot the new game (``{"game": id}``), else the challenge (``{"invitation": id, "opponent":
    name}``). Refused (GameError) for a spectator, a running game or an opponent whose account
    is gone."""
    seat = rt.seat_of(user.id)
    if seat is None:
        raise GameError(_("only the players of a game can ask for a rematch"), 403)
    g = rt.game
    if g.status != "over":
        raise GameError(_("the game is still running"), 409)
    options = rematch_options(g, seat)
    bot = rt.bot_of(3 - seat)
    kept = None  # a custom deck is played again, as it was in this game
    if g.armies[seat - 1] not in CORE.armies:
        kept = {"name": g.armies[seat - 1], "cards": list(g.decks[seat - 1])}
    if bot is not None:
        body = NewInvitation(options=options, opponent=None, bot=bot, deck=None)
        _inv, game = await lobby.invite(db, games, user, body, kept)
        assert game is not None
        return {"game": game.id}
    opponent = await db.get(User, g.player2_id if seat == 1 else g.player1_id)
    if opponent is None:
        raise GameError(_("the opponent's account no longer exists"), 404)
    body = NewInvitation(options=options, opponent=opponent.name, bot=None, deck=None)
    inv, _game = await lobby.invite(db, games, user, body, kept)
    assert inv is not None
    return {"invitation": inv.id, "opponent": opponent.name}
