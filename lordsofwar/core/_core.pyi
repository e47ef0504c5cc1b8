from collections.abc import Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


class Illegal(ValueError):
    pass

class Hidden(ValueError):
    pass

class Cards:
    def __init__(self, arg: Sequence[tuple[str, str, str, int, Sequence[tuple[int, int]], int, Sequence[tuple[int, int]], Sequence[int]]], /) -> None:
        """
        One tuple per card: (id, rank, class, defence, [(direction, value)], damage, [(right, forward)], [direction]), directions 0-7 from F clockwise.
        """

    @property
    def shot_offsets(self) -> list[tuple[int, int]]: ...

    def __len__(self) -> int: ...

class State:
    def __init__(self, arg0: Cards, arg1: tuple[bool, bool, bool, int, int, int], /) -> None: ...

    def clone(self) -> State: ...

    def load(self, turn: int, to_move: int, quiet: int, board: Sequence[tuple[int, int, int]], hands: Sequence[Sequence[int]], decks: Sequence[Sequence[int]], lost: Sequence[Sequence[int]], result: tuple[int, str] | None) -> None:
        """Set up a start-of-turn position: units in the order they were placed."""

    def load_turn(self, phase: int, units: Sequence[tuple[int, int, int, int, bool]], generals_lost: int, eliminated: bool, forced: bool, in_turn: bool, advance: tuple[Sequence[int], Sequence[tuple[int, Sequence[int]]], Sequence[int], bool] | None) -> None:
        """
        Set the turn under way: (square, flags, shot damage or -1, shot target, has target) per unit.
        """

    def export(self) -> tuple: ...

    @property
    def over(self) -> bool: ...

    @property
    def winner(self) -> int: ...

    @property
    def reason(self) -> str: ...

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

    def search(self, iterations: int, seconds: float, seed: int, explore: float, playout_turns: int, policy: int, scale: float, widen: int, relative: bool, value: Sequence[float], pool1: Sequence[int], pool2: Sequence[int]) -> tuple:
        """
        Information-set MCTS from this view for its decider (src/core/search.hpp): per legal action (text, visits, mean result for the decider), then iterations, nodes, seconds.
        """

    def evaluate(self, arg0: Sequence[float], arg1: float, /) -> float:
        """The search's judgement of this position: player 1's win probability."""

PLANES: int = 38

INFO: int = 264

HAND_FEATURES: int = 20

class Batch:
    def __init__(self, cards: Cards, decks: Sequence[Sequence[int]], variant: tuple[bool, bool, bool, int, int, int], size: int, seed: int, width: int, height: int) -> None: ...

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
    def num_actions(self) -> int: ...

    def reset(self, arg0: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg1: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg2: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg3: Annotated[NDArray[numpy.int8], dict(order='C', device='cpu')], /) -> None: ...

    def step(self, arg0: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu', writable=False)], arg1: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg2: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg3: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg4: Annotated[NDArray[numpy.int8], dict(order='C', device='cpu')], arg5: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu')], arg6: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg7: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], /) -> int: ...

    def sample(self, arg0: Annotated[NDArray[numpy.uint8], dict(order='C', device='cpu')], arg1: Annotated[NDArray[numpy.int32], dict(order='C', device='cpu')], /) -> None: ...

    def game(self, arg: int, /) -> State:
        """A copy of game ``i`` as a State."""

def time_actions(cards: Cards, decks: Sequence[Sequence[int]], variant: tuple[bool, bool, bool, int, int, int], samples: int, seed: int) -> tuple:
    """
    Time legal listings and applications at decision points of random games: (listing ns, apply ns, actions listed, bytes of a Game object).
    """

def random_games(cards: Cards, decks: Sequence[Sequence[int]], variant: tuple[bool, bool, bool, int, int, int], games: int, seconds: float, seed: int) -> tuple:
    """
    Play uniformly random games from random deals of the given decks: (games, actions, turns, seconds).
    """
