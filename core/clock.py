"""The time the built-in model reads requests against: the wall clock, or a fixed instant.

"Today at 4" means something else at 09:00 than at 18:00, so an evaluation that reads requests
against the wall clock gives a different verdict depending on when it runs. ``frozen_at`` fixes
"now" for the code running inside it (a context variable: it follows the graph's worker threads,
which run in a copy of the caller's context, and never leaks to another request).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime

from django.utils import timezone

_frozen: ContextVar[datetime | None] = ContextVar("countersign_frozen_now", default=None)


def now() -> datetime:
    """The current aware datetime, or the instant ``frozen_at`` fixed."""
    return _frozen.get() or timezone.now()


@contextmanager
def frozen_at(moment: datetime) -> Iterator[datetime]:
    """Inside the block, ``now()`` is ``moment`` (an aware datetime)."""
    if timezone.is_naive(moment):
        raise ValueError("frozen_at needs an aware datetime")
    token = _frozen.set(moment)
    try:
        yield moment
    finally:
        _frozen.reset(token)
