"""Waiting out a database restart at the start of a task, instead of failing the task.

A task that meets a stopped PostgreSQL at its first query (the tenant look-up that switches its
schema, or the row it was sent for) used to fail and be acknowledged: the turn it carried was
lost without an ``error`` event or a reply. A restart lasts seconds; the pool already waits
``DB_POOL_TIMEOUT_SECONDS`` for a connection, and this waits longer, backing off, for a bounded
time (about a minute and a half with the pool's waits), then gives up with the error. Only the
first queries: once a turn has begun, its own failure handling (an ``error`` event, the error
reply) applies. No product imports.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Seconds slept between attempts: six tries over about half a minute of sleeping.
BACK_OFF_SECONDS = (1.0, 2.0, 4.0, 8.0, 16.0)


def when_database_answers(load: Callable[[], T], *, what: str) -> T:
    """``load()``, tried again with back-off while the database is unreachable; its error once
    ``BACK_OFF_SECONDS`` are spent. ``what`` names the load in the log."""
    for delay in BACK_OFF_SECONDS:
        try:
            return load()
        except (OperationalError, InterfaceError) as error:
            logger.warning(
                "database unreachable for %s (%s); trying again in %.0f s",
                what,
                error.__class__.__name__,
                delay,
            )
            connection.close()  # a dead connection: the pool checks the next one it hands out
            time.sleep(delay)
    return load()
