"""The suite's process starter sees a ready line however much the process logs after it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.e2e.processes import spawn, wait_until_logged

# A worker that starts on a backlog: its ready line, then pages of task results at once.
BUSY_START = "print('celery@host ready.', flush=True); print('x' * 20000, flush=True); input()"


def test_a_ready_line_followed_by_pages_of_output_counts_as_started(tmp_path: Path) -> None:
    process = spawn([sys.executable, "-c", BUSY_START], {}, tmp_path / "busy.log")
    try:
        assert wait_until_logged(process, "ready.", what="worker", timeout=30) is process
    finally:
        process.stop()


def test_a_process_that_exits_without_the_line_is_reported_with_its_output(
    tmp_path: Path,
) -> None:
    process = spawn([sys.executable, "-c", "print('no broker')"], {}, tmp_path / "dead.log")
    with pytest.raises(RuntimeError, match="worker did not start:\nno broker"):
        wait_until_logged(process, "ready.", what="worker", timeout=30)
