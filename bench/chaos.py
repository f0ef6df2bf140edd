"""A fault schedule with invariants (Jepsen-style): the real stack under turns, decisions, faults.

    .venv/bin/python bench/chaos.py [--seed 1] [--turns 1000] [--clients 50] [--decisions 200]
                                    [--faults-per-kind 10] [--duration 1800]
                                    [--database-url URL --redis-url URL] [--data-dir PATH]

It starts the embedded PostgreSQL and Redis of ``.data/chaos`` (``--data-dir``; or uses servers
started outside with ``--database-url`` / ``--redis-url``, and then cannot restart them), two
daphne web processes, two Celery workers and beat, and the two demo tenants (``demo`` for
everything, ``acme`` so that a crossing between tenants would show). Answers come from the
built-in offline model (deterministic, no network); deliveries go through the ``console``
backend, which prints one line per message it "sends" in the worker's log: the fake provider
whose record the invariants read.

``--clients`` WebSocket clients (a thread each, on either web process) send ``--turns`` turns:
knowledge questions, write requests (SMS, e-mail, reminders), data questions and cancels. An
approver and the requester decide over HTTP (approve, reject, edit then confirm, withdraw,
bulk) until ``--decisions`` decisions were made. Meanwhile a schedule drawn from ``--seed``
injects ``--faults-per-kind`` faults of each kind, spread over the run:

- ``worker_kill``: kill -9 a worker, start it again;  ``web_kill``: the same for a daphne;
- ``redis_restart`` / ``postgres_restart``: stop the server, start it 1 to 3 s later;
- ``worker_pause``: SIGSTOP a worker past its lease (the visibility timeout), then SIGCONT;
- ``socket_drop``: a client mid-stream closes its socket, reconnects (to either web process)
  and replays from its last ``seq`` with ``chat.subscribe``;
- ``task_redeliver``: a ``chat.run_turn`` of an already-sent message is queued again.

Then every fault has ended, the remaining pending actions are rejected and the run waits for
the turns to settle, and the invariants are checked (each violation is listed):

- ``reply``: every stored user message gets exactly one ending, a ``done`` or an ``error``
  event (one naming it in ``reply_to``, or the first after it), before the next is stored;
- ``replay``: every client's log of a conversation (live, plus a catch-up ``chat.subscribe``
  from its last ``seq``) equals the stored log replayed on a new socket: ``seq`` 1…n, no gap,
  no duplicate, the same events;
- ``action_once``: no action executed twice or without an approval or a confirmation;
- ``deliveries``: an action's status agrees with its outbound messages (only executed actions
  and fired reminders have any; one per recipient) and with the provider's record (each
  message sent is printed exactly once, and nothing else is);
- ``reminder_once``: every reminder (pulled forward to be due during the run) fires once;
- ``tenant``: no client received an event of the other tenant's conversations or actions.

It prints JSON: per fault kind the count and the recovery time (fault → the first turn sent
after it that ends with ``done``) p50/p95, the violations, and the counts of turns and decisions.
A run with no violation exits 0, otherwise 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import secrets
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.e2e.processes import VENV_BIN, Process, free_port, spawn  # noqa: E402

FAULT_KINDS = (
    "worker_kill",
    "web_kill",
    "redis_restart",
    "postgres_restart",
    "worker_pause",
    "socket_drop",
    "task_redeliver",
)
# Faults that need the servers to be ours (embedded): skipped with --database-url/--redis-url.
SERVER_FAULTS = {"redis_restart": "redis", "postgres_restart": "postgres"}
# Redelivery and sweeps short enough that a run sees them work, as in tests/e2e.
VISIBILITY_TIMEOUT = 10
WORKERS = ("worker1", "worker2")
SETTLE_SECONDS = 240
# Subscriptions a client sends at once when it catches up (within the stack's burst of 400).
# How long a client's catch-up waits for turns it saw start to end (the settle's rejections).
CATCH_UP_WAIT_SECONDS = 180
CATCH_UP_BATCH = 150
# A process may take minutes to import and connect on a loaded machine.
START_SECONDS = 300

PROMPTS: dict[str, tuple[str, ...]] = {
    "knowledge": (
        "How long is bereavement leave?",
        "How many days of annual leave do full-time staff get?",
        "What's the hotel limit when travelling for work?",
        "What is the minimum password length?",
        "Within how many days must I submit an expense claim?",
        "연차는 1년에 며칠이에요?",
    ),
    "write": (
        "Can you text Emma that class moved to 3pm?",
        "Please send Oliver Brown a text saying his son left his jacket in room 4",
        "Send an email to James Taylor about the staff meeting on Friday",
        "Could you SMS the Class A parents that tomorrow's field trip is postponed?",
        "Text Emma tomorrow at 9am to remind her about the parent meeting",
        "Tomorrow at 7pm send James Taylor an SMS saying the report is due tonight",
    ),
    "data": (
        "How many contacts do we have?",
        "Who is in the Teachers group?",
        "How many contact groups are there?",
    ),
    "cancel": ("How many days of annual leave do full-time staff get?",),
}
# The other tenant (a clinic, other contacts) asks what needs no contact of the academy.
OTHER_PROMPTS = ("How many contacts do we have?", "hello", "What can you do?")
KIND_WEIGHTS = {"knowledge": 4, "write": 4, "data": 2, "cancel": 1}
# What the console backend prints for each delivery (actions/delivery/base.py console_line).
CONSOLE_LINE = re.compile(r"\] \[(?:sms|telegram|email)\] to=\S* key=(\S+)")
DECISION_KINDS = ("approve", "reject", "edit", "withdraw", "bulk")


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return round(ordered[index], 2)


# -- the stack -----------------------------------------------------------------------------------


class Stack:
    """Two daphne processes, two workers and beat, each restartable on the same address."""

    def __init__(self, env: dict[str, str], logs: Path, infra: Any) -> None:
        self.env = env
        self.logs = logs
        self.infra = infra
        self.web_ports = [free_port(), free_port()]
        self.webs: dict[int, Process] = {}
        self.workers: dict[str, Process] = {}
        self.beat: Process | None = None
        self.lock = threading.Lock()
        self.incarnation = Counter[str]()

    def _log(self, name: str) -> Path:
        self.incarnation[name] += 1
        return self.logs / f"{name}.{self.incarnation[name]}.log"

    def start_web(self, index: int) -> None:
        port = self.web_ports[index]
        args = [str(VENV_BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port)]
        args += ["--ping-interval", "5", "--ping-timeout", "10", "config.asgi:application"]
        process = spawn(args, self.env, self._log(f"web{index}"))
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and process.popen.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            process.stop(signal.SIGKILL)  # late, it would hold the port against the next try
            raise RuntimeError(f"daphne {index} did not start:\n{process.output()}")
        self.webs[index] = process

    def start_worker(self, name: str) -> None:
        args = [str(VENV_BIN / "celery"), "-A", "config", "worker", "-P", "threads", "-c", "8"]
        args += ["-n", f"{name}@%h", "--without-mingle", "--without-gossip", "-l", "info"]
        process = spawn(args, self.env, self._log(name))
        deadline = time.monotonic() + START_SECONDS
        while not process.has_logged("ready."):  # the tail may be a backlog's task results
            if process.popen.poll() is not None or time.monotonic() > deadline:
                process.stop(signal.SIGKILL)  # late, it would be a third worker
                raise RuntimeError(f"worker {name} did not start:\n{process.output()}")
            time.sleep(0.1)
        self.workers[name] = process

    def start(self) -> None:
        """All at once: on a loaded machine each takes a minute to import and connect."""
        starts = [
            threading.Thread(target=self.start_web, args=(index,))
            for index in range(len(self.web_ports))
        ]
        starts += [threading.Thread(target=self.start_worker, args=(n,)) for n in WORKERS]
        for thread in starts:
            thread.start()
        args = [str(VENV_BIN / "celery"), "-A", "config", "beat", "-l", "info"]
        args += ["-s", str(self.logs / "beat-schedule")]
        self.beat = spawn(args, self.env, self._log("beat"))
        for thread in starts:
            thread.join()
        missing = {f"web{i}" for i in range(len(self.web_ports)) if i not in self.webs}
        missing |= set(WORKERS) - set(self.workers)
        if missing:
            raise RuntimeError(f"did not start: {sorted(missing)} (logs in {self.logs})")

    def stop(self) -> None:
        for process in [*self.webs.values(), *self.workers.values(), self.beat]:
            if process is not None and process.popen.poll() is None:
                os.kill(process.popen.pid, signal.SIGCONT)  # a paused one must hear SIGTERM
                process.stop()

    def worker_logs(self) -> list[Path]:
        return sorted(self.logs.glob("worker*.log"))


# -- the clients ---------------------------------------------------------------------------------


class Dropped(Exception):
    """The socket ended (a fault, or on purpose): reconnect and catch up."""


@dataclass
class TurnRecord:
    tenant: str
    kind: str
    text: str
    client_id: str
    sent: float
    conversation: str | None = None
    message: str | None = None
    ended: str | None = None  # done:<status> | error:<code> | pending
    ended_at: float | None = None


@dataclass
class Shared:
    """What the clients, deciders and the fault thread share (under ``lock``)."""

    rng_seed: int
    turns_wanted: int
    decisions_wanted: int
    deadline: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    turns_started: int = 0
    turns: list[TurnRecord] = field(default_factory=list)
    decisions: Counter[str] = field(default_factory=Counter)
    decision_errors: Counter[str] = field(default_factory=Counter)
    drop_requests: int = 0
    drops_done: list[float] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    faults_done: threading.Event = field(default_factory=threading.Event)
    # frames a tenant's sockets received that name a conversation or an action
    seen: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))

    def take_turn(self) -> bool:
        """Turns go on until as many as wanted were sent and every fault was injected."""
        with self.lock:
            enough = self.turns_started >= self.turns_wanted and self.faults_done.is_set()
            if enough or time.monotonic() > self.deadline:
                return False
            self.turns_started += 1
            return True

    def take_drop(self) -> bool:
        with self.lock:
            if self.drop_requests > 0:
                self.drop_requests -= 1
                self.drops_done.append(time.monotonic())
                return True
            return False


class Client:
    """One WebSocket user agent: sends turns, survives drops, keeps each conversation's log."""

    def __init__(
        self, *, name: str, tenant: str, host: str, token: str, stack: Stack, shared: Shared
    ) -> None:
        self.name = name
        self.tenant = tenant
        self.host = host
        self.token = token
        self.stack = stack
        self.shared = shared
        self.rng = random.Random(f"{shared.rng_seed}-{name}")
        self.ws: Any = None
        # conversation -> seq -> frame; duplicates: a seq delivered twice after a subscribe
        self.logs: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
        self.duplicates: list[str] = []  # and gaps, on one socket
        self.expect: dict[str, int] = {}  # the next seq due per conversation, on this socket
        self.reconnects = 0

    # -- the socket --

    def connect(self) -> None:
        from websockets.sync.client import connect

        self.close()
        delay = 0.2
        while True:
            port = self.rng.choice(self.stack.web_ports)
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                self.ws = connect(
                    f"ws://{self.host}:{port}/ws/chat/",
                    sock=sock,
                    additional_headers={"Authorization": f"Bearer {self.token}"},
                    max_size=None,
                    open_timeout=10,
                    close_timeout=2,
                ).__enter__()
                return
            except Exception:
                if time.monotonic() > self.shared.deadline + SETTLE_SECONDS:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 3)

    def close(self) -> None:
        self.expect = {}
        if self.ws is not None:
            with contextlib.suppress(Exception):  # it is gone either way
                self.ws.close()
            self.ws = None

    def send(self, frame: dict[str, Any]) -> None:
        try:
            self.ws.send(json.dumps(frame))
        except Exception as error:
            raise Dropped from error

    def recv(self, timeout: float) -> dict[str, Any] | None:
        try:
            raw = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return None
        except Exception as error:
            raise Dropped from error
        frame: dict[str, Any] = json.loads(raw)
        self.note(frame)
        return frame

    def note(self, frame: dict[str, Any]) -> None:
        """Keep a conversation event in its log; remember what this tenant's sockets saw.

        On one socket a conversation's ``seq`` must rise by exactly one: after
        ``chat.subscribe`` with ``after`` = a, the next is a + 1; a lower one is a duplicate, a
        higher one a gap. (After ``chat.send`` on a socket that did not follow the conversation
        the first event may start anywhere: the sender then subscribes from the last ``seq``.)
        """
        if "conversation" in frame or "action" in frame:
            with self.shared.lock:
                self.shared.seen[self.tenant].append(frame)
        seq, conversation = frame.get("seq"), frame.get("conversation")
        if seq is None or conversation is None:
            return
        due = self.expect.get(conversation)
        if due is not None and seq != due:
            what = "duplicate" if seq < due else "gap"
            self.duplicates.append(f"{conversation}: seq {seq} where {due} was due ({what})")
        self.expect[conversation] = seq + 1
        log = self.logs[conversation]
        if seq in log and _comparable(log[seq]) != _comparable(frame):
            self.duplicates.append(f"{conversation}: seq {seq} came twice, different")
        log[seq] = frame

    def last_contiguous(self, conversation: str) -> int:
        log, seq = self.logs.get(conversation, {}), 0
        while seq + 1 in log:
            seq += 1
        return seq

    def subscribe(self, conversation: str, after: int) -> None:
        self.expect[conversation] = after + 1
        self.send({"type": "chat.subscribe", "conversation": conversation, "after": after})

    # -- turns --

    def run(self) -> None:
        try:
            self.connect()
            conversation: str | None = None
            while self.shared.take_turn():
                kind = self.rng.choices(list(KIND_WEIGHTS), weights=list(KIND_WEIGHTS.values()))[0]
                prompts = PROMPTS[kind] if self.tenant == "demo" else OTHER_PROMPTS
                # Half the turns continue the last conversation (if it ended), half start one.
                keep = conversation if self.rng.random() < 0.5 else None
                record = self.turn(kind, self.rng.choice(prompts), keep)
                conversation = record.conversation if record.ended != "pending" else None
        finally:
            self.close()

    def turn(self, kind: str, text: str, conversation: str | None) -> TurnRecord:
        record = TurnRecord(self.tenant, kind, text, str(uuid.uuid4()), time.monotonic())
        with self.shared.lock:
            self.shared.turns.append(record)
        busy_until = time.monotonic() + 120
        sent = False
        cancel_sent = False
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if self.ws is None:
                    self.connect()
                    self.reconnects += 1
                    if record.conversation:  # catch up from the last event this client saw
                        self.subscribe(
                            record.conversation, self.last_contiguous(record.conversation)
                        )
                    else:
                        sent = False  # never accepted: send again (same client_id: idempotent)
                if not sent:
                    self.send(
                        {
                            "type": "chat.send",
                            "conversation": record.conversation or conversation,
                            "text": text,
                            "client_id": record.client_id,
                        }
                    )
                    sent = True
                frame = self.recv(timeout=5)
                if frame is None:
                    continue
                kind_ = frame["type"]
                if kind_ == "accepted" and frame.get("client_id") == record.client_id:
                    record.conversation, record.message = frame["conversation"], frame["message"]
                elif (
                    kind_ == "error"
                    and frame.get("code") == "conversation_busy"
                    and not (record.message)
                ):
                    if time.monotonic() > busy_until:
                        conversation = None  # stuck: start a new conversation instead
                    time.sleep(1)
                    sent = False
                elif frame.get("conversation") != record.conversation or not record.conversation:
                    continue
                elif kind_ in ("token", "status") and kind == "cancel" and not cancel_sent:
                    self.send({"type": "chat.cancel", "conversation": record.conversation})
                    cancel_sent = True
                elif kind_ == "token" and self.shared.take_drop():
                    raise Dropped("dropped on purpose mid-stream")
                elif kind_ == "done":
                    record.ended, record.ended_at = f"done:{frame.get('status')}", time.monotonic()
                    return record
                elif kind_ == "error":
                    record.ended = f"error:{frame.get('code')}"
                    record.ended_at = time.monotonic()
                    return record
                elif kind_ == "pending":
                    record.ended, record.ended_at = "pending", time.monotonic()
                    return record
            except Dropped:
                self.close()
        record.ended = "timeout"
        return record

    def catch_up(self) -> None:
        """After the run: replay each conversation from the last contiguous seq this client saw.

        All of them at once, then read until the socket is quiet: one quiet period per client,
        not one per conversation (a full run's client follows a hundred; 1.5 s each made the
        catch-up of a 30-minute run take two hours)."""
        deadline = time.monotonic() + CATCH_UP_WAIT_SECONDS
        for _ in range(5):
            try:
                if self.ws is None:
                    self.connect()
                subscribe_all_and_read(
                    list(self.logs),
                    subscribe=lambda c: self.subscribe(c, self.last_contiguous(c)),
                    read=lambda timeout: self.recv(timeout) is not None,
                )
                # As a person waits for the reply: the settle's rejections are still being
                # resumed (hundreds, queued at once), and a client that stopped reading at the
                # first quiet moment missed their endings (the check counted it as a gap).
                while self.awaiting_an_ending() and time.monotonic() < deadline:
                    self.recv(1)
                break
            except Dropped:
                self.close()
        self.close()

    def awaiting_an_ending(self) -> bool:
        """Whether any conversation's latest turn, as this client has it, has not ended."""
        for log in self.logs.values():
            kinds = [log[seq].get("type") for seq in sorted(log)]
            last = next((k for k in reversed(kinds) if k in ("message", "done", "error")), None)
            if last == "message":
                return True
        return False


def subscribe_all_and_read(
    conversations: list[str], *, subscribe: Callable[[str], None], read: Callable[[float], bool]
) -> None:
    """Subscribe to every conversation, ``CATCH_UP_BATCH`` at a time with a second of reading
    between batches (under the chaos stack's frame burst, ``WS_RATE_LIMIT_BURST`` in
    ``prepare``), then read until the socket is quiet for 3 s. ``read`` waits up to its
    timeout for one frame and says whether one came."""
    for index, conversation in enumerate(conversations):
        if index and index % CATCH_UP_BATCH == 0:
            deadline = time.monotonic() + 1
            while (left := deadline - time.monotonic()) > 0 and read(left):
                pass
        subscribe(conversation)
    while read(3):
        pass


def stored_logs(
    *, port: int, host: str, token: str, conversations: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """The conversations' stored events, replayed from 0 on one socket of its own.

    All subscribed at once, then read until quiet: one quiet period in all, not one per
    conversation (a full run stores thousands)."""
    from websockets.sync.client import connect

    logs: dict[str, list[dict[str, Any]]] = {conversation: [] for conversation in conversations}
    with connect(
        f"ws://{host}:{port}/ws/chat/",
        sock=socket.create_connection(("127.0.0.1", port), timeout=10),
        additional_headers={"Authorization": f"Bearer {token}"},
        max_size=None,
    ) as ws:

        def keep(timeout: float) -> bool:
            try:
                frame = json.loads(ws.recv(timeout=timeout))
            except TimeoutError:
                return False
            log = logs.get(frame.get("conversation"))
            if log is not None and "seq" in frame:
                log.append(frame)
            return True

        subscribe_all_and_read(
            conversations,
            subscribe=lambda c: ws.send(
                json.dumps({"type": "chat.subscribe", "conversation": c, "after": 0})
            ),
            read=keep,
        )
    return logs


# -- decisions -----------------------------------------------------------------------------------


class Decider:
    """The approver (and the requester, for withdraw and confirm) deciding over HTTP."""

    def __init__(self, *, host: str, approver: str, staff: str, stack: Stack, shared: Shared):
        self.host = host
        self.tokens = {"approver": approver, "staff": staff}
        self.stack = stack
        self.shared = shared
        self.rng = random.Random(f"{shared.rng_seed}-decider")

    def call(self, who: str, method: str, path: str, body: Any = None) -> Any:
        import httpx

        port = self.rng.choice(self.stack.web_ports)
        try:
            return httpx.request(
                method,
                f"http://127.0.0.1:{port}{path}",
                headers={"Host": self.host, "Authorization": f"Bearer {self.tokens[who]}"},
                content=json.dumps(body) if body is not None else None,
                timeout=20,
            )
        except httpx.HTTPError:
            return None

    def count(self, kind: str, response: Any, n: int = 1) -> None:
        with self.shared.lock:
            if response is not None and response.status_code < 300:
                self.shared.decisions[kind] += n
            else:
                code = "no answer" if response is None else str(response.status_code)
                self.shared.decision_errors[f"{kind} {code}"] += 1

    def waiting(self, status: str) -> list[dict[str, Any]]:
        response = self.call("approver", "GET", f"/api/actions/?status={status}")
        if response is None or response.status_code != 200:
            return []
        actions: list[dict[str, Any]] = response.json()["actions"]
        return actions

    def done(self) -> bool:
        return sum(self.shared.decisions.values()) >= self.shared.decisions_wanted

    def run(self) -> None:
        while not self.shared.stop.is_set():
            for edited in self.waiting("edited"):  # the requester confirms the approver's edit
                self.count(
                    "confirm", self.call("staff", "POST", f"/api/actions/{edited['id']}/confirm")
                )
            pending = self.waiting("pending")
            self.rng.shuffle(pending)
            while pending and not self.done():
                kind = self.rng.choice(DECISION_KINDS)
                if kind == "bulk":
                    batch, pending = pending[:3], pending[3:]
                    ids = [a["id"] for a in batch]
                    verdict = self.rng.choice(("approve", "reject"))
                    response = self.call(
                        "approver",
                        "POST",
                        "/api/actions/decide",
                        {"decision": verdict, "actions": ids},
                    )
                    self.count("bulk", response, len(ids))
                    continue
                action = pending.pop()
                path = f"/api/actions/{action['id']}"
                if kind == "approve":
                    self.count(kind, self.call("approver", "POST", f"{path}/approve", {}))
                elif kind == "reject":
                    self.count(
                        kind, self.call("approver", "POST", f"{path}/reject", {"note": "no"})
                    )
                elif kind == "withdraw":
                    self.count(kind, self.call("staff", "POST", f"{path}/withdraw", {}))
                else:
                    arguments = dict(action.get("arguments") or {})
                    if "body" not in arguments:
                        self.count("approve", self.call("approver", "POST", f"{path}/approve", {}))
                        continue
                    arguments["body"] = f"{arguments['body']} (edited)"
                    response = self.call(
                        "approver", "POST", f"{path}/approve", {"arguments": arguments}
                    )
                    self.count(kind, response)
            pull_reminders_forward()
            time.sleep(1)

    def settle(self) -> None:
        """After the faults: decide everything left (reject), so every turn can end."""
        for _ in range(10):
            left = self.waiting("pending") + self.waiting("edited")
            if not left:
                return
            for action in left:
                verb = "decline" if action["status"] == "edited" else "reject"
                who = "staff" if verb == "decline" else "approver"
                self.call(who, "POST", f"/api/actions/{action['id']}/{verb}", {})
            time.sleep(2)


def pull_reminders_forward() -> None:
    """A scheduled reminder is due tomorrow; make it due now so it fires during the run."""
    from django.db import close_old_connections
    from django.utils import timezone
    from django_tenants.utils import schema_context

    from actions.models import Reminder

    try:
        with schema_context("demo"):
            Reminder.objects.filter(
                status=Reminder.Status.SCHEDULED, due_at__gt=timezone.now()
            ).update(due_at=timezone.now())
    except Exception:
        close_old_connections()


def wait_until_settled(
    hosts: dict[str, str], since: Any, *, at_least: float, at_most: float
) -> None:
    """Wait ``at_least`` seconds, then until the run's work is done in the database (two looks
    in a row, a second apart), or ``at_most`` seconds in all: the checks then say what is not."""
    started = time.monotonic()
    quiet, left = 0, 0
    while time.monotonic() - started < at_most:
        time.sleep(1)
        left = unsettled(hosts, since)
        quiet = quiet + 1 if not left else 0
        if quiet >= 2 and time.monotonic() - started >= at_least:
            break
    print(f"settle {time.monotonic() - started:.0f}s, {left} under way", file=sys.stderr)


def unsettled(hosts: dict[str, str], since: Any) -> int:
    """How many turns, actions, deliveries and due reminders of the run are still under way."""
    from django.db import close_old_connections
    from django.db.models import OuterRef, Subquery
    from django.utils import timezone
    from django_tenants.utils import schema_context

    from actions.models import OutboundMessage, Reminder
    from chat.models import Conversation, Message, PendingAction

    states = PendingAction.Status
    busy = (states.PENDING, states.EDITED, states.APPROVED, states.EXECUTING)
    sending = (OutboundMessage.Status.QUEUED, OutboundMessage.Status.SENDING)
    latest_role = Message.objects.filter(conversation=OuterRef("pk")).order_by("-created_at", "-pk")
    try:
        left = 0
        for tenant in hosts:
            with schema_context(tenant):
                run = Conversation.objects.filter(created_at__gte=since)
                left += (
                    run.annotate(last=Subquery(latest_role.values("role")[:1]))
                    .filter(last=Message.Role.USER)
                    .count()
                )
                left += PendingAction.objects.filter(conversation__in=run, status__in=busy).count()
                left += OutboundMessage.objects.filter(status__in=sending).count()
                left += Reminder.objects.filter(
                    status=Reminder.Status.SCHEDULED, due_at__lte=timezone.now()
                ).count()
        return left
    except Exception:  # a server still coming back: not settled
        close_old_connections()
        return 1


# -- faults --------------------------------------------------------------------------------------


@dataclass
class Fault:
    kind: str
    at: float  # monotonic, when it began
    ended: float = 0.0
    skipped: str | None = None


def schedule(rng: random.Random, kinds: list[str], per_kind: int, duration: float) -> list[str]:
    plan = [kind for kind in kinds for _ in range(per_kind)]
    rng.shuffle(plan)
    return plan


class Targets:
    """One fault at a time per process or server; faults on different ones overlap."""

    def __init__(self, stack: Stack) -> None:
        self.locks = {name: threading.Lock() for name in (*WORKERS, "web0", "web1")}
        self.locks["servers"] = threading.Lock()

    def take(self, names: list[str], rng: random.Random) -> str:
        while True:
            for name in rng.sample(names, len(names)):
                if self.locks[name].acquire(blocking=False):
                    return name
            time.sleep(0.5)


def inject(
    kind: str, *, stack: Stack, shared: Shared, rng: random.Random, targets: Targets
) -> None:
    if kind in ("worker_kill", "worker_pause"):
        name = targets.take(["worker1", "worker2"], rng)
        try:
            if kind == "worker_kill":
                stack.workers[name].popen.kill()
                stack.workers[name].popen.wait()
                stack.start_worker(name)
            else:
                pid = stack.workers[name].popen.pid
                os.kill(pid, signal.SIGSTOP)
                time.sleep(VISIBILITY_TIMEOUT + 5)  # past its lease: its tasks go elsewhere
                os.kill(pid, signal.SIGCONT)
        finally:
            targets.locks[name].release()
    elif kind == "web_kill":
        name = targets.take(["web0", "web1"], rng)
        try:
            index = int(name[-1])
            stack.webs[index].popen.kill()
            stack.webs[index].popen.wait()
            stack.start_web(index)
        finally:
            targets.locks[name].release()
    elif kind in ("redis_restart", "postgres_restart"):
        targets.take(["servers"], rng)
        try:
            if kind == "redis_restart":
                stack.infra.stop_redis()
            else:
                stack.infra.stop_postgres()
            time.sleep(rng.uniform(1, 3))
            stack.infra.up()
        finally:
            targets.locks["servers"].release()
    elif kind == "socket_drop":
        with shared.lock:
            shared.drop_requests += 1
        deadline = time.monotonic() + 120
        while shared.drop_requests and time.monotonic() < deadline:
            time.sleep(0.2)
    elif kind == "task_redeliver":
        redeliver(rng)


def redeliver(rng: random.Random) -> None:
    """Queue the turn of a recent user message again, as a broker's second delivery would."""
    from django.db import close_old_connections
    from django_tenants.utils import schema_context

    from chat.models import Message
    from core.celery import queue

    close_old_connections()
    with schema_context("demo"):
        recent = list(
            Message.objects.filter(role=Message.Role.USER)
            .order_by("-id")
            .values_list("id", flat=True)[:10]
        )
        if recent:
            queue("chat.run_turn", rng.choice(recent))


def fault_loop(
    plan: list[str], *, stack: Stack, shared: Shared, rng: random.Random, spacing: float
) -> list[Fault]:
    """Start the faults of the plan one by one, ``spacing`` apart on average; each runs in a
    thread of its own, so a slow restart does not hold the schedule back."""
    faults: list[Fault] = []
    targets = Targets(stack)
    threads = []
    for index, kind in enumerate(plan):
        if shared.stop.wait(spacing * rng.uniform(0.5, 1.5)):
            break
        fault = Fault(kind, time.monotonic())
        faults.append(fault)
        fault_rng = random.Random(f"{shared.rng_seed}-fault-{index}")
        thread = threading.Thread(
            target=_run_fault, args=(fault, stack, shared, fault_rng, targets), daemon=True
        )
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return faults


def progress(shared: Shared, started: float) -> None:
    """A line a minute on stderr: a long run on a loaded machine is otherwise silent."""
    while not shared.stop.wait(60):
        with shared.lock:
            ended = Counter((t.ended or "open").split(":")[0] for t in shared.turns)
            decided = sum(shared.decisions.values())
        print(
            f"{time.monotonic() - started:.0f}s: turns {dict(ended)}, decisions {decided}",
            file=sys.stderr,
        )


def _run_fault(
    fault: Fault, stack: Stack, shared: Shared, rng: random.Random, targets: Targets
) -> None:
    if fault.kind in SERVER_FAULTS and stack.infra is None:
        fault.skipped = f"{SERVER_FAULTS[fault.kind]} is not ours to restart"
    else:
        try:
            inject(fault.kind, stack=stack, shared=shared, rng=rng, targets=targets)
        except Exception as error:
            fault.skipped = f"{type(error).__name__}: {error}"
    fault.ended = time.monotonic()
    print(
        f"fault {fault.kind} {fault.ended - fault.at:.1f}s {fault.skipped or ''}", file=sys.stderr
    )


# -- invariants ----------------------------------------------------------------------------------


def check_invariants(
    *,
    clients: list[Client],
    stack: Stack,
    accounts: dict[str, dict[str, str]],
    hosts: dict[str, str],
    since: Any,
) -> dict[str, list[str]]:
    from django.db import close_old_connections
    from django_tenants.utils import schema_context

    from actions.models import OutboundMessage, Reminder
    from chat.models import ActionEvent, Conversation, Message, PendingAction

    close_old_connections()
    violations: dict[str, list[str]] = {
        k: [] for k in ("reply", "replay", "action_once", "deliveries", "reminder_once", "tenant")
    }
    ids: dict[str, set[str]] = {}
    stored: dict[str, list[dict[str, Any]]] = {}
    for tenant, host in hosts.items():
        with schema_context(tenant):
            conversations = list(
                Conversation.objects.filter(created_at__gte=since).values_list("uuid", flat=True)
            )
            action_ids = set(
                PendingAction.objects.filter(conversation__uuid__in=conversations).values_list(
                    "id", flat=True
                )
            )
            ids[tenant] = {str(c) for c in conversations} | {str(a) for a in action_ids}
            logs = stored_logs(
                port=stack.web_ports[0],
                host=host,
                token=accounts[tenant]["staff"],
                conversations=[str(c) for c in conversations],
            )
            for followed, log in logs.items():
                stored[followed] = log
                seqs = [f["seq"] for f in log]
                if seqs != list(range(1, len(seqs) + 1)):
                    violations["replay"].append(f"{followed}: stored seqs not 1..n: {seqs}")
                _check_replies(tenant, followed, log, violations)
            users = Message.objects.filter(
                role=Message.Role.USER, conversation__uuid__in=conversations
            ).values_list("uuid", "conversation__uuid")
            for message, conversation in users:
                shown = [
                    f.get("message") for f in stored[str(conversation)] if f["type"] == "message"
                ]
                if str(message) not in shown:
                    violations["reply"].append(f"{tenant} message {message}: not in its log")
            _check_actions(tenant, action_ids, violations, ActionEvent, PendingAction)
            _check_deliveries(
                tenant, action_ids, stack, violations, OutboundMessage, Reminder, PendingAction
            )
    for client in clients:
        violations["replay"] += [f"{client.name}: {d}" for d in client.duplicates]
        for followed, entries in client.logs.items():
            want = stored.get(followed)
            if want is None:
                continue  # a conversation of before this run
            got = [entries[s] for s in sorted(entries)]
            if [_comparable(f) for f in got] != [_comparable(f) for f in want]:
                violations["replay"].append(
                    f"{client.name} {followed}: client seqs {sorted(entries)} vs stored "
                    f"{[f['seq'] for f in want]}; first difference "
                    f"{_first_difference(got, want)}"
                )
    for tenant, frames in _seen(clients).items():
        others = set().union(*(ids[t] for t in ids if t != tenant))
        for frame in frames:
            named = {frame.get("conversation"), (frame.get("action") or {}).get("id")}
            crossed = named & others
            if crossed:
                violations["tenant"].append(f"{tenant} received {frame['type']} of {crossed}")
    return violations


def _seen(clients: list[Client]) -> dict[str, list[dict[str, Any]]]:
    return clients[0].shared.seen if clients else {}


def _comparable(frame: dict[str, Any]) -> Any:
    if frame["type"] in ("pending", "action"):
        action = frame.get("action") or {}
        return (frame["seq"], frame["type"], action.get("id"), action.get("status"))
    return json.dumps(frame, sort_keys=True)


def _first_difference(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> str:
    for a, b in zip(got, want, strict=False):
        if _comparable(a) != _comparable(b):
            return f"client {json.dumps(a)[:300]} stored {json.dumps(b)[:300]}"
    return f"lengths {len(got)} vs {len(want)}"


def _check_replies(
    tenant: str, conversation: str, log: list[dict[str, Any]], violations: dict[str, list[str]]
) -> None:
    """Each user message gets exactly one ending (``done`` or ``error``), before the next user
    message is stored. An ending names the message it ends (an ``error``'s ``reply_to``) or
    ends the latest one; a ``pending`` pauses the turn (its resume's ``done`` ends it), so a
    message may follow it."""
    endings: dict[str, list[str]] = {}
    paused: set[str] = set()
    latest: str | None = None
    for frame in log:
        kind = frame["type"]
        if kind == "message" and frame.get("role") == "user":
            if latest is not None and not endings[latest] and latest not in paused:
                violations["reply"].append(
                    f"{tenant} {conversation}: {frame.get('message')} stored while {latest} "
                    "had no ending"
                )
            latest = str(frame.get("message"))
            endings.setdefault(latest, [])
        elif kind == "pending" and latest is not None:
            paused.add(latest)
        elif kind in ("done", "error"):
            ended = frame.get("reply_to") or latest
            if ended is not None:
                endings.setdefault(str(ended), []).append(kind)
    for message, kinds in endings.items():
        if not kinds:  # a paused turn too: the run rejects what is left pending, then settles
            violations["reply"].append(f"{tenant} {conversation}: {message} unanswered")
        elif len(kinds) > 1:
            violations["reply"].append(
                f"{tenant} {conversation}: {message} ended {len(kinds)} times ({', '.join(kinds)})"
            )


def _check_actions(
    tenant: str, action_ids: set[Any], violations: dict[str, list[str]], events: Any, actions: Any
) -> None:
    kinds: dict[Any, list[str]] = defaultdict(list)
    for action, kind in (
        events.objects.filter(action__in=action_ids).order_by("seq").values_list("action", "kind")
    ):
        kinds[action].append(kind)
    for action in action_ids:
        history = kinds.get(action, [])
        executed = history.count("executed") + history.count("failed")
        if executed > 1:
            violations["action_once"].append(f"{tenant} {action}: ran {executed} times: {history}")
        if executed and not (
            {"approved", "confirmed"}
            & set(history[: history.index("executed" if "executed" in history else "failed")])
        ):
            violations["action_once"].append(f"{tenant} {action}: ran without approval: {history}")


def _check_deliveries(
    tenant: str,
    action_ids: set[Any],
    stack: Stack,
    violations: dict[str, list[str]],
    outbound: Any,
    reminders: Any,
    actions: Any,
) -> None:
    printed = Counter(
        match.group(1)
        for path in stack.worker_logs()
        for match in CONSOLE_LINE.finditer(path.read_text(errors="replace"))
    )
    fired = {r.action_id: r for r in reminders.objects.filter(action_id__in=action_ids)}
    rows: dict[Any, list[Any]] = defaultdict(list)
    for row in outbound.objects.filter(action_id__in=action_ids):
        rows[row.action_id].append(row)
    for action in actions.objects.filter(id__in=action_ids):
        mine = rows.get(action.id, [])
        reminder = fired.get(action.id)
        may_send = (
            reminder.status == reminders.Status.FIRED
            if reminder is not None
            else action.status == actions.Status.EXECUTED
        )
        if mine and not may_send:
            violations["deliveries"].append(
                f"{tenant} {action.id} ({action.tool}, {action.status}): {len(mine)} messages"
            )
        if (
            action.tool.startswith("send_")
            and action.status == actions.Status.EXECUTED
            and not mine
        ):
            violations["deliveries"].append(f"{tenant} {action.id}: executed, no message")
        contacts = Counter((m.contact_id, m.to_address) for m in mine)
        if any(n > 1 for n in contacts.values()):
            violations["deliveries"].append(f"{tenant} {action.id}: a recipient twice: {contacts}")
        for message in mine:
            times = printed.get(str(message.uuid), 0)
            if message.status == "sent" and times != 1:
                violations["deliveries"].append(f"{message.uuid} sent, printed {times} times")
            if message.status in ("queued", "sending"):
                violations["deliveries"].append(f"{message.uuid} still {message.status}")
            if message.status == "failed" and times > 1:
                violations["deliveries"].append(f"{message.uuid} failed, printed {times} times")
        if action.tool == "schedule_reminder" and action.status == actions.Status.EXECUTED:
            if reminder is None:
                violations["reminder_once"].append(f"{tenant} {action.id}: executed, no reminder")
            elif reminder.status != reminders.Status.FIRED:
                violations["reminder_once"].append(
                    f"{tenant} {action.id}: reminder {reminder.status} ({reminder.error})"
                )


# -- the run -------------------------------------------------------------------------------------


def prepare(args: argparse.Namespace) -> tuple[Any, dict[str, dict[str, str]], dict[str, str]]:
    """Django on the chosen servers; the demo tenants; a token per role; the child environment."""
    if args.database_url and args.redis_url:
        os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = args.database_url, args.redis_url
        infra = None
    else:
        for name in ("DATABASE_URL", "REDIS_URL"):  # half a pair given: ours, both
            os.environ.pop(name, None)
        os.environ["COUNTERSIGN_DATA_DIR"] = str(Path(args.data_dir).resolve())
        from core.infra import default_infra

        infra = default_infra()
    os.environ.update(CHILD_SETTINGS)
    for name in ("LLM_BASE_URL", "LLM_API_KEY"):
        os.environ.pop(name, None)  # the offline model: deterministic, nothing outside
    sys.path.insert(0, str(REPO / "bench"))
    from _kb import setup_django

    setup_django()
    from django_tenants.utils import tenant_context

    from chat.tokens import api_token_create
    from tenants.demo import demo_bootstrap
    from tenants.models import Tenant

    demo_bootstrap(log=lambda line: None)
    accounts: dict[str, dict[str, str]] = {}
    hosts: dict[str, str] = {}
    for schema in ("demo", "acme"):
        tenant = Tenant.objects.get(schema_name=schema)
        hosts[schema] = "demo.localhost" if schema == "demo" else "acme.localhost"
        with tenant_context(tenant):
            from django.contrib.auth.models import User

            accounts[schema] = {
                role: api_token_create(user=User.objects.get(username=role), name="chaos")[1]
                for role in ("staff", "approver")
            }
    return infra, accounts, hosts


CHILD_SETTINGS = {
    "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
    "CELERY_RESTORE_INTERVAL": "2",
    "CHAT_TURN_LOCK_SECONDS": "6",
    "CHAT_STRANDED_TURN_SECONDS": "10",
    "CHAT_STRANDED_RESUME_SECONDS": "10",
    "ACTIONS_REMINDER_POLL_SECONDS": "2",
    "ACTIONS_QUEUED_STALE_SECONDS": "10",
    "ACTIONS_SMS_BACKEND": "console",
    "ACTIONS_TELEGRAM_BACKEND": "console",
    "ACTIONS_EMAIL_BACKEND": "console",
    "OFFLINE_MODEL_CHUNK_MS": "10",
    "WS_RATE_LIMIT_PER_SECOND": "200",
    "WS_RATE_LIMIT_BURST": "400",
}


def child_env() -> dict[str, str]:
    from django.conf import settings

    db = settings.DATABASES["default"]
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "DEBUG": "false",
        "SECRET_KEY": "chaos-" + secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": ".localhost,localhost,127.0.0.1",
        "LOG_LEVEL": "warning",
        "PYTHONUNBUFFERED": "1",
        **CHILD_SETTINGS,
    }


def recovery(faults: list[Fault], turns: list[TurnRecord]) -> dict[str, list[float]]:
    """Per fault: from its start to the end of the first turn sent after it that got its done."""
    good = sorted(
        (t.sent, t.ended_at)
        for t in turns
        if t.ended_at is not None and t.ended is not None and t.ended.startswith("done")
    )
    times: dict[str, list[float]] = defaultdict(list)
    for fault in faults:
        if fault.skipped:
            continue
        after = [end for sent, end in good if sent >= fault.at]
        if after:
            times[fault.kind].append(min(after) - fault.at)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--faults-per-kind", type=int, default=10)
    parser.add_argument("--duration", type=float, default=1800, help="seconds of load and faults")
    parser.add_argument("--database-url")
    parser.add_argument("--redis-url")
    parser.add_argument("--data-dir", default=str(REPO / ".data" / "chaos"))
    parser.add_argument("--kinds", default=",".join(FAULT_KINDS), help="fault kinds to inject")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    infra, accounts, hosts = prepare(args)
    from django.utils import timezone

    since = timezone.now()
    logs = Path(tempfile.mkdtemp(prefix="chaos-"))
    stack = Stack(child_env(), logs, infra)
    started = time.monotonic()
    stack.start()
    # A hard stop for the load: twice the schedule's duration.
    shared = Shared(args.seed, args.turns, args.decisions, time.monotonic() + 2 * args.duration)
    clients = [
        Client(
            name=f"c{i}",
            tenant="acme" if i % 5 == 4 else "demo",
            host=hosts["acme" if i % 5 == 4 else "demo"],
            token=accounts["acme" if i % 5 == 4 else "demo"]["staff"],
            stack=stack,
            shared=shared,
        )
        for i in range(args.clients)
    ]
    decider = Decider(
        host=hosts["demo"],
        approver=accounts["demo"]["approver"],
        staff=accounts["demo"]["staff"],
        stack=stack,
        shared=shared,
    )
    plan = schedule(rng, args.kinds.split(","), args.faults_per_kind, args.duration)
    faults: list[Fault] = []
    try:
        threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
        decider_thread = threading.Thread(target=decider.run, daemon=True)
        reporter = threading.Thread(target=progress, args=(shared, started), daemon=True)
        for thread in [*threads, decider_thread, reporter]:
            thread.start()
        faults = fault_loop(
            plan,
            stack=stack,
            shared=shared,
            rng=rng,
            spacing=args.duration / max(1, len(plan) + 1),
        )
        shared.faults_done.set()
        # Load goes on until the turns are sent (or the duration is over), faults or not.
        for thread in threads:
            thread.join(timeout=max(1.0, shared.deadline - time.monotonic() + SETTLE_SECONDS))
        shared.stop.set()
        decider_thread.join(timeout=30)
        decider.settle()
        # Sweeps and redeliveries finish what is left: wait until the database says nothing is
        # (no turn without a stored reply, no action or delivery under way), at least one
        # visibility timeout (a lost task's redelivery) and at most three.
        wait_until_settled(
            hosts, since, at_least=VISIBILITY_TIMEOUT, at_most=VISIBILITY_TIMEOUT * 3
        )
        pull_reminders_forward()
        wait_until_settled(hosts, since, at_least=2, at_most=10)  # the reminders fire and send
        catching_up = [threading.Thread(target=c.catch_up, daemon=True) for c in clients]
        for thread in catching_up:
            thread.start()
        for thread in catching_up:
            thread.join(timeout=600)
        violations = check_invariants(
            clients=clients, stack=stack, accounts=accounts, hosts=hosts, since=since
        )
    finally:
        shared.stop.set()
        stack.stop()
    times = recovery(faults, shared.turns)
    ends = Counter(
        (t.ended or "none").split(":")[0] if t.ended != "done:complete" else "complete"
        for t in shared.turns
    )
    report = {
        "seed": args.seed,
        "command": " ".join(["bench/chaos.py", *(argv if argv is not None else sys.argv[1:])]),
        "wall_seconds": round(time.monotonic() - started, 1),
        "turns": len(shared.turns),
        "turn_endings": dict(Counter(t.ended or "none" for t in shared.turns)),
        "clients": args.clients,
        "decisions": sum(shared.decisions.values()),
        "decisions_by_kind": dict(shared.decisions),
        "decisions_refused": dict(shared.decision_errors),
        "reconnects": sum(c.reconnects for c in clients),
        "faults": {
            kind: {
                "count": sum(1 for f in faults if f.kind == kind and not f.skipped),
                "skipped": [f.skipped for f in faults if f.kind == kind and f.skipped],
                "recovery_p50_s": percentile(times.get(kind, []), 50),
                "recovery_p95_s": percentile(times.get(kind, []), 95),
                "unrecovered": sum(1 for f in faults if f.kind == kind and not f.skipped)
                - len(times.get(kind, [])),
            }
            for kind in args.kinds.split(",")
        },
        "violations": {k: v for k, v in violations.items()},
        "violation_count": sum(len(v) for v in violations.values()),
        "logs": str(logs),
    }
    del ends
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 1 if report["violation_count"] else 0


if __name__ == "__main__":
    sys.exit(main())
