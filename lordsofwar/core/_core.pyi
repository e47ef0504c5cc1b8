from collections.abc import Sequence
from typing import Annotated, overload

import numpy
from numpy.typing import NDArray


class Illegal(ValueError):
    pass

class Hidden(ValueError):
    pass

class Variant:
    """
    The rules variant as the core needs it (lordsofwar.rules.position.Variant).
    """

    def __init__(self) -> None: ...

    @property
    def intermediate(self) -> bool: ...

    @intermediate.setter
    def intermediate(self, arg: bool, /) -> None: ...

    @property
    def visible(self) -> bool:
        """hands are visible"""

    @visible.setter
    def visible(self, arg: bool, /) -> None: ...

    @property
    def bordered(self) -> bool: ...

    @bordered.setter
    def bordered(self, arg: bool, /) -> None: ...

    @property
    def units_to_win(self) -> int: ...

    @units_to_win.setter
    def units_to_win(self, arg: int, /) -> None: ...

    @property
    def commands_to_win(self) -> int: ...

    @commands_to_win.setter
    def commands_to_win(self, arg: int, /) -> None: ...

    @property
    def no_progress_turns(self) -> int: ...

    @no_progress_turns.setter
    def no_progress_turns(self, arg: int, /) -> None: ...

class CardSpec:
    """One card as the core needs it; its traits come from the card data."""

    def __init__(self) -> None: ...

    @property
    def id(self) -> str: ...

    @id.setter
    def id(self, arg: str, /) -> None: ...

    @property
    def cls(self) -> int:
        """the index of its class in lordsofwar.rules.cards.CLASSES"""

    @cls.setter
    def cls(self, arg: int, /) -> None: ...

    @property
    def berserker(self) -> bool: ...

    @berserker.setter
    def berserker(self, arg: bool, /) -> None: ...

    @property
    def cavalry(self) -> bool: ...

    @cavalry.setter
    def cavalry(self, arg: bool, /) -> None: ...

    @property
    def spear(self) -> bool: ...

    @spear.setter
    def spear(self, arg: bool, /) -> None: ...

    @property
    def support(self) -> bool: ...

    @support.setter
    def support(self, arg: bool, /) -> None: ...

    @property
    def general(self) -> bool: ...

    @general.setter
    def general(self, arg: bool, /) -> None: ...

    @property
    def command(self) -> bool: ...

    @command.setter
    def command(self, arg: bool, /) -> None: ...

    @property
    def defence(self) -> int: ...

    @defence.setter
    def defence(self, arg: int, /) -> None: ...

    @property
    def attacks(self) -> list[tuple[int, int]]:
        """
        (direction, value) in the card's order, directions 0-7 from F clockwise
        """

    @attacks.setter
    def attacks(self, arg: Sequence[tuple[int, int]], /) -> None: ...

    @property
    def damage(self) -> int:
        """ranged damage, 0 for none"""

    @damage.setter
    def damage(self, arg: int, /) -> None: ...

    @property
    def targets(self) -> list[tuple[int, int]]:
        """(right, forward) of each target square"""

    @targets.setter
    def targets(self, arg: Sequence[tuple[int, int]], /) -> None: ...

    @property
    def moves(self) -> list[int]:
        """directions 0-7 from F clockwise"""

    @moves.setter
    def moves(self, arg: Sequence[int], /) -> None: ...

class Cards:
    def __init__(self, specs: Sequence[CardSpec]) -> None:
        """The cards of one card set, in its order."""

    @property
    def shot_offsets(self) -> list[tuple[int, int]]: ...

    def __len__(self) -> int: ...

class UnitRecord:
    """One unit of a Record: where, which card, whose, and its turn state."""

    @overload
    def __init__(self) -> None: ...

    @overload
    def __init__(self, square: int, card: int, owner: int, flags: int = 0, shot_damage: int = -1, shot_target: int = 0, has_target: bool = False) -> None: ...

    @property
    def square(self) -> int: ...

    @square.setter
    def square(self, arg: int, /) -> None: ...

    @property
    def card(self) -> int: ...

    @card.setter
    def card(self, arg: int, /) -> None: ...

    @property
    def owner(self) -> int: ...

    @owner.setter
    def owner(self, arg: int, /) -> None: ...

    @property
    def flags(self) -> int: ...

    @flags.setter
    def flags(self, arg: int, /) -> None: ...

    @property
    def shot_damage(self) -> int:
        """-1: none waiting"""

    @shot_damage.setter
    def shot_damage(self, arg: int, /) -> None: ...

    @property
    def shot_target(self) -> int: ...

    @shot_target.setter
    def shot_target(self, arg: int, /) -> None: ...

    @property
    def has_target(self) -> bool: ...

    @has_target.setter
    def has_target(self, arg: bool, /) -> None: ...

class AdvanceRecord:
    """The berserker advance under way (position.AdvanceRound)."""

    def __init__(self) -> None: ...

    @property
    def owners(self) -> list[int]: ...

    @owners.setter
    def owners(self, arg: Sequence[int], /) -> None: ...

    @property
    def candidates(self) -> list[tuple[int, list[int]]]:
        """(berserker's square, [squares it may take]) in order"""

    @candidates.setter
    def candidates(self, arg: Sequence[tuple[int, Sequence[int]]], /) -> None: ...

    @property
    def taken(self) -> list[int]: ...

    @taken.setter
    def taken(self, arg: Sequence[int], /) -> None: ...

    @property
    def advanced(self) -> bool: ...

    @advanced.setter
    def advanced(self, arg: bool, /) -> None: ...

class Record:
    """
    A position by name (Game::load, Game::record): units in the order they were placed; hands, decks (top first) and lost piles per player (index 0: player 1), -1 a hidden card.
    """

    def __init__(self) -> None: ...

    @property
    def turn(self) -> int: ...

    @turn.setter
    def turn(self, arg: int, /) -> None: ...

    @property
    def to_move(self) -> int: ...

    @to_move.setter
    def to_move(self, arg: int, /) -> None: ...

    @property
    def quiet_turns(self) -> int: ...

    @quiet_turns.setter
    def quiet_turns(self, arg: int, /) -> None: ...

    @property
    def units(self) -> list[UnitRecord]: ...

    @units.setter
    def units(self, arg: Sequence[UnitRecord], /) -> None: ...

    @property
    def hands(self) -> list[list[int]]: ...

    @hands.setter
    def hands(self, arg: Sequence[Sequence[int]], /) -> None: ...

    @property
    def decks(self) -> list[list[int]]: ...

    @decks.setter
    def decks(self, arg: Sequence[Sequence[int]], /) -> None: ...

    @property
    def lost(self) -> list[list[int]]: ...

    @lost.setter
    def lost(self, arg: Sequence[Sequence[int]], /) -> None: ...

    @property
    def result(self) -> object:
        """
        None while the game runs, else (winner, termination, count, player, threshold, ending).
        """

    @result.setter
    def result(self, value: tuple[int, str, int, int, str, str] | None) -> None: ...

    @property
    def phase(self) -> int: ...

    @phase.setter
    def phase(self, arg: int, /) -> None: ...

    @property
    def generals_lost(self) -> int:
        """bit p: player p's general was eliminated this turn"""

    @generals_lost.setter
    def generals_lost(self, arg: int, /) -> None: ...

    @property
    def eliminated(self) -> bool: ...

    @eliminated.setter
    def eliminated(self, arg: bool, /) -> None: ...

    @property
    def forced(self) -> bool: ...

    @forced.setter
    def forced(self, arg: bool, /) -> None: ...

    @property
    def in_turn(self) -> bool: ...

    @in_turn.setter
    def in_turn(self, arg: bool, /) -> None: ...

    @property
    def advance(self) -> AdvanceRecord | None: ...

    @advance.setter
    def advance(self, value: AdvanceRecord | None) -> None: ...

class GreedyParams:
    """The greedy bot's settings (src/core/greedy.hpp, GreedyParams)."""

    def __init__(self, values: Sequence[float], fresh_arrow: int, enemy_weight: float, rollout_pushes: int, shortcuts: bool = True) -> None:
        """
        ``shortcuts`` false: every candidate is played (the same numbers, slower: what the tests compare with).
        """

class State:
    def __init__(self, cards: Cards, variant: Variant) -> None: ...

    def clone(self) -> State: ...

    def load(self, record: Record) -> None:
        """Set up the position of a Record (a fresh State only)."""

    def record(self) -> Record:
        """The position as a Record."""

    @property
    def over(self) -> bool: ...

    @property
    def winner(self) -> int: ...

    @property
    def result(self) -> object: ...

    @property
    def turn(self) -> int: ...

    @property
    def to_move(self) -> int: ...

    @property
    def decider(self) -> int: ...

    @property
    def phase(self) -> int: ...

    def legal(self) -> list: ...

    def apply(self, arg0: int, arg1: int, arg2: int, arg3: int, /) -> list: ...

    def shown_after(self, arg0: int, arg1: int, arg2: int, arg3: int, arg4: Sequence[int], /) -> list[int]:
        """
        What the other player has seen of the decider's hand once this action is played, from ``known`` before it (note_shown in src/core/search.hpp); the game is not changed.
        """

    def num_actions(self, arg0: int, arg1: int, /) -> int: ...

    def legal_ids(self, arg0: int, arg1: int, /) -> list[int]: ...

    def decode(self, arg0: int, arg1: int, arg2: int, /) -> object:
        """
        The action an id names here, as (kind, card, from, to, text), or None when it names none.
        """

    def encode(self, arg0: int, arg1: int, arg2: int, arg3: int, arg4: int, arg5: int, /) -> int: ...

    def apply_id(self, arg0: int, arg1: int, arg2: int, /) -> None: ...

    def resolve(self) -> None:
        """Settle the start of the turn as the first legal listing does (3.4)."""

    @property
    def hidden(self) -> tuple:
        """The unknown cards: (player 1's hand, deck, player 2's hand, deck)."""

    def observe(self, arg0: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg1: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg2: int, arg3: int, /) -> None: ...

    def observe_into(self, arg0: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg1: Annotated[NDArray[numpy.int8], dict(order='C', device='cpu')], arg2: int, arg3: int, /) -> int: ...

    def mask(self, arg0: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg1: int, arg2: int, /) -> int: ...

    def frame(self, arg0: int, arg1: int, /) -> tuple: ...

    def playout(self, seed: int, policy: int = 0, max_turns: int = -1) -> int: ...

    def search(self, iterations: int, seconds: float, seed: int, explore: float, playout_turns: int, policy: int, scale: float, widen: int, relative: bool, value: Sequence[float], pool1: Sequence[int], pool2: Sequence[int], net: Net | None = None, c_puct: float = 1.5, mix: float = 0.0, hit_prior: float = 0.0, greedy: GreedyParams | None = None, prior_visits: int = 0) -> tuple:
        """
        Information-set MCTS from this view for its decider (src/core/search.hpp): per legal action (text, visits, mean result for the decider), then iterations, nodes, seconds; ``greedy``: the greedy bot's settings, for a network with an action head.
        """

    def greedy(self, bot: GreedyParams, seed: int) -> str:
        """
        The greedy bot's action for the decider (src/core/greedy.hpp), as notation text.
        """

    def greedy_scores(self, bot: GreedyParams) -> list:
        """
        The greedy bot's judgement of every legal action: (text, score, preference, exposure).
        """

    def evaluate(self, arg0: Sequence[float], arg1: float, /) -> float:
        """The search's judgement of this position: player 1's win probability."""

class Net:
    """A policy/value network for the search (src/core/net.hpp)."""

    def __init__(self, policy: Sequence[tuple[Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)], Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)]]], value: Sequence[tuple[Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)], Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)]]], value_from: int, width: int, height: int, scale: Sequence[float], action: Sequence[tuple[Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)], Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)]]] = [], action_from: int = -1, features: int = 0) -> None:
        """
        The layers as (weights (inputs, outputs), biases) float32 arrays, the frame, and 1 / divisor per observation number (lordsofwar.rl.config.observation_scale); a version 4 file's action head (aw0, ab0 and aw1, ab1), the policy layer it reads and its features per action.
        """

    @property
    def has_action_head(self) -> bool: ...

    @property
    def inputs(self) -> int: ...

    @property
    def num_actions(self) -> int: ...

    def observation(self, arg: State, /) -> list[float]:
        """
        The scaled observation the network reads (flat_observation of the decider's observation).
        """

    def evaluate(self, state: State, repeat: int = 1, greedy: GreedyParams | None = None) -> tuple:
        """
        (legal ids ascending, their logits (an action head's scores added: ``greedy``, the greedy bot's settings, is needed then), the value for the decider, seconds per evaluation over ``repeat`` runs).
        """

PLANES: int = 38

INFO: int = 264

HAND_FEATURES: int = 20

class Batch:
    def __init__(self, cards: Cards, decks: Sequence[Sequence[int]], variant: Variant, size: int, seed: int, width: int, height: int) -> None: ...

    @property
    def size(self) -> int: ...

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def steps(self) -> int: ...

    @property
    def episodes(self) -> int: ...

    @property
    def outside_frame(self) -> int: ...

    @property
    def opponent_steps(self) -> int: ...

    def set_opponent(self, kind: int, seats: Sequence[int], values: Sequence[float], fresh_arrow: int, enemy_weight: float, rollout_pushes: int, seed: int) -> None:
        """
        The opponent inside reset and step (0 none, 1 random, 2 greedy, 3 the search of set_search) and the learner's seat per game.
        """

    def set_search(self, iterations: int, explore: float, playout_turns: int, policy: int, scale: float, widen: int, relative: bool, value: Sequence[float], net: Net | None = None, c_puct: float = 1.5, mix: float = 0.0, hit_prior: float = 0.0, greedy: GreedyParams | None = None, prior_visits: int = 0) -> None:
        """
        The search opponent's settings (kind 3 of set_opponent): its iteration cap ends every search; ``greedy``: the greedy bot's settings, for a network with an action head.
        """

    def greedy_scores(self, values: Sequence[float], fresh_arrow: int, enemy_weight: float, rollout_pushes: int, ids: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu')], raw: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], ptr: Annotated[NDArray[numpy.int64], dict(order='C', device='cpu')]) -> int:
        """
        The greedy bot's (score, preference, exposure) of every legal id of every game, for its decider, ids ascending per game (game b's in ptr[b] .. ptr[b + 1]); returns how many.
        """

    def opponent_view(self, i: int, seed: int) -> tuple:
        """
        What game ``i``'s opponent would search from now: its view as a State, the pools of players 1 and 2, and the learner's hand cards it has seen.
        """

    @property
    def num_actions(self) -> int: ...

    def reset(self, arg0: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg1: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg2: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg3: Annotated[NDArray[numpy.int8], dict(order='C', device='cpu')], /) -> None: ...

    def step(self, arg0: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu', writable=False)], arg1: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg2: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg3: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg4: Annotated[NDArray[numpy.int8], dict(order='C', device='cpu')], arg5: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg6: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg7: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], /) -> int: ...

    def sample(self, arg0: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg1: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu')], /) -> None: ...

    def game(self, arg: int, /) -> State:
        """A copy of game ``i`` as a State."""

    def finished(self, arg: int, /) -> State | None:
        """
        A copy of the last game that ended in slot ``i`` (as it ended) as a State; None before any.
        """

    def finished_result(self, i: int) -> tuple[int, str, int, int, str, str] | None:
        """
        The result tuple of the last game that ended in slot ``i`` (None before any, or when it was cut short).
        """

    def observe_finished(self, rows: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu', writable=False)], players: Annotated[NDArray[numpy.int8], dict(order='C', device='cpu', writable=False)], planes: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], info: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')]) -> None:
        """
        The observation of each row's finished game from its player's side, written into planes and info.
        """

def scale_observations(planes: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu', writable=False)], info: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)], scale: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)], out: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')]) -> None:
    """
    The RL observation of each row, scaled to [0, 1] (lordsofwar.rl.config.normalise of the raw numbers), written into out.
    """

def time_actions(cards: Cards, decks: Sequence[Sequence[int]], variant: Variant, samples: int, seed: int) -> tuple:
    """
    Time legal listings and applications at decision points of random games: (listing ns, apply ns, actions listed, bytes of a Game object).
    """

def random_games(cards: Cards, decks: Sequence[Sequence[int]], variant: Variant, games: int, seconds: float, seed: int) -> tuple:
    """
    Play uniformly random games from random deals of the given decks: (games, actions, turns, seconds).
    """
