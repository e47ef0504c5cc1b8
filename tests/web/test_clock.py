"""The clock rules (lordsofwar.web.games.clock): plain functions of numbers and times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from lordsofwar.web.games import clock

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def later(ms: int) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def test_elapsed_time_is_in_whole_milliseconds() -> None:
    assert clock.elapsed_ms(T0, later(1500)) == 1500
    assert clock.elapsed_ms(T0, T0 + timedelta(microseconds=2999)) == 2
    assert clock.elapsed_ms(later(10), T0) == -10


@pytest.mark.parametrize("turn", [1, 2])
def test_the_openings_use_no_clock_time(turn: int) -> None:
    assert not clock.clock_runs("live", turn)
    assert clock.spent_ms("live", turn, T0, later(90_000)) == 0
    assert clock.remaining_ms(60_000, "live", turn, T0, later(90_000)) == 60_000
    after = clock.after_action(60_000, 5_000, "live", turn, T0, later(90_000), turn_ended=True)
    assert after == 65_000  # nothing spent, the increment added all the same
    assert clock.timeout_reason("live", turn) == "deadline"


def test_from_turn_three_the_clock_of_the_player_to_act_runs() -> None:
    assert clock.clock_runs("live", 3) and clock.clock_runs("live", 40)
    assert clock.spent_ms("live", 3, T0, later(2_500)) == 2_500
    assert clock.remaining_ms(60_000, "live", 3, T0, later(2_500)) == 57_500
    assert clock.timeout_reason("live", 3) == "time"


def test_a_clock_reads_zero_once_empty_never_less() -> None:
    assert clock.remaining_ms(1_000, "live", 5, T0, later(4_000)) == 0


def test_the_increment_is_added_only_when_the_turn_ends() -> None:
    mid_turn = clock.after_action(60_000, 10_000, "live", 4, T0, later(3_000), turn_ended=False)
    end_of_turn = clock.after_action(60_000, 10_000, "live", 4, T0, later(3_000), turn_ended=True)
    assert (mid_turn, end_of_turn) == (57_000, 67_000)


def test_a_clock_after_an_action_may_run_below_zero() -> None:
    """A bot is never out of time: its clock is charged what it spent, even past empty."""
    assert clock.after_action(1_000, 0, "live", 3, T0, later(3_000), turn_ended=False) == -2_000


def test_a_turn_based_game_has_a_deadline_and_no_clock() -> None:
    for turn in (1, 2, 3, 10):
        assert not clock.clock_runs("turn", turn)
        assert clock.time_runs("turn", turn)
        assert clock.spent_ms("turn", turn, T0, later(10**9)) == 0
        assert clock.timeout_reason("turn", turn) == "deadline"
        assert clock.deadline("turn", turn, T0, 0, 86_400_000) == T0 + timedelta(days=1)


def test_a_live_games_time_is_shown_running_only_after_the_openings() -> None:
    assert [clock.time_runs("live", turn) for turn in (1, 2, 3)] == [False, False, True]


def test_a_live_deadline_is_when_the_clock_empties() -> None:
    assert clock.deadline("live", 3, T0, 42_000, 0) == later(42_000)
    assert clock.deadline("live", 7, T0, 0, 0) == T0


@pytest.mark.parametrize("turn", [1, 2])
def test_an_opening_must_be_played_within_five_minutes_or_the_whole_clock(turn: int) -> None:
    assert clock.OPENING_MS == 5 * 60_000
    assert clock.deadline("live", turn, T0, 60_000, 0) == later(clock.OPENING_MS)  # a one-minute game
    assert clock.deadline("live", turn, T0, 600_000, 0) == later(600_000)  # a ten-minute one


def test_a_deadline_passes_at_its_very_moment() -> None:
    end = later(5_000)
    assert not clock.timed_out(end, later(4_999))
    assert clock.timed_out(end, end)
    assert clock.timed_out(end, later(6_000))
    assert not clock.timed_out(None, later(10**9))  # a bot has no deadline
