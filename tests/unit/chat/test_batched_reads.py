"""The model's stream is read at most once per frame interval (chat/agent/llm.py)."""

from __future__ import annotations

from collections.abc import Iterator

from chat.agent.llm import read_in_batches


class Clock:
    """A clock that moves only when the reader sleeps or a read takes time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def socket_reads(clock: Clock, arrivals: list[float]) -> Iterator[bytes]:
    """One read per arrival time: a read blocks (the clock moves) until its data is there."""
    for index, at in enumerate(arrivals):
        clock.now = max(clock.now, at)
        yield f"chunk{index}".encode()


def taken_at(clock: Clock, chunks: Iterator[bytes], work: float = 0.0) -> list[float]:
    """When the reader hands over each chunk; ``work`` is how long using one takes."""
    times = []
    for _ in chunks:
        times.append(round(clock.now, 6))
        clock.now += work
    return times


def test_a_stream_that_is_all_there_is_read_once_per_interval_from_the_first_read() -> None:
    clock = Clock()
    chunks = read_in_batches(
        socket_reads(clock, [0.0, 0.0, 0.0]), 0.1, clock=clock, sleep=clock.sleep
    )

    assert taken_at(clock, chunks) == [0.0, 0.1, 0.2]


def test_data_that_comes_after_the_interval_is_taken_when_it_comes() -> None:
    clock = Clock()
    chunks = read_in_batches(socket_reads(clock, [0.0, 0.5]), 0.1, clock=clock, sleep=clock.sleep)

    assert taken_at(clock, chunks) == [0.0, 0.5]


def test_a_reader_slower_than_the_interval_never_waits() -> None:
    clock = Clock()
    chunks = read_in_batches(
        socket_reads(clock, [0.0, 0.0, 0.0]), 0.1, clock=clock, sleep=clock.sleep
    )

    assert taken_at(clock, chunks, work=0.25) == [0.0, 0.25, 0.5]
    assert clock.sleeps == []


def test_an_empty_stream_ends_at_once() -> None:
    clock = Clock()

    assert list(read_in_batches(iter([]), 0.1, clock=clock, sleep=clock.sleep)) == []
    assert clock.sleeps == []


def test_between_reads_the_reader_is_told_once_the_last_read_is_used() -> None:
    clock = Clock()
    told: list[float] = []
    chunks = read_in_batches(
        socket_reads(clock, [0.0, 0.0]),
        0.1,
        between=lambda: told.append(clock.now),
        clock=clock,
        sleep=clock.sleep,
    )

    assert taken_at(clock, chunks, work=0.01) == [0.0, 0.1]
    assert told == [0.01, 0.11]  # after each read was used, before the next (or the end)
