"""What ``lordsofwar.core.Game`` and ``lordsofwar.core.Batch`` are, whichever engine runs them.

The compiled core (``_native.Game``, ``_batch.Batch``) and the Python engine (``_python.Game``,
``_python.Batch``) both satisfy these protocols; mypy holds them to it where
``lordsofwar.core`` chooses one (docs/core.md, "The Python face").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

import numpy as np

from lordsofwar.rules.actions import Action, Event
from lordsofwar.rules.cards import CardSet
from lordsofwar.rules.position import Result, Variant
from lordsofwar.rules.state import Position


class GameProtocol(Protocol):
    """A game at a decision point: string and integer actions, observations, views of hidden
    cards, sampled worlds and playouts (docs/core.md)."""

    FRAME: ClassVar[tuple[int, int]]

    # --- making a game
    @classmethod
    def from_json(cls, text: str, cards: CardSet | None = None) -> GameProtocol: ...
    @classmethod
    def from_position(cls, pos: Position) -> GameProtocol: ...
    @classmethod
    def deal(
        cls,
        decks: Sequence[Sequence[str]],
        seed: int,
        variant: Variant | None = None,
        cards: CardSet | None = None,
        armies: Sequence[str] | None = None,
    ) -> GameProtocol: ...
    def clone(self) -> GameProtocol: ...
    def to_json(self) -> dict[str, Any]: ...
    def to_position(self) -> Position: ...

    # --- the state
    @property
    def cards(self) -> CardSet: ...
    @property
    def variant(self) -> Variant: ...
    @property
    def armies(self) -> list[str]: ...
    @property
    def result(self) -> Result | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def turn(self) -> int: ...
    @property
    def to_move(self) -> int: ...
    @property
    def decider(self) -> int: ...
    @property
    def phase(self) -> str: ...

    # --- string actions
    def legal(self) -> list[str]: ...
    def apply(self, text: str) -> list[Event]: ...

    # --- integer actions
    @property
    def num_actions(self) -> int: ...
    def legal_ids(self) -> list[int]: ...
    def apply_id(self, i: int) -> None: ...
    def action_id(self, text: str | Action) -> int: ...
    def action_text(self, i: int) -> str: ...

    # --- observations
    def observation(self) -> tuple[np.ndarray, np.ndarray]: ...
    def legal_mask(self) -> np.ndarray: ...
    def observe_into(self, observation: np.ndarray, mask: np.ndarray) -> int: ...

    # --- views, hidden cards and playouts
    def view(self, player: int) -> GameProtocol: ...
    def hidden(self) -> dict[int, dict[str, int]]: ...
    def fill(self, cards_by_player: Mapping[int, Mapping[str, Sequence[str]]]) -> GameProtocol: ...
    def determinize(
        self,
        seed: int,
        pools: Mapping[int, Sequence[str]] | None = None,
        known: Mapping[int, Sequence[str]] | None = None,
    ) -> GameProtocol: ...
    def playout(self, seed: int, policy: str = "uniform", max_turns: int | None = None) -> Result | None: ...

    # --- the greedy bot
    def greedy_action(self, seed: int) -> str: ...
    def greedy_scores(self) -> list[tuple[str, float, float, float]]: ...


class BatchProtocol(Protocol):
    """Many games stepped at once, with their NumPy buffers (docs/core.md, "The batch API")."""

    size: int
    frame: tuple[int, int]
    cards: CardSet
    variant: Variant
    decks: list[list[str]]
    num_actions: int
    planes: np.ndarray
    info: np.ndarray
    mask: np.ndarray
    to_play: np.ndarray
    rewards: np.ndarray
    done: np.ndarray
    truncated: np.ndarray
    actions: np.ndarray
    opponent: str | None
    seats: np.ndarray

    def __init__(
        self,
        size: int,
        seed: int = 0,
        variant: Variant | None = None,
        decks: Sequence[Sequence[str]] | None = None,
        cards: CardSet | None = None,
        frame: tuple[int, int] = ...,
        opponent: str | None = None,
        seats: Sequence[int] | None = None,
    ) -> None: ...
    def reset(self) -> None: ...
    def step(self, actions: np.ndarray) -> None: ...
    def sample(self) -> np.ndarray: ...
    def finished(self, i: int) -> GameProtocol | None: ...
    def game(self, i: int) -> GameProtocol: ...
    def greedy_scores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def opponent_view(self, i: int, seed: int = 0) -> tuple[GameProtocol, list[str], list[str], list[str]]: ...
    @property
    def steps(self) -> int: ...
    @property
    def episodes(self) -> int: ...
