"""Start and stop real daphne and Celery worker processes (end-to-end tests and bench/stream.py).

Plain Python, no pytest or Django imports: the benchmark uses it outside the test suite.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
# How long daphne or a worker may take to start: a start imports the whole project, which took
# over 60 s on a 2-core machine shared with other test runs. A deadline, never a wait: a
# process that is ready sooner is used at once.
START_SECONDS = 180


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Process:
    popen: subprocess.Popen[bytes]
    log: Path

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()

    def output(self) -> str:
        """The log's last lines, for an error message."""
        return self.log.read_text(errors="replace")[-4000:]

    def whole_output(self) -> str:
        """Everything the process logged (``output`` is only the tail)."""
        return self.log.read_text(errors="replace")

    def has_logged(self, text: str) -> bool:
        return text in self.whole_output()


def wait_until_logged(process: Process, text: str, *, what: str, timeout: float) -> Process:
    """The process once its log says ``text``; RuntimeError when it exits or the time is up.

    The whole log is searched: a worker that starts on a backlog logs page after page of task
    results right after its ready line, which a tail would have pushed out of sight.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.has_logged(text):
            return process
        if process.popen.poll() is not None:
            break
        time.sleep(0.1)
    process.stop()
    raise RuntimeError(f"{what} did not start:\n{process.output()}")


def spawn(args: list[str], env: dict[str, str], log: Path) -> Process:
    handle = open(log, "wb")  # noqa: SIM115 - stays open for the child's lifetime
    popen = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )
    return Process(popen, log)


def start_daphne(
    env: dict[str, str], tmp: Path, *, start_timeout: float = START_SECONDS
) -> tuple[Process, int]:
    port = free_port()
    process = spawn(
        [
            # daphne through the product's launcher, as in production (access lines logged).
            str(VENV_BIN / "python"),
            "-m",
            "core.serve",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "--ping-interval",
            "5",
            "--ping-timeout",
            "10",
            "config.asgi:application",
        ],
        env,
        tmp / f"daphne-{port}.log",
    )
    deadline = time.monotonic() + start_timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process, port
        except httpx.HTTPError:
            time.sleep(0.1)
        if process.popen.poll() is not None:
            break
    process.stop()  # a server still starting would outlive the session, holding the test DB
    raise RuntimeError(f"daphne did not start:\n{process.output()}")


def start_worker(env: dict[str, str], tmp: Path, name: str, *, concurrency: int = 16) -> Process:
    process = spawn(
        [
            str(VENV_BIN / "celery"),
            "-A",
            "config",
            "worker",
            "-P",
            "threads",
            "-c",
            str(concurrency),
            "-n",
            f"{name}@%h",
            "--without-mingle",
            "--without-gossip",
            "-l",
            "info",
        ],
        env,
        tmp / f"worker-{name}.log",
    )
    return wait_until_logged(process, "ready.", what="worker", timeout=START_SECONDS)


class SharedProcesses:
    """Daphne and Celery worker processes kept for many test modules instead of one each.

    Starting daphne or a worker imports the whole project (seconds each on a busy machine), and
    most modules want the same servers. A web server per environment is kept until ``stop``:
    several can run side by side. Workers are different: all of them take tasks from the same
    queues, so a kept worker would take the tasks meant for another module's worker (or for an
    in-process test). Hence at most one worker runs, the one last asked for; asking for another
    environment (or name) stops it first, and ``stop_worker`` lets a caller end it early.
    """

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self._webs: dict[tuple[tuple[str, str], ...], tuple[Process, int]] = {}
        self._worker: tuple[tuple[object, ...], Process] | None = None

    def web(self, env: dict[str, str]) -> int:
        key = tuple(sorted(env.items()))
        running = self._webs.get(key)
        if running is None or running[0].popen.poll() is not None:
            running = self._webs[key] = start_daphne(env, self.tmp)
        return running[1]

    def worker(self, env: dict[str, str], name: str) -> Process:
        key = (name, *sorted(env.items()))
        if self._worker is not None:
            kept_key, kept = self._worker
            if kept_key == key and kept.popen.poll() is None:
                return kept
            self.stop_worker()
        process = start_worker(env, self.tmp, name)
        self._worker = (key, process)
        return process

    def stop_worker(self) -> None:
        if self._worker is not None:
            self._worker[1].stop()
            self._worker = None

    def stop(self) -> None:
        self.stop_worker()
        for process, _ in self._webs.values():
            process.stop()
        self._webs.clear()
