"""The built-in model's clock: the wall clock, or an instant fixed for a block of code."""

from __future__ import annotations

import threading
from contextvars import copy_context
from datetime import UTC, datetime, timedelta

import pytest

from core import clock

MOMENT = datetime(2031, 5, 6, 10, 0, tzinfo=UTC)


def test_outside_a_frozen_block_it_is_the_wall_clock() -> None:
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(seconds=5)


def test_inside_a_frozen_block_it_is_the_fixed_instant_and_after_it_the_wall_clock_again() -> None:
    with clock.frozen_at(MOMENT):
        assert clock.now() == MOMENT

    assert clock.now() != MOMENT


def test_the_fixed_instant_follows_into_a_thread_run_in_a_copy_of_the_context() -> None:
    seen: list[datetime] = []
    with clock.frozen_at(MOMENT):
        context = copy_context()
    worker = threading.Thread(target=context.run, args=(lambda: seen.append(clock.now()),))
    worker.start()
    worker.join()

    assert seen == [MOMENT]


def test_a_naive_instant_is_refused() -> None:
    with pytest.raises(ValueError, match="aware"), clock.frozen_at(datetime(2031, 5, 6, 10)):
        pass
