"""Legal actions and their effects: the one place where each rule lives.

Section numbers in docstrings refer to ``clarifications.md``, the decisions on the rule texts.
The turn (notation.md section 4): declared shots, one deployment, berserker advances, then
moves and fired shots, then one reinforcement (draw, recall or pass).

Every function takes a :class:`~lordsofwar.rules.position.BasePosition`;
:class:`~lordsofwar.rules.state.Position` has the main ones as methods (``legal_actions``,
``push``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from lordsofwar.rules import mat
from lordsofwar.rules.actions import DRAW, PASS, Action, Event, parse_action
from lordsofwar.rules.errors import HiddenInformationError, IllegalActionError, InvalidActionError, Refusal
from lordsofwar.rules.events import ResultEvent
from lordsofwar.rules.i18n import _
from lordsofwar.rules.position import (
    DEPLOYED,
    ENGAGED_AT_START,
    HAND_LIMIT,
    MOVED,
    SHOT,
    SUPPORTED,
    TOOK_PART,
    AdvanceRound,
    BasePosition,
    Result,
    Termination,
    UnitKind,
    kinds_of,
    unit_kind,
)

_NEIGHBOURS = mat.NEIGHBOUR_DELTAS
_ON_MAT = mat.ON_MAT
_PRINTED_SQUARES = sorted(mat.ON_MAT)


# --- engagement (2) --------------------------------------------------------------------------


def engaged(pos: BasePosition, sq: int, owner: int | None = None) -> bool:
    """2.2: a unit of ``owner`` on ``sq`` is engaged when an enemy arrow points at it.

    Without ``owner``, asks about the unit on ``sq`` (from the position's engagement map);
    with it, works for any square, empty or not.
    """
    if owner is None:
        return sq in pos.attackers
    board = pos.board
    for d in _NEIGHBOURS:
        w = board.get(sq + d)
        if w is not None and w.owner != owner and -d in w.attack_at:
            return True
    return False


def engaged_by_spear(pos: BasePosition, sq: int) -> bool:
    """7.3: a spear unit's arrow points at the unit on ``sq``."""
    board = pos.board
    return any(board[s].is_spear for s, _ in pos.attackers.get(sq, ()))


def _kind(pos: BasePosition, card_id: str, owner: int) -> UnitKind:
    return unit_kind(pos.cards.card(card_id), owner)


# --- deployment (1.3, 3) ---------------------------------------------------------------------

_new_action = tuple.__new__


def _adjacent_empty(pos: BasePosition, player: int) -> tuple[dict[int, None], dict[int, int], bool]:
    """Empty squares next to ``player``'s units, empty squares next to enemy units (with the
    directions that point from each at an enemy), and whether any enemy unit is on the mat."""
    board = pos.board
    friend_adj = {t: None for t in pos.near[player] if t not in board}
    enemy_near = pos.near[3 - player]
    enemy_adj = {t: m for t, m in enemy_near.items() if t not in board}
    return friend_adj, enemy_adj, bool(enemy_near)


class _DeployActions(dict[int, Action]):
    """Square -> the ``deploy`` action of one card there, made on first use and shared."""

    __slots__ = ("card",)

    def __init__(self, card: str):
        super().__init__()
        self.card = card

    def __missing__(self, square: int) -> Action:
        action = self[square] = _new_action(Action, ("deploy", self.card, None, square))
        return action


class _DeployActionsByCard(dict[str, _DeployActions]):
    def __missing__(self, card: str) -> _DeployActions:
        table = self[card] = _DeployActions(card)
        return table


_DEPLOY_ACTIONS = _DeployActionsByCard()


def _deploy_actions(card: str, squares: Iterable[int]) -> list[Action]:
    """``deploy`` actions of ``card`` on ``squares``."""
    return list(map(_DEPLOY_ACTIONS[card].__getitem__, squares))


def deploy_options(pos: BasePosition, player: int, turn: int) -> tuple[list[Action], bool]:
    """The legal deployments of ``player`` at the start of turn ``turn``.

    Returns the ``deploy`` actions and whether they are a forced deployment (3.4). Turns 1 and
    2 are the openings on the squares marked 1 and 2 (1.3).
    """
    hand = pos.hands[player]
    if not hand:
        return [], False
    if None in hand:
        raise HiddenInformationError(f"player {player}'s hand is hidden in this view")
    uniq: list[str] = list(dict.fromkeys(hand))  # type: ignore[arg-type]
    board = pos.board
    options: list[Action] = []
    if turn <= 2:
        sq = mat.OPENING_SQUARE[1 if turn == 1 else 2]
        if sq not in board:
            for c in uniq:
                options += _deploy_actions(c, (sq,))
        return options, False
    if not board:  # 3.1 special free deployment
        for c in uniq:
            options += _deploy_actions(c, _PRINTED_SQUARES)
        return options, False
    friend_adj, enemy_adj, has_enemy = _adjacent_empty(pos, player)
    if not has_enemy:  # 3.2 free deployment
        for c in uniq:
            options += _deploy_actions(c, friend_adj)
        return options, False
    kinds = kinds_of(pos.cards, player)
    adj_items = list(enemy_adj.items())
    pointing = enemy_adj.get
    for c in uniq:
        k = kinds[c]
        mask = k.dirmask
        table = _DEPLOY_ACTIONS[c]
        options += [table[s] for s, m in adj_items if m & mask]  # 3.3 the Engagement Rule
        if k.is_support:  # 3.3 a support unit next to a friend (squares not counted above)
            options += [table[s] for s in friend_adj if not pointing(s, 0) & mask]
    if options:
        return options, False
    for c in uniq:  # 3.4 forced deployment
        options += _deploy_actions(c, enemy_adj)
    return options, True


def could_deploy(pos: BasePosition, player: int, turn: int) -> bool:
    """Whether :func:`deploy_options` would offer anything, without listing the options."""
    hand = pos.hands[player]
    if not hand:
        return False
    board = pos.board
    if turn <= 2:
        return mat.OPENING_SQUARE[1 if turn == 1 else 2] not in board
    if not board:
        return True
    for t in pos.near[3 - player]:  # fast path: an empty square next to an enemy unit
        if t not in board:
            return True
    friend_adj, enemy_adj, has_enemy = _adjacent_empty(pos, player)
    if enemy_adj:
        return True  # some card engages, or else the deployment is forced (3.4)
    if not friend_adj:
        return False
    if not has_enemy:
        return True
    if None in hand:
        raise HiddenInformationError(f"player {player}'s hand is hidden in this view")
    return any(pos.cards.card(c).is_support for c in hand)  # type: ignore[arg-type]


def _deploys(pos: BasePosition) -> list[Action]:
    if pos.deploys is None:
        pos.deploys, pos.forced = deploy_options(pos, pos.to_move, pos.turn)
    return pos.deploys


def _resolve_start(pos: BasePosition) -> None:
    """3.4: with no deployment possible the turn goes straight to the post-deployment phase."""
    if pos.phase == "pre" and not _deploys(pos):
        pos.phase = "post"


# --- shooting (5) ----------------------------------------------------------------------------


def can_shoot(pos: BasePosition, sq: int) -> bool:
    """5.1-5.2: may the active player's ranged unit on ``sq`` shoot now?"""
    if pos.turn <= 2:
        return False  # 1.3: no shots in the opening turns
    f = pos.flags.get(sq, 0)
    if f & (SHOT | TOOK_PART | ENGAGED_AT_START):
        return False
    if f & DEPLOYED and not f & SUPPORTED:
        return False
    return sq not in pos.attackers


def _shots(pos: BasePosition) -> list[Action]:
    out: list[Action] = []
    board = pos.board
    player = pos.to_move
    for s in pos.ranged[player]:
        if can_shoot(pos, s):
            for d in board[s].targets:
                t = s + d
                w = board.get(t)
                if w is not None and w.owner != player:
                    out.append(_new_action(Action, ("shoot", None, s, t)))
    return out


# --- moving, recall, reinforcement (7) --------------------------------------------------------


def _moves(pos: BasePosition) -> list[Action]:
    """7.1: each moving unit once per turn, one step along a movement arrow, while not engaged."""
    out: list[Action] = []
    board = pos.board
    player = pos.to_move
    bordered = pos.variant.bordered
    for s, u in board.items():
        if u.owner == player and u.moves and not pos.flags.get(s, 0) & MOVED and s not in pos.attackers:
            for d in u.moves:
                t = s + d
                if t not in board and (t in _ON_MAT if bordered else mat.in_bounds(t)):
                    out.append(_new_action(Action, ("move", None, s, t)))
    return out


def recallable(pos: BasePosition, sq: int, flags: int | None = None) -> bool:
    """7.2-7.3: may the unit on ``sq`` be recalled into its owner's hand?"""
    u = pos.board[sq]
    f = pos.flags.get(sq, 0) if flags is None else flags
    if f & DEPLOYED:
        return False
    if u.is_cavalry and pos.variant.intermediate:
        return not engaged_by_spear(pos, sq)
    return not f & TOOK_PART and sq not in pos.attackers


def _reinforcements(pos: BasePosition) -> list[Action]:
    """7.2: draw, recall (see :func:`recallable`) or, when neither is possible, pass."""
    player = pos.to_move
    if len(pos.hands[player]) >= HAND_LIMIT:
        return [PASS]
    out: list[Action] = []
    if pos.decks[player]:
        out.append(DRAW)
    for s, u in pos.board.items():
        if u.owner == player and recallable(pos, s):
            out.append(_new_action(Action, ("recall", None, s, None)))
    return out or [PASS]


# --- berserker advances (6) ------------------------------------------------------------------


def _waiting(pos: BasePosition, owner: int) -> dict[int, list[int]]:
    adv = pos.advance
    assert adv is not None
    board = pos.board
    out: dict[int, list[int]] = {}
    for b, squares in adv.candidates.items():
        if board[b].owner == owner:
            free = [t for t in squares if t not in adv.taken]
            if free:
                out[b] = free
    return out


def _advance_choices(pos: BasePosition) -> list[Action]:
    """6.2 and 6.4: the (berserker, square) pairs the owner may choose from."""
    adv = pos.advance
    if adv is None or not adv.owners:
        return []
    waiting = _waiting(pos, adv.owners[0])
    for b in waiting:
        if pos.flags.get(b, 0) & DEPLOYED:
            return [Action("advance", None, b, t) for t in waiting[b]]
    return [Action("advance", None, b, t) for b, ts in waiting.items() for t in ts]


def _auto_advances(pos: BasePosition, owner: int, events: list[Event]) -> bool:
    """6.4: make the advances that leave no choice; True when the owner must choose."""
    while True:
        waiting = _waiting(pos, owner)
        if not waiting:
            return False
        deployed = [b for b in waiting if pos.flags.get(b, 0) & DEPLOYED]
        if deployed:
            b = deployed[0]
            if len(waiting[b]) == 1:
                _do_advance(pos, b, waiting[b][0], events)
                continue
            return True
        single = None
        for b, ts in waiting.items():
            if len(ts) == 1 and not any(ts[0] in ts2 for b2, ts2 in waiting.items() if b2 != b):
                single = (b, ts[0])
                break
        if single is None:
            return True
        _do_advance(pos, single[0], single[1], events)


def _relocate(pos: BasePosition, src: int, dst: int) -> None:
    """Move a unit and everything this turn knows about it from ``src`` to ``dst``."""
    pos.place(dst, pos.remove(src))
    f = pos.flags.pop(src, None)
    if f is not None:
        pos.flags[dst] = f
    d = pos.shot_damage.pop(src, None)
    if d is not None:
        pos.shot_damage[dst] = d
    st = pos.shot_target
    if st:
        t = st.pop(src, None)
        if t is not None:
            st[dst] = t
        for shooter, target in st.items():
            if target == src:
                st[shooter] = dst


def _do_advance(pos: BasePosition, b: int, t: int, events: list[Event]) -> None:
    adv = pos.advance
    assert adv is not None
    unit = pos.board[b]
    _relocate(pos, b, t)
    del adv.candidates[b]
    adv.taken.add(t)
    adv.advanced = True
    events.append({"type": "advance", "from": mat.name(b), "to": mat.name(t), "owner": unit.owner, "card": unit.id})


def _resolve_advances(pos: BasePosition, events: list[Event]) -> None:
    """6.3: run advance rounds, each followed by a check, until none is due or a choice waits."""
    while pos.advance is not None:
        adv = pos.advance
        while adv.owners:
            if _auto_advances(pos, adv.owners[0], events):
                pos.phase = "advance"
                return
            adv.owners.pop(0)
        pos.advance = None
        if adv.advanced:
            _after_check(pos, check(pos, events))
    pos.phase = "post"


def _after_check(pos: BasePosition, candidates: dict[int, list[int]]) -> None:
    if candidates:
        board = pos.board
        owners = [o for o in (pos.to_move, 3 - pos.to_move) if any(board[b].owner == o for b in candidates)]
        pos.advance = AdvanceRound(owners, candidates)


# --- combat (4) ------------------------------------------------------------------------------


def damage(pos: BasePosition) -> dict[int, int]:
    """4.1: every engaged or shot unit's damage now: enemy arrows pointing at it plus shots.

    A ranged unit that has shot this turn deals no melee damage (5.5), though it still engages.
    """
    dmg: dict[int, int] = dict(pos.shot_damage)
    shooters = [s for s, f in pos.flags.items() if f & SHOT]
    for t, found in pos.attackers.items():
        if shooters:
            total = sum(v for s, v in found if s not in shooters)
        elif len(found) == 1:
            total = found[0][1]
        else:
            total = sum(v for _, v in found)
        if total:
            dmg[t] = dmg.get(t, 0) + total
    return dmg


def _attackers(pos: BasePosition, targets: Iterable[int]) -> dict[int, list[int]]:
    """The units whose arrows count in the damage of each unit on ``targets`` (4.4, 5.5)."""
    flags = pos.flags
    attackers = pos.attackers
    return {t: [s for s, _ in attackers.get(t, ()) if not flags.get(s, 0) & SHOT] for t in targets}


def check(pos: BasePosition, events: list[Event]) -> dict[int, list[int]]:
    """4.1-4.5: eliminate, all at once, every unit whose damage exceeds its defence.

    Marks the units that took part (4.4) and returns the berserkers due to advance (6.1):
    berserker square -> squares of the enemy units it helped eliminate.
    """
    board = pos.board
    doomed = sorted(t for t, v in damage(pos).items() if v > board[t].defence)
    if not doomed:
        return {}
    doomed_set = set(doomed)
    contrib = _attackers(pos, doomed)
    part: set[int] = set()
    candidates: dict[int, list[int]] = {}
    intermediate = pos.variant.intermediate
    for t in doomed:
        for s in contrib.get(t, ()):
            part.add(s)
            if intermediate and s not in doomed_set and board[s].is_berserker:
                candidates.setdefault(s, []).append(t)
    for shooter, target in pos.shot_target.items():
        if target in doomed_set:
            part.add(shooter)
    flags = pos.flags
    for t in doomed:
        u = pos.remove(t)
        pos.lost[u.owner].append(u.id)
        flags.pop(t, None)
        pos.shot_damage.pop(t, None)
        if u.is_general:
            pos.generals_lost |= 1 << u.owner
        events.append({"type": "eliminated", "square": mat.name(t), "card": u.id, "owner": u.owner})
    if pos.shot_target:
        pos.shot_target = {s: t for s, t in pos.shot_target.items() if t not in doomed_set and s not in doomed_set}
    for s in part:
        if s not in doomed_set:
            flags[s] = flags.get(s, 0) | TOOK_PART
    pos.eliminated = True
    return {b: ts for b, ts in candidates.items() if b not in pos.attackers}


# --- the turn --------------------------------------------------------------------------------


def start_turn(pos: BasePosition) -> None:
    """Reset the turn state for ``to_move`` and note which ranged units start engaged (5.2)."""
    pos.phase = "pre"
    pos.flags = {}
    pos.shot_damage = {}
    pos.shot_target = {}
    pos.generals_lost = 0
    pos.eliminated = False
    pos.forced = False
    pos.advance = None
    pos.in_turn = False
    pos.deploys = None
    pos.legal = None
    player = pos.to_move
    attackers = pos.attackers
    for s in pos.ranged[player]:
        if s in attackers:
            pos.flags[s] = ENGAGED_AT_START


def legal_actions(pos: BasePosition) -> list[Action]:
    """Every legal action of the player who must act now (``pos.decider``)."""
    legal = pos.legal
    if legal is None:
        legal = pos.legal = _compute_legal(pos)
    return list(legal)


def _compute_legal(pos: BasePosition) -> list[Action]:
    if pos.result is not None:
        return []
    _resolve_start(pos)
    phase = pos.phase
    if phase == "advance":
        return _advance_choices(pos)
    if phase == "pre":
        return _shots(pos) + _deploys(pos)
    return _shots(pos) + _moves(pos) + _reinforcements(pos)


def is_legal(pos: BasePosition, action: Action) -> bool:
    """True when ``action`` is one of :func:`legal_actions`."""
    legal = pos.legal
    if legal is None:
        legal = pos.legal = _compute_legal(pos)
    return action in legal


def push(pos: BasePosition, action: Action | str) -> list[Event]:
    """Apply one legal action in place; an illegal one raises and changes nothing."""
    if isinstance(action, str):
        action = parse_action(action, pos)
    if not is_legal(pos, action):
        raise refuse(pos, action)
    pos.legal = None
    events: list[Event] = []
    pos.in_turn = True
    k = action.kind
    if k == "deploy":
        _deploy(pos, action.card, action.to, events)  # type: ignore[arg-type]
    elif k == "shoot":
        _shoot(pos, action.frm, action.to, events)  # type: ignore[arg-type]
    elif k == "advance":
        _do_advance(pos, action.frm, action.to, events)  # type: ignore[arg-type]
        _resolve_advances(pos, events)
    elif k == "move":
        _move(pos, action.frm, action.to, events)  # type: ignore[arg-type]
    elif k == "recall":
        sq = action.frm
        u = pos.remove(sq)  # type: ignore[arg-type]
        pos.flags.pop(sq, None)  # type: ignore[arg-type]
        pos.shot_target.pop(sq, None)  # type: ignore[arg-type]
        pos.hands[pos.to_move].append(u.id)
        events.append({"type": "recall", "square": mat.name(sq), "card": u.id, "player": pos.to_move})  # type: ignore[arg-type]
        _end_turn(pos, events)
    elif k == "draw":
        pos.hands[pos.to_move].append(pos.decks[pos.to_move].pop(0))
        events.append({"type": "draw", "player": pos.to_move})
        _end_turn(pos, events)
    else:
        events.append({"type": "pass", "player": pos.to_move})
        _end_turn(pos, events)
    return events


def _deploy(pos: BasePosition, card: str, sq: int, events: list[Event]) -> None:
    """3: place the card; 3.4 reveals the hand of a forced deployment; then the check (4.2)."""
    player = pos.to_move
    hand = pos.hands[player]
    if pos.forced:
        events.append({"type": "reveal", "player": player, "hand": list(hand)})
    hand.remove(card)
    supported = sq in pos.near[player]  # 5.2: placed adjacent to a friendly unit
    pos.place(sq, kinds_of(pos.cards, player)[card])
    pos.flags[sq] = DEPLOYED | (SUPPORTED if supported else 0)
    pos.deploys = []
    events.append({"type": "deploy", "card": card, "square": mat.name(sq), "player": player, "forced": pos.forced})
    pos.phase = "post"
    _after_check(pos, check(pos, events))
    _resolve_advances(pos, events)


def _shoot(pos: BasePosition, frm: int, to: int, events: list[Event]) -> None:
    """5.3-5.4: a declared shot waits for the deployment's check; a fired one runs a check."""
    shooter = pos.board[frm]
    pos.flags[frm] = pos.flags.get(frm, 0) | SHOT
    pos.shot_damage[to] = pos.shot_damage.get(to, 0) + shooter.damage
    pos.shot_target[frm] = to
    declared = pos.phase == "pre"
    events.append(
        {
            "type": "shot",
            "from": mat.name(frm),
            "target": mat.name(to),
            "damage": shooter.damage,
            "declared": declared,
            "card": shooter.id,
            "target_card": pos.board[to].id,
        }
    )
    if not declared:
        _after_check(pos, check(pos, events))
        _resolve_advances(pos, events)


def _move(pos: BasePosition, frm: int, to: int, events: list[Event]) -> None:
    """7.1: one step, then a check."""
    _relocate(pos, frm, to)
    pos.flags[to] = pos.flags.get(to, 0) | MOVED
    events.append(
        {"type": "move", "from": mat.name(frm), "to": mat.name(to), "owner": pos.to_move, "card": pos.board[to].id}
    )
    _after_check(pos, check(pos, events))
    _resolve_advances(pos, events)


# --- the end of a turn and of the game (7.4, 8) ------------------------------------------------


def commands_eliminated(pos: BasePosition, player: int) -> int:
    """Enemy command units (general + command rank) that ``player`` has eliminated."""
    lost = pos.lost[3 - player]
    counted, count = pos.command_counts[3 - player]
    if counted > len(lost):
        counted = count = 0
    if counted < len(lost):
        count += sum(map(pos.cards.command_ids.__contains__, lost[counted:]))
        pos.command_counts[3 - player] = (len(lost), count)
    return count


def units_eliminated(pos: BasePosition, player: int) -> int:
    """Enemy units of any rank that ``player`` has eliminated."""
    return len(pos.lost[3 - player])


def threshold_result(pos: BasePosition) -> Result | None:
    """8.2: the winner (or draw) when a player has reached a threshold, else None."""
    v = pos.variant
    u1, u2 = units_eliminated(pos, 1), units_eliminated(pos, 2)
    if u1 < v.units_to_win and u2 < v.units_to_win and u1 < v.commands_to_win and u2 < v.commands_to_win:
        return None  # neither can have reached a threshold (commands are units too)
    c1, c2 = commands_eliminated(pos, 1), commands_eliminated(pos, 2)
    if u1 < v.units_to_win and u2 < v.units_to_win and c1 < v.commands_to_win and c2 < v.commands_to_win:
        return None
    cmd = {1: c1 >= v.commands_to_win, 2: c2 >= v.commands_to_win}
    unit = {1: u1 >= v.units_to_win, 2: u2 >= v.units_to_win}
    reached = {p: cmd[p] or unit[p] for p in (1, 2)}
    units = {1: u1, 2: u2}
    commands = {1: c1, 2: c2}

    def single(p: int) -> Result:
        if cmd[p]:
            return Result(p, Termination.COMMANDS, count=commands[p])
        return Result(p, Termination.UNITS, count=units[p])

    if reached[1] and not reached[2]:
        return single(1)
    if reached[2] and not reached[1]:
        return single(2)
    if not reached[1]:
        return None
    if cmd[1] != cmd[2]:
        p = 1 if cmd[1] else 2
        return Result(p, Termination.BOTH_COMMAND_THRESHOLD)
    # Both reached the same threshold: the other count decides first, then the threshold's own.
    threshold = Termination.COMMANDS if cmd[1] else Termination.UNITS
    first, second = (units, commands) if cmd[1] else (commands, units)
    first_code, second_code = (
        (Termination.MORE_UNITS, Termination.MORE_COMMANDS)
        if cmd[1]
        else (Termination.MORE_COMMANDS, Termination.MORE_UNITS)
    )
    for values, code in ((first, first_code), (second, second_code)):
        if values[1] != values[2]:
            return Result(1 if values[1] > values[2] else 2, code, threshold=threshold)
    return Result(None, Termination.EQUAL, threshold=threshold)


def could_act(pos: BasePosition, player: int, turn: int) -> bool:
    """8.3: could ``player`` deploy, draw or recall at the start of turn ``turn`` on this mat?"""
    hand_open = len(pos.hands[player]) < HAND_LIMIT
    if hand_open and pos.decks[player]:
        return True
    if could_deploy(pos, player, turn):
        return True
    if hand_open:
        for s, u in pos.board.items():
            if u.owner == player and recallable(pos, s, 0):
                return True
    return False


def _end_turn(pos: BasePosition, events: list[Event]) -> None:
    """After the reinforcement: 8.2, then 8.3, then the next turn (7.4 extra turn)."""
    player = pos.to_move
    other = 3 - player
    pos.quiet_turns = 0 if pos.eliminated else pos.quiet_turns + 1
    extra = bool(pos.generals_lost & (1 << other)) and not pos.generals_lost & (1 << player)
    nxt = player if extra else other
    result = threshold_result(pos)
    v = pos.variant
    if result is None and v.no_progress_turns and pos.quiet_turns >= v.no_progress_turns:
        result = Result(None, Termination.NO_PROGRESS, count=v.no_progress_turns)
    if result is None:
        later = 3 - nxt
        if not could_act(pos, nxt, pos.turn + 1) and not could_act(pos, later, pos.turn + 2):
            result = Result(None, Termination.NO_ACTION)
    if result is not None:
        _finish(pos, result, events)
        return
    if extra:
        events.append({"type": "extra_turn", "player": player})
    pos.turn += 1
    pos.to_move = nxt
    start_turn(pos)


def _finish(pos: BasePosition, result: Result, events: list[Event]) -> None:
    pos.result = result
    pos.phase = "over"
    pos.advance = None
    pos.in_turn = False
    pos.deploys = []
    pos.legal = None
    events.append(result_event(result))


def result_event(result: Result) -> ResultEvent:
    """The ``result`` event: ``{"type": "result"}`` and the result's JSON (notation.md)."""
    event: ResultEvent = {
        "type": "result",
        "winner": result.winner,
        "reason": result.reason,
        "termination": result.termination.value,
    }
    if result.count is not None:
        event["count"] = result.count
    if result.player is not None:
        event["player"] = result.player
    if result.threshold is not None:
        event["threshold"] = result.threshold.value
    if result.ending is not None:
        event["ending"] = result.ending.value
    return event


def resign(pos: BasePosition, player: int) -> list[Event]:
    """8.3: ``player`` resigns; the opponent wins at once."""
    if pos.result is not None:
        raise IllegalActionError(_("player {player} cannot resign: the game is already over").format(player=player), "game-over")
    if player not in (1, 2):
        raise InvalidActionError(f"resign: player must be 1 or 2, not {player!r}")
    events: list[Event] = [{"type": "resign", "player": player}]
    _finish(pos, Result(3 - player, Termination.RESIGNATION, player=player), events)
    return events


PLATFORM_ENDINGS: dict[str, tuple[Termination, Literal["timeout"]]] = {
    "time": (Termination.TIMEOUT, "timeout"),
    "deadline": (Termination.DEADLINE, "timeout"),
}
"""Endings decided by a platform rather than the rules (clarifications 8.3: resigning is always
allowed; draws by agreement and clocks are platform features): the termination and event type."""


def end_by_platform(pos: BasePosition, how: str, player: int | None) -> list[Event]:
    """End the game off the board: ``how`` is ``"time"`` or ``"deadline"`` (``player`` loses) or
    ``"agreed"`` (a draw both players agreed to; ``player`` is None)."""
    if pos.result is not None:
        raise IllegalActionError(_("the game is already over"), "game-over")
    if how == "agreed":
        events: list[Event] = [{"type": "draw_agreed"}]
        _finish(pos, Result(None, Termination.DRAW_AGREED), events)
        return events
    if how not in PLATFORM_ENDINGS or player not in (1, 2):
        raise InvalidActionError(f"unknown platform ending {how!r} for player {player!r}")
    termination, kind = PLATFORM_ENDINGS[how]
    events = [{"type": kind, "player": player}]
    _finish(pos, Result(3 - player, termination, player=player), events)
    return events


_EARLY = {
    Termination.RESIGNATION: "resign",
    Termination.TIMEOUT: "time",
    Termination.DEADLINE: "deadline",
    Termination.DRAW_AGREED: "agreed",
}
"""The endings off the board by termination, as :func:`early_ending` names them."""


def early_ending(result: Result) -> tuple[str, int | None] | None:
    """How a record's result ended the game off the board: ``("resign", p)``, ``("time", p)``,
    ``("deadline", p)``, ``("agreed", None)``, an aborted game's ``("abort", p)`` (``p`` aborted
    it) or ``("abort:" + how, p)`` (the early ending that aborted it), or None when the actions
    must reach the result."""
    t = result.termination
    if t is Termination.ABORTED:
        if result.ending is None:
            return ("abort", result.player)
        return ("abort:" + _EARLY[result.ending], result.player)
    if t in _EARLY:
        return (_EARLY[t], result.player)
    return None


ABORT_TURNS = 2
"""A game that ends before turn ``ABORT_TURNS + 1`` begins (before both players have made their
first turn) is *aborted* (a platform's rule, as lichess aborts a game before both sides moved):
it has no winner, and a platform rates and scores it as no game at all. Its result is
``Termination.ABORTED`` with the player who aborted it, or the early ending that came first."""


def abortable(pos: BasePosition) -> bool:
    """Whether an ending now would abort the game: it runs and turn 3 has not begun."""
    return pos.result is None and pos.turn <= ABORT_TURNS


def is_aborted(result: Result | None) -> bool:
    """Whether ``result`` is an aborted game's."""
    return result is not None and result.termination is Termination.ABORTED


def abort(pos: BasePosition, ending: tuple[str, int | None]) -> list[Event]:
    """End a game that has not passed its first turns as aborted: ``ending`` is ``("abort", p)``
    (player ``p`` aborted it) or the early ending that came first (``("resign", p)``, ``("time",
    p)``, ``("deadline", p)``, ``("agreed", None)``). No winner."""
    if pos.result is not None:
        raise IllegalActionError(_("the game is already over"), "game-over")
    if pos.turn > ABORT_TURNS:
        raise IllegalActionError(_("a game can be aborted only before both players have made their first turn"), "abort-late")
    how, player = ending
    events: list[Event]
    if how == "agreed":
        events, inner, player = [{"type": "draw_agreed"}], Termination.DRAW_AGREED, None
    elif player not in (1, 2):
        raise InvalidActionError(f"abort: player must be 1 or 2, not {player!r}")
    elif how == "abort":
        events, inner = [{"type": "abort", "player": player}], None
    elif how == "resign":
        events, inner = [{"type": "resign", "player": player}], Termination.RESIGNATION
    elif how in PLATFORM_ENDINGS:
        inner, kind = PLATFORM_ENDINGS[how]
        events = [{"type": kind, "player": player}]
    else:
        raise InvalidActionError(f"unknown ending {how!r} to abort")
    _finish(pos, Result(None, Termination.ABORTED, player=player, ending=inner), events)
    return events


def end_early(pos: BasePosition, ending: tuple[str, int | None]) -> list[Event]:
    """Apply an ending found by :func:`early_ending`."""
    how, player = ending
    if how.startswith("abort"):
        return abort(pos, ("abort", player) if how == "abort" else (how[len("abort:") :], player))
    if how == "resign":
        assert player is not None
        return resign(pos, player)
    return end_by_platform(pos, how, player)


# --- why an action is illegal ------------------------------------------------------------------


def explain_illegal(pos: BasePosition, action: Action) -> str:
    """One line naming the action and the rule that forbids it now."""
    return str(refuse(pos, action))


def refuse(pos: BasePosition, action: Action) -> IllegalActionError:
    """The refusal of an action the rules forbid now: one line naming the action and the rule,
    and the refusal's kind (``IllegalActionError.kind``, one of ``REFUSALS``)."""
    kind, reason = _reason(pos, action)
    return IllegalActionError(_("{action}: {reason}").format(action=str(action), reason=reason), kind)


def _reason(pos: BasePosition, a: Action) -> tuple[Refusal, str]:  # noqa: C901 - one branch per rule
    if pos.result is not None:
        return "game-over", _("the game is over")
    _resolve_start(pos)
    k = a.kind
    player = pos.to_move
    board = pos.board
    if pos.phase == "advance":
        if k != "advance":
            return "advance-pending", _(
                "player {player} must first choose a berserker advance; no other action is possible "
                "while an advance is resolved (clarifications 6.3, 5.6)"
            ).format(player=pos.decider)
        choices = _advance_choices(pos)
        if any(c.frm == a.frm for c in choices):
            return "advance-square", _(
                "that berserker cannot advance into that square: it may only take the square of a unit it helped eliminate that no other berserker took (clarifications 6.2)"
            )
        if any(pos.flags.get(c.frm or 0, 0) & DEPLOYED for c in choices):
            return "advance-order", _("the berserker deployed this turn advances first (clarifications 6.2, 6.4)")
        return "advance-none", _("no berserker there is waiting to advance (clarifications 6.1)")
    if k == "advance":
        return "advance-none", _("no berserker advance is waiting to be chosen (clarifications 6.1)")
    if k in ("shoot", "move", "recall"):
        u = board.get(a.frm)  # type: ignore[arg-type]
        if u is None:
            return "no-unit", _("there is no unit on {square}").format(square=mat.name(a.frm))  # type: ignore[arg-type]
        if u.owner != player:
            return "not-yours", _("the unit on {square} belongs to player {owner}; player {player} is to act").format(
                square=mat.name(a.frm),  # type: ignore[arg-type]
                owner=u.owner,
                player=player,
            )
    if k == "shoot":
        return _shot_reason(pos, a)
    if k == "deploy":
        return _deploy_reason(pos, a)
    if pos.phase == "pre":
        return "deploy-first", _("the deployment comes first: a unit must be deployed this turn (clarifications 3)")
    f = pos.flags.get(a.frm, 0) if a.frm is not None else 0
    if k == "move":
        u = board[a.frm]  # type: ignore[index]
        if not u.moves:
            return "move-no-arrows", _("that unit has no movement arrows (clarifications 7.1)")
        if f & MOVED:
            return "move-twice", _("that unit has already moved this turn (clarifications 7.1)")
        if engaged(pos, a.frm):  # type: ignore[arg-type]
            return "move-engaged", _("an engaged unit cannot move (clarifications 7.1)")
        if a.to is not None and a.to - a.frm not in u.moves:  # type: ignore[operator]
            return "move-direction", _("that square is not along one of the unit's movement arrows (clarifications 7.1)")
        if a.to in board:
            return "move-occupied", _("{square} is occupied (clarifications 7.1)").format(square=mat.name(a.to))
        return "move-off-mat", _("that square is off the bordered mat (clarifications 7.1)")
    hand_full = len(pos.hands[player]) >= HAND_LIMIT
    if k in ("draw", "recall") and hand_full:
        return "hand-full", _("the hand already holds six cards, so the player passes (clarifications 7.2)")
    if k == "draw":
        return "deck-empty", _("the deck is empty (clarifications 7.2)")
    if k == "recall":
        u = board[a.frm]  # type: ignore[index]
        if f & DEPLOYED:
            return "recall-deployed", _("a unit cannot be recalled in the turn it was deployed (clarifications 7.2)")
        if u.is_cavalry and pos.variant.intermediate:
            return "recall-cavalry-spear", _("a cavalry unit engaged by a spear unit cannot be recalled (clarifications 7.3)")
        if f & TOOK_PART:
            return "recall-took-part", _("a unit that took part in an elimination this turn cannot be recalled (clarifications 7.2)")
        return "recall-engaged", _("an engaged unit cannot be recalled (clarifications 7.2)")
    return "pass", _("passing is allowed only when neither drawing nor recalling is possible (clarifications 7.2)")


def _shot_reason(pos: BasePosition, a: Action) -> tuple[Refusal, str]:
    u = pos.board[a.frm]  # type: ignore[index]
    if not u.targets:
        return "shoot-no-weapon", _("that unit has no ranged weapon (clarifications 5.1)")
    if pos.turn <= 2:
        return "shoot-opening", _("no shots are possible in the opening turns (clarifications 1.3)")
    f = pos.flags.get(a.frm, 0)  # type: ignore[arg-type]
    if f & SHOT:
        return "shoot-twice", _("a ranged unit shoots at most once per turn (clarifications 5.1)")
    if f & ENGAGED_AT_START:
        return "shoot-engaged-at-start", _("a ranged unit engaged at the start of the turn cannot shoot this turn (clarifications 5.2)")
    if f & TOOK_PART:
        return "shoot-took-part", _("a ranged unit that took part in an elimination this turn cannot shoot (clarifications 5.2)")
    if f & DEPLOYED and not f & SUPPORTED:
        return "shoot-unsupported", _(
            "a ranged unit deployed this turn may shoot only if deployed adjacent to a friendly unit (clarifications 5.2)"
        )
    if engaged(pos, a.frm):  # type: ignore[arg-type]
        return "shoot-engaged", _("an engaged ranged unit cannot shoot (clarifications 5.2)")
    t = a.to
    w = pos.board.get(t)  # type: ignore[arg-type]
    if t - a.frm not in u.targets:  # type: ignore[operator]
        return "shoot-out-of-grid", _("{square} is not on the unit's target grid (clarifications 5.1)").format(square=mat.name(t))  # type: ignore[arg-type]
    if w is None:
        return "shoot-empty", _("there is no unit on {square} to shoot (clarifications 5.1)").format(square=mat.name(t))  # type: ignore[arg-type]
    return "shoot-friendly", _("ranged units never target friendly units (clarifications 5.1)")


def _deploy_reason(pos: BasePosition, a: Action) -> tuple[Refusal, str]:
    player = pos.to_move
    if pos.phase != "pre":
        if pos.flags and any(f & DEPLOYED for f in pos.flags.values()):
            return "deploy-done", _("this turn's deployment has already been made (clarifications 3)")
        return "deploy-impossible", _("no deployment is possible this turn (clarifications 3.4)")
    hand = pos.hands[player]
    if a.card not in hand:
        return "not-in-hand", _("{card} is not in player {player}'s hand").format(card=a.card, player=player)
    sq = a.to
    if sq in pos.board:
        return "deploy-occupied", _("{square} is occupied").format(square=mat.name(sq))
    if pos.turn <= 2:
        opening = mat.OPENING_SQUARE[1 if pos.turn == 1 else 2]
        return "deploy-opening", _("turn {turn} deploys only on the square marked {mark}, {square} (clarifications 1.3)").format(
            turn=pos.turn, mark=1 if pos.turn == 1 else 2, square=mat.name(opening)
        )
    if pos.forced:
        return "deploy-forced", _(
            "this is a forced deployment: the card must go on an empty square adjacent to an enemy unit (clarifications 3.4)"
        )
    enemies = any(u.owner != player for u in pos.board.values())
    if not enemies:
        return "deploy-free", _(
            "with no enemy unit on the mat, the unit must be deployed adjacent to a friendly unit (clarifications 3.2)"
        )
    kind = _kind(pos, a.card, player)  # type: ignore[arg-type]
    if kind.is_support:
        return "deploy-support", _(
            "the Engagement Rule requires an arrow pointing at an enemy unit, or a support unit adjacent to a friendly unit (clarifications 3.3)"
        )
    return "deploy-engagement", _(
        "the Engagement Rule requires an arrow pointing at an enemy unit; only spear and ranged units may be placed merely next to a friend (clarifications 3.3)"
    )
