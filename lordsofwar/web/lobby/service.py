"""The lobby's rules: what each player sees in it, posting an invitation (or starting a bot game
at once) and answering one. Every refusal is a Problem with a one-line message."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from lordsofwar import decks
from lordsofwar.bots import BOTS
from lordsofwar.i18n import N_, _
from lordsofwar.rules.cards import CORE
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.decks import service as deckweb
from lordsofwar.web.games.schemas import GameOptions
from lordsofwar.web.games.service import GameService, aborted
from lordsofwar.web.lobby.schemas import NewInvitation
from lordsofwar.web.models import Game, Invitation, User, utcnow
from lordsofwar.web.problem import Problem
from lordsofwar.web.social import service as social
from lordsofwar.web.words import bot_name

OPEN_INVITATIONS = 20
"""Open invitations a player may have at once."""
ACCEPTED_NOTICE = timedelta(minutes=30)
"""How long the lobby tells a challenger that a challenge was accepted."""
WAITING_LISTED = 50
"""Games waiting for a player that the turn counter lists (it counts them all)."""
NOT_OPEN = {
    "accepted": N_("the invitation is no longer open (it was accepted)"),
    "declined": N_("the invitation is no longer open (it was declined)"),
    "cancelled": N_("the invitation is no longer open (it was cancelled)"),
}
"""The refusal to answer an invitation that was answered already, by what became of it."""


async def game_json(db: AsyncSession, g: Game, user: User | None) -> dict[str, Any]:
    """A game as the lobby and profiles list it, for ``user`` (None: a visitor)."""

    async def name(uid: int | None, bot: str | None) -> str:
        if bot:
            return bot_name(bot)
        found = await db.get(User, uid) if uid else None
        return found.name if found else "?"

    seat = None if user is None else (1 if g.player1_id == user.id else 2 if g.player2_id == user.id else None)
    return {
        "id": g.id,
        "players": [await name(g.player1_id, g.bot1), await name(g.player2_id, g.bot2)],
        "armies": g.armies,
        "mode": g.mode,
        "status": g.status,
        "you": seat,
        "your_turn": seat is not None and g.status == "running" and g.waiting_for == seat,
        "deadline": None if g.deadline_at is None else g.deadline_at.isoformat(),
        "turns": len(g.actions),
        "result": None if g.result is None else g.result.to_json(),
        "aborted": aborted(g),
    }


def invitation_json(inv: Invitation, creator: str | None, opponent: str | None) -> dict[str, Any]:
    options = GameOptions.model_validate(inv.options)
    return {
        "id": inv.id,
        "creator": creator,
        "opponent": opponent,
        "options": options.model_dump(),
        "summary": options.summary(),
        "status": inv.status,
        "game": inv.game_id,
        # the creator's custom deck is named by its kind only: its cards stay the creator's secret
        "creator_deck": None if not inv.creator_deck else decks.kind(inv.creator_deck["cards"], CORE),
    }


async def lobby(db: AsyncSession, user: User | None) -> dict[str, Any]:
    """What the lobby shows ``user``: open challenges, challenges to and from them, their games
    (those waiting for them first), public games to watch, and challenges of theirs accepted
    lately (so that the challenger hears of it)."""
    open_rows = await db.execute(
        select(Invitation, User.name)
        .join(User, User.id == Invitation.creator_id)
        .where(Invitation.status == "open", Invitation.opponent_id.is_(None))
        .order_by(Invitation.id.desc())
        .limit(100)
    )
    shown = [(inv, creator) for inv, creator in open_rows]
    if user is not None:  # no open challenge between two players of whom either blocks the other
        hidden = await social.hidden_from(db, user.id, [inv.creator_id for inv, _creator in shown])
        shown = [(inv, creator) for inv, creator in shown if inv.creator_id not in hidden]
    data: dict[str, Any] = {
        "open": [invitation_json(inv, creator, None) for inv, creator in shown],
        "incoming": [],
        "outgoing": [],
        "accepted": [],
        "your_turn": [],
        "running": [],
        "watch": [],
    }

    async def name_of(uid: int | None) -> str | None:
        # the session's identity map keeps each user once: no query twice for the same name
        found = await db.get(User, uid) if uid is not None else None
        return found.name if found else None

    if user is not None:
        invs = await db.scalars(
            select(Invitation)
            .where(
                Invitation.status == "open",
                or_(Invitation.creator_id == user.id, Invitation.opponent_id == user.id),
            )
            .order_by(Invitation.id.desc())
        )
        for inv in invs:
            item = invitation_json(inv, await name_of(inv.creator_id), await name_of(inv.opponent_id))
            (data["outgoing"] if inv.creator_id == user.id else data["incoming"]).append(item)
        data["open"] = [i for i in data["open"] if i["creator"] != user.name]
        accepted = await db.execute(
            select(Invitation.id, Game)
            .join(Game, Game.id == Invitation.game_id)
            .where(
                Invitation.creator_id == user.id,
                Invitation.status == "accepted",
                Game.status == "running",
                Game.created_at >= utcnow() - ACCEPTED_NOTICE,
            )
            .order_by(Invitation.id.desc())
            .limit(20)
        )
        for inv_id, g in accepted:
            by = await name_of(g.player2_id if g.player1_id == user.id else g.player1_id)
            data["accepted"].append({"invitation": inv_id, "game": g.id, "by": by})
        mine = await deckweb.list_decks(db, user)
        data["decks"] = [{k: v for k, v in deckweb.summary(d).items() if k != "cards"} for d in mine]
        fits = deckweb.Choices(mine)
        for item in data["open"] + data["incoming"]:
            if item["options"]["custom_decks"]:  # which of my decks fit, and why the others do not
                item["deck_choices"] = fits(item["options"]["custom_armies"])
        games = await db.scalars(
            select(Game)
            .where(Game.status == "running", or_(Game.player1_id == user.id, Game.player2_id == user.id))
            .order_by(Game.id.desc())
        )
        for g in games:
            item = await game_json(db, g, user)
            data["running"].append(item)
            if item["your_turn"]:
                data["your_turn"].append(item)
    watch = await db.scalars(
        select(Game).where(Game.status == "running", Game.public.is_(True)).order_by(Game.id.desc()).limit(20)
    )
    data["watch"] = [await game_json(db, g, user) for g in watch]
    return data


async def waiting(db: AsyncSession, user: User, exclude: int | None = None) -> dict[str, Any]:
    """The running games waiting for ``user`` to act (``exclude``: a game left out, the one on
    the screen), longest waiting first: one query over the players' indexes, no game rebuilt.
    ``since`` is when the clock that runs began: when the game came to the player, or in a live
    game their last action in this turn."""
    p1, p2 = aliased(User), aliased(User)
    mine = or_(
        and_(Game.player1_id == user.id, Game.waiting_for == 1),
        and_(Game.player2_id == user.id, Game.waiting_for == 2),
    )
    where = [Game.status == "running", mine] + ([] if exclude is None else [Game.id != exclude])
    query = (
        select(Game.id, Game.player1_id, Game.bot1, Game.bot2, Game.mode, Game.since, Game.deadline_at)
        .add_columns(p1.name, p2.name, func.count().over())
        .outerjoin(p1, p1.id == Game.player1_id)
        .outerjoin(p2, p2.id == Game.player2_id)
        .where(*where)
        .order_by(Game.since, Game.id)
        .limit(WAITING_LISTED)
    )
    games, count = [], 0
    for gid, player1, bot1, bot2, mode, since, deadline, name1, name2, total in await db.execute(query):
        bot, name = (bot2, name2) if player1 == user.id else (bot1, name1)
        opponent = bot_name(bot) if bot else name or "?"
        games.append({"id": gid, "opponent": opponent, "mode": mode, "since": since, "deadline": deadline})
        count = total
    return {"count": count, "games": games}


async def invite(
    db: AsyncSession, games: GameService, user: User, body: NewInvitation, deck_copy: dict[str, Any] | None = None
) -> tuple[Invitation | None, Game | None]:
    """Post an invitation (or start a bot game). ``deck_copy`` is a deck already copied (a
    rematch keeps the deck played); else ``body.deck`` is copied now, when it is chosen."""
    options = body.options
    if body.bot is not None and (body.opponent or "").strip():
        raise Problem(400, _("challenge a player or a bot, not both"))
    if options.hints and body.bot is None:
        raise Problem(400, _("hints are only for games against a bot: untick Hints or choose a bot"))
    if body.deck is not None:
        deck_copy = await deckweb.pick(db, user, body.deck, options.custom_decks, list(options.custom_armies))
    if body.bot is not None:
        if body.bot not in BOTS:
            raise Problem(
                400, _("unknown bot {bot!r} (known: {known})").format(bot=body.bot[:20], known=", ".join(BOTS))
            )
        custom = (deck_copy["cards"] if deck_copy else None, None)
        game = await games.create(db, body.options, user, None, body.bot, custom)
        await db.commit()
        games.started(game)
        return None, game
    opponent = None
    wanted = (body.opponent or "").strip()
    if wanted:
        opponent = await accounts.find_user(db, wanted)
        if opponent is None:
            raise Problem(404, _("there is no player called {name!r}").format(name=wanted[:30]))
        if opponent.id == user.id:
            raise Problem(403, _("you cannot challenge yourself"))
        if opponent.bot is not None:
            raise Problem(
                400,
                _("{name} answers no challenges: choose it as the bot to play it at once").format(name=opponent.name),
            )
        if await social.blocked_either(db, user.id, opponent.id):  # who blocks whom stays untold
            raise Problem(403, _("you cannot challenge {name}").format(name=opponent.name), code="blocked")
    pending = await db.scalar(
        select(Invitation.id)
        .where(Invitation.creator_id == user.id, Invitation.status == "open")
        .limit(1)
        .offset(OPEN_INVITATIONS - 1)
    )
    if pending is not None:
        raise Problem(429, _("you have {n} open invitations; cancel some first").format(n=OPEN_INVITATIONS))
    inv = Invitation(
        creator_id=user.id,
        opponent_id=opponent.id if opponent else None,
        status="open",
        options=body.options.model_dump(),
        creator_deck=deck_copy,
    )
    db.add(inv)
    await db.commit()
    return inv, None


ANSWERS = ("accept", "decline", "cancel")


async def answer(
    db: AsyncSession, games: GameService, user: User, inv_id: int, op: str, deck_id: int | None = None
) -> Game | None:
    """Accept, decline or cancel an invitation; the game started by accepting, else None."""
    if op not in ANSWERS:
        raise Problem(400, _("unknown answer {op!r} (accept, decline or cancel)").format(op=op[:20]))
    inv = await db.get(Invitation, inv_id)
    if inv is None:
        raise Problem(404, _("there is no invitation {invitation}").format(invitation=inv_id))
    if inv.status != "open":
        if inv.status in NOT_OPEN:
            raise Problem(409, _(NOT_OPEN[inv.status]))
        raise Problem(409, _("the invitation is no longer open (it was {status})").format(status=inv.status))
    if op == "cancel":
        if inv.creator_id != user.id:
            raise Problem(403, _("only its creator can cancel an invitation"))
        new_status = "cancelled"
    elif op == "decline":
        if inv.opponent_id != user.id:
            raise Problem(403, _("only the challenged player can decline an invitation"))
        new_status = "declined"
    else:
        if inv.creator_id == user.id:
            raise Problem(403, _("you cannot accept your own invitation"))
        if inv.opponent_id is not None and inv.opponent_id != user.id:
            raise Problem(403, _("this challenge is for another player"))
        if await social.blocked_either(db, user.id, inv.creator_id):
            raise Problem(403, _("you cannot accept this challenge"), code="blocked")
        new_status = "accepted"
    if deck_id is not None and op != "accept":
        raise Problem(400, _("a deck goes with accepting, not with {op}").format(op=op))
    options = GameOptions.model_validate(inv.options)
    deck_copy = None
    if deck_id is not None:  # copied into the game now, as it is
        deck_copy = await deckweb.pick(db, user, deck_id, options.custom_decks, list(options.custom_armies))
    done = await db.execute(
        update(Invitation).where(Invitation.id == inv.id, Invitation.status == "open").values(status=new_status)
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        await db.rollback()
        raise Problem(409, _("the invitation was answered meanwhile"))
    game = None
    if op == "accept":
        creator = await db.get(User, inv.creator_id)
        assert creator is not None
        creator_cards = inv.creator_deck["cards"] if inv.creator_deck else None
        custom = (creator_cards, deck_copy["cards"] if deck_copy else None)
        game = await games.create(db, options, creator, user, None, custom)
        inv.game_id = game.id
    await db.commit()
    if game is not None:
        games.started(game)
    return game
