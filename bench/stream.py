"""Streaming end to end: N concurrent WebSocket conversations against real daphne + Celery + Redis.

    .venv/bin/python bench/stream.py [--n 10,50,100] [--rate 50] [--tokens 200] [--ramp 1]

A scripted OpenAI-compatible model (``tests/fakes/paced_llm.py``, its own process) streams
``--tokens`` numbered tokens at ``--rate`` tokens/s to ``ChatOpenAI`` in the worker; it records
when each request arrived and when it wrote each token. The benchmark starts the embedded
PostgreSQL and Redis of ``.data/bench`` (``COUNTERSIGN_DATA_DIR``), one daphne and one Celery
worker (``-P threads``, one thread per conversation), then for each N opens N WebSocket
connections and starts a turn on each, spread evenly over ``--ramp`` seconds. It reports:

- ``ttft_added_ms``: client-observed time to first token minus the model's own (request in →
  first token out), i.e. what the stack adds: consumer, database, queue, worker, graph, Redis,
  channel layer, WebSocket;
- ``token_lag_ms``: each token's arrival at the client minus the time the model wrote it;
- ``completion_ratio``: send → ``done`` over the model-bound ideal tokens/rate;
- ``lost_tokens`` / ``duplicated_tokens`` (token numbers seen by the client, and the ``done``
  text), ``errors``; peak RSS and CPU seconds of the web and worker processes, and
  ``cpu_us_per_token``: their CPU over the run divided by the tokens that reached clients.

``cpu_per_token`` compares, at N = ``--cpu-n`` (10), the product's CPU per relayed token (web
and worker) with a minimal relay's measured in the same run (``bench/_relay.py``: the same
model streamed through a bare asyncio WebSocket server, no Django, Celery, Redis or LangChain),
so ``product_over_relay`` is a ratio that holds on a noisy machine. ``web_over_floor`` does the
same for the web process alone: its CPU per token against the floor of the chosen edge
(``bench/_edge.py``: daphne and a bare Channels consumer sending the same frames at the same
``CHAT_TOKEN_FLUSH_MS``, with no database, Redis, tenant, credential or queue behind them), what
daphne itself costs for this traffic before the product does anything. Where there are two cores
or more, the model, this client and the relay run on the first core and the product (daphne,
worker, the in-process baseline) on the last (``sched_setaffinity``; ``--no-pin`` to share).

The same runs in-process (``baseline``: the turn service with the same model, no daphne, Celery,
Redis events or WebSocket, N threads) give the figures without the serving stack, and a
zero-delay model gives turns per second through both. JSON on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
HOST = "bench-stream.localhost"


def stats(values: list[float], digits: int = 1) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "max": None}
    array = np.array(values)
    return {
        "p50": round(float(np.percentile(array, 50)), digits),
        "p95": round(float(np.percentile(array, 95)), digits),
        "max": round(float(array.max()), digits),
    }


# -- the model -----------------------------------------------------------------------------------


class _PortServer:
    """A server in a process of its own (its threads do not skew the client) that prints its
    port on its first line."""

    def __init__(self, command: list[str]) -> None:
        self.popen = subprocess.Popen(
            command, cwd=REPO, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
        )
        assert self.popen.stdout is not None
        self.port = int(self.popen.stdout.readline())

    def stop(self) -> None:
        self.popen.terminate()
        self.popen.wait(timeout=10)


class Model(_PortServer):
    """The paced model server."""

    def __init__(self) -> None:
        super().__init__([sys.executable, "-m", "tests.fakes.paced_llm"])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def take_emits(self) -> dict[str, dict[str, Any]]:
        import httpx

        emits: dict[str, dict[str, Any]] = httpx.get(
            f"http://127.0.0.1:{self.port}/emits", timeout=30
        ).json()
        return emits


def prompt(key: str, tokens: int, rate: float) -> str:
    return f"bench tokens={tokens} rate={rate} id={key}"


# -- one turn's observations ---------------------------------------------------------------------


class Turn:
    def __init__(self, key: str, tokens: int) -> None:
        self.key = key
        self.tokens = tokens
        self.sent = 0.0
        self.received: dict[int, float] = {}
        self.duplicated = 0
        self.done_at: float | None = None
        self.done_numbers: list[int] = []
        self.error: str | None = None

    def on_tokens(self, content: str, now: float) -> None:
        from tests.fakes.paced_llm import TOKEN

        for match in TOKEN.finditer(content):
            number = int(match.group(1))
            if number in self.received:
                self.duplicated += 1
            else:
                self.received[number] = now

    def on_done(self, content: str, now: float) -> None:
        from tests.fakes.paced_llm import TOKEN

        self.done_at = now
        self.done_numbers = [int(m.group(1)) for m in TOKEN.finditer(content)]


def summarise(turns: list[Turn], emits: dict[str, dict[str, Any]], rate: float) -> dict[str, Any]:
    ttft_added, lags, ratios, slips = [], [], [], []
    lost = duplicated = errors = 0
    for turn in turns:
        duplicated += turn.duplicated
        if turn.sent:  # a connection that never opened lost no tokens (it is an error)
            lost += turn.tokens - len(turn.received)
        if turn.done_at is not None and sorted(turn.done_numbers) != list(range(turn.tokens)):
            lost += 1  # the stored reply is wrong even if the stream was right
        if turn.error or turn.done_at is None:
            errors += 1
            continue
        model = emits.get(turn.key)
        if model is None or not model["emits"]:
            errors += 1
            continue
        model_ttft = model["emits"][0] - model["received"]
        if 0 in turn.received:
            ttft_added.append((turn.received[0] - turn.sent - model_ttft) * 1000)
        lags += [
            (turn.received[i] - t) * 1000
            for i, t in enumerate(model["emits"])
            if i in turn.received
        ]
        if rate > 0:
            ratios.append((turn.done_at - turn.sent) / (turn.tokens / rate))
            if turn.tokens > 1:
                slips.append((model["emits"][-1] - model["emits"][0]) / ((turn.tokens - 1) / rate))
    return {
        "turns": len(turns),
        "ttft_added_ms": stats(ttft_added),
        "token_lag_ms": stats(lags),
        "completion_ratio": stats(ratios, 3),
        "model_pace_ratio": stats(slips, 3),  # >1: the scripted model itself fell behind
        "lost_tokens": lost,
        "duplicated_tokens": duplicated,
        "errors": errors,
    }


# -- through the stack -------------------------------------------------------------------------


async def _converse(
    port: int, token: str, turns: list[Turn], starts: list[float], rate: float
) -> None:
    """One WebSocket connection running ``turns`` one after another (each a new conversation)."""
    from websockets.asyncio.client import connect

    async with connect(
        f"ws://{HOST}:{port}/ws/chat/",
        host="127.0.0.1",
        port=port,
        additional_headers={"Authorization": f"Bearer {token}"},
        max_size=None,
        open_timeout=60,
        ping_interval=None,
    ) as ws:
        for turn, start in zip(turns, starts, strict=True):
            delay = start - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            turn.sent = time.time()
            await ws.send(
                json.dumps(
                    {
                        "type": "chat.send",
                        "conversation": None,
                        "text": prompt(turn.key, turn.tokens, rate),
                    }
                )
            )
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=120))
                now = time.time()
                if frame["type"] == "token":
                    turn.on_tokens(frame["content"], now)
                elif frame["type"] == "done":
                    turn.on_done(frame["content"], now)
                    break
                elif frame["type"] == "error":
                    turn.error = f"{frame.get('code')}: {frame.get('message')}"
                    break


async def _run_stack(
    port: int, token: str, plan: list[list[Turn]], starts: list[list[float]], rate: float
) -> None:
    results = await asyncio.gather(
        *(_converse(port, token, t, s, rate) for t, s in zip(plan, starts, strict=True)),
        return_exceptions=True,
    )
    for turns, result in zip(plan, results, strict=True):
        if isinstance(result, BaseException):
            for turn in turns:
                if turn.done_at is None and turn.error is None:
                    turn.error = f"{result.__class__.__name__}: {result}"


class Sampler:
    """Peak RSS and CPU seconds of the web and worker processes (with their children)."""

    def __init__(self, pids: dict[str, int]) -> None:
        import psutil

        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.peak: dict[str, int] = dict.fromkeys(pids, 0)
        self.cpu_start = {name: self._cpu(p) for name, p in self.procs.items()}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    @staticmethod
    def _family(proc: Any) -> list[Any]:
        return [proc, *proc.children(recursive=True)]

    def _cpu(self, proc: Any) -> float:
        total = 0.0
        for p in self._family(proc):
            times = p.cpu_times()
            total += times.user + times.system
        return total

    def _loop(self) -> None:
        while not self._stop.wait(0.2):
            for name, proc in self.procs.items():
                rss = sum(p.memory_info().rss for p in self._family(proc))
                self.peak[name] = max(self.peak[name], rss)

    def finish(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join()
        self._loop_once()
        return {
            "peak_rss_mib": {name: round(v / 2**20, 1) for name, v in self.peak.items()},
            "cpu_seconds": {
                name: round(self._cpu(p) - self.cpu_start[name], 2)
                for name, p in self.procs.items()
            },
        }

    def _loop_once(self) -> None:
        for name, proc in self.procs.items():
            rss = sum(p.memory_info().rss for p in self._family(proc))
            self.peak[name] = max(self.peak[name], rss)


def per_token(result: dict[str, Any], turns: list[Turn]) -> None:
    """CPU microseconds per token that reached a client, per sampled process."""
    relayed = sum(len(turn.received) for turn in turns)
    result["tokens_relayed"] = relayed
    result["cpu_us_per_token"] = {
        name: round(seconds * 1e6 / relayed) if relayed else None
        for name, seconds in result["cpu_seconds"].items()
    }


def stack_run(
    *,
    port: int,
    token: str,
    model: Model,
    pids: dict[str, int],
    connections: int,
    turns_each: int,
    tokens: int,
    rate: float,
    ramp: float,
) -> dict[str, Any]:
    plan = [
        [Turn(f"s{c}-{i}-{secrets.token_hex(3)}", tokens) for i in range(turns_each)]
        for c in range(connections)
    ]
    model.take_emits()
    measured, elapsed = _drive(port, token, plan, pids, rate=rate, ramp=ramp)
    every = [t for turns in plan for t in turns]
    result = summarise(every, model.take_emits(), rate)
    result.update(measured)
    per_token(result, every)
    result["elapsed_s"] = round(elapsed, 2)
    result["first_errors"] = [t.error for turns in plan for t in turns if t.error][:3]
    return result


def _drive(
    port: int, token: str, plan: list[list[Turn]], pids: dict[str, int], *, rate: float, ramp: float
) -> tuple[dict[str, Any], float]:
    """Run ``plan`` (one list of turns per connection, the first turns spread over ``ramp``)
    against the server on ``port``; the sampled processes' RSS and CPU, and the seconds since
    the first turn was due."""
    connections, turns_each = len(plan), len(plan[0])
    t0 = time.time() + 1.0  # connections open first
    starts = [[t0 + ramp * c / connections] + [0.0] * (turns_each - 1) for c in range(connections)]
    sampler = Sampler(pids)
    began = time.time()
    asyncio.run(_run_stack(port, token, plan, starts, rate))
    elapsed = time.time() - max(began, t0)
    return sampler.finish(), elapsed


# -- in process (the baseline) -------------------------------------------------------------------


def baseline_run(
    *,
    tenant: Any,
    user: Any,
    model: Model,
    threads: int,
    turns_each: int,
    tokens: int,
    rate: float,
    ramp: float,
) -> dict[str, Any]:
    """The same graph and model through the turn service, N threads, no serving stack."""
    from django.db import connection
    from django_tenants.utils import tenant_context

    from chat.agent.runner import CollectingEvents
    from chat.services.turns import turn_run, turn_start

    class Timing(CollectingEvents):
        def __init__(self, turn: Turn) -> None:
            super().__init__()
            self.turn = turn

        def token(self, content: str) -> None:
            self.turn.on_tokens(content, time.time())

        def done(self, message: Any) -> None:
            self.turn.on_done(message.content, time.time())

    plan = [
        [Turn(f"b{c}-{i}-{secrets.token_hex(3)}", tokens) for i in range(turns_each)]
        for c in range(threads)
    ]
    t0 = time.time() + 0.5

    def run(index: int) -> None:
        try:
            delay = t0 + ramp * index / threads - time.time()
            if delay > 0:
                time.sleep(delay)
            with tenant_context(tenant):
                for turn in plan[index]:
                    turn.sent = time.time()
                    conversation, message, _ = turn_start(
                        user=user, text=prompt(turn.key, tokens, rate)
                    )
                    turn_run(conversation=conversation, message=message, events=Timing(turn))
        except Exception as error:  # reported in the JSON, not raised
            for turn in plan[index]:
                if turn.done_at is None:
                    turn.error = f"{error.__class__.__name__}: {error}"
        finally:
            connection.close()

    model.take_emits()
    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.time() - t0
    result = summarise([t for turns in plan for t in turns], model.take_emits(), rate)
    result["elapsed_s"] = round(elapsed, 2)
    return result


# -- the minimal relay (the baseline of CPU per token) ------------------------------------------


class Relay(_PortServer):
    """bench/_relay.py, talking to the same model."""

    def __init__(self, model: Model) -> None:
        super().__init__(
            [sys.executable, str(REPO / "bench" / "_relay.py"), "--model", model.base_url]
        )


# -- the floor of the web edge -------------------------------------------------------------------


class Edge(_PortServer):
    """bench/_edge.py: daphne and a bare Channels consumer sending the product's frames."""

    def __init__(self, flush_ms: float) -> None:
        script = str(REPO / "bench" / "_edge.py")
        super().__init__([sys.executable, script, "--flush-ms", str(flush_ms)])


def edge_run(
    *, port: int, pid: int, connections: int, tokens: int, rate: float, ramp: float
) -> dict[str, Any]:
    """The stack's client against the edge floor: CPU per token, and what did not arrive."""
    plan = [[Turn(f"e{c}-{secrets.token_hex(3)}", tokens)] for c in range(connections)]
    result, _ = _drive(port, "", plan, {"edge": pid}, rate=rate, ramp=ramp)
    turns = [turns[0] for turns in plan]
    per_token(result, turns)
    result["lost_tokens"] = sum(turn.tokens - len(turn.received) for turn in turns)
    result["errors"] = sum(1 for turn in turns if turn.error or turn.done_at is None)
    return result


# -- cores ---------------------------------------------------------------------------------------


def cores() -> tuple[set[int], set[int]] | None:
    """(the model's and clients' core, the product's core), or None on one core."""
    available = sorted(os.sched_getaffinity(0))
    if len(available) < 2:
        return None
    return {available[0]}, {available[-1]}


def pin(core: set[int] | None) -> None:
    """Run this thread, and the processes and threads it starts from now on, on ``core``."""
    if core is not None:
        os.sched_setaffinity(0, core)


# -- set-up --------------------------------------------------------------------------------------


def prepare(model: Model) -> tuple[Any, Any, str]:
    os.environ.update(
        {"LLM_BASE_URL": model.base_url, "LLM_MODEL": "paced", "LLM_API_KEY": "bench"}
    )
    sys.path.insert(0, str(REPO / "bench"))
    from _kb import setup_django

    setup_django()
    from django_tenants.utils import tenant_context

    from chat.tokens import api_token_create
    from tenants.roles import STAFF
    from tenants.services import TenantSpec, tenant_get_or_create, user_upsert

    tenant, _ = tenant_get_or_create(
        spec=TenantSpec(schema_name="bench_stream", name="bench stream", domains=(HOST,))
    )
    user = user_upsert(
        tenant=tenant, username="bench", password=secrets.token_urlsafe(16), role=STAFF
    )
    with tenant_context(tenant):
        _, token = api_token_create(user=user, name="bench")
    return tenant, user, token


def child_env(model: Model, *, concurrency: int) -> dict[str, str]:
    from django.conf import settings

    db = settings.DATABASES["default"]
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "DEBUG": "false",
        "SECRET_KEY": "bench-" + secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": ".localhost,127.0.0.1",
        "LLM_BASE_URL": model.base_url,
        "LLM_MODEL": "paced",
        "LLM_API_KEY": "bench",
        "CELERY_WORKER_CONCURRENCY": str(concurrency),
        "LOG_LEVEL": "warning",
        "PYTHONUNBUFFERED": "1",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="10,50,100", help="concurrent conversations, per run")
    parser.add_argument("--rate", type=float, default=50.0, help="model tokens per second")
    parser.add_argument("--tokens", type=int, default=200, help="tokens per reply")
    parser.add_argument("--ramp", type=float, default=1.0, help="seconds over which turns start")
    parser.add_argument("--zero-delay-turns", type=int, default=100)
    parser.add_argument("--zero-delay-connections", type=int, default=10)
    parser.add_argument("--cpu-n", type=int, default=10, help="N of the CPU-per-token comparison")
    parser.add_argument("--no-pin", action="store_true", help="do not pin processes to cores")
    args = parser.parse_args()
    split = None if args.no_pin else cores()
    clients_core, product_core = split if split else (None, None)
    ns = [int(n) for n in args.n.split(",")]
    zero_each = max(1, args.zero_delay_turns // args.zero_delay_connections)

    pin(clients_core)
    model = Model()
    web = worker = relay = edge = None
    try:
        tenant, user, token = prepare(model)
        from django.conf import settings

        from tests.e2e.processes import start_daphne, start_worker

        # Warm-ups, here and for the stack: first imports and connections are not measured.
        pin(product_core)  # the in-process baseline runs the product's code: on its core
        baseline_run(
            tenant=tenant, user=user, model=model, threads=1, turns_each=1, tokens=5, rate=0, ramp=0
        )
        baseline = {
            str(n): baseline_run(
                tenant=tenant,
                user=user,
                model=model,
                threads=n,
                turns_each=1,
                tokens=args.tokens,
                rate=args.rate,
                ramp=args.ramp,
            )
            for n in ns
        }
        baseline_zero = baseline_run(
            tenant=tenant,
            user=user,
            model=model,
            threads=args.zero_delay_connections,
            turns_each=zero_each,
            tokens=args.tokens,
            rate=0,
            ramp=0,
        )
        concurrency = max([*ns, args.zero_delay_connections])
        env = child_env(model, concurrency=concurrency)
        logs = Path(tempfile.mkdtemp(prefix="bench-stream-"))
        web, port = start_daphne(env, logs)
        worker = start_worker(env, logs, "bench", concurrency=concurrency)
        pin(clients_core)
        relay = Relay(model)
        pids = {"web": web.popen.pid, "worker": worker.popen.pid}
        common: dict[str, Any] = {"port": port, "token": token, "model": model, "pids": pids}
        # Warm-up at the largest N: each worker thread's and each pooled database connection's
        # first use is start-up, not the steady cost per token measured below.
        warm = max([*ns, args.cpu_n, args.zero_delay_connections])
        stack_run(**common, connections=warm, turns_each=1, tokens=5, rate=0, ramp=0)
        stack = {
            str(n): stack_run(
                **common,
                connections=n,
                turns_each=1,
                tokens=args.tokens,
                rate=args.rate,
                ramp=args.ramp,
            )
            for n in ns
        }
        cpu_n = {"connections": args.cpu_n, "turns_each": 1, "tokens": args.tokens}
        cpu_n.update(rate=args.rate, ramp=args.ramp)
        relay_common = {**common, "port": relay.port, "pids": {"relay": relay.popen.pid}}
        stack_run(**relay_common, connections=1, turns_each=1, tokens=5, rate=0, ramp=0)
        relayed = stack_run(**relay_common, **cpu_n)
        pin(product_core)  # the edge floor stands for the product's web process: on its core
        edge = Edge(settings.CHAT_TOKEN_FLUSH_MS)
        pin(clients_core)
        edge_common = {"port": edge.port, "pid": edge.popen.pid}
        edge_run(**edge_common, connections=args.cpu_n, tokens=5, rate=0, ramp=0)
        floor = edge_run(**edge_common, **{k: v for k, v in cpu_n.items() if k != "turns_each"})
        product = (
            stack[str(args.cpu_n)] if str(args.cpu_n) in stack else stack_run(**common, **cpu_n)
        )
        zero = stack_run(
            **common,
            connections=args.zero_delay_connections,
            turns_each=zero_each,
            tokens=args.tokens,
            rate=0,
            ramp=0,
        )
    finally:
        for process in (worker, web, relay, edge):
            if process is not None:
                process.stop()
        model.stop()

    def turns_per_second(run: dict[str, Any]) -> float:
        done = run["turns"] - run["errors"]
        return round(done / run["elapsed_s"], 2) if run["elapsed_s"] else 0.0

    sys.path.insert(0, str(REPO / "bench"))
    from _kb import emit

    largest = str(max(ns))
    emit(
        {
            "benchmark": "stream",
            "tokens": args.tokens,
            "rate_per_s": args.rate,
            "ramp_s": args.ramp,
            "ideal_completion_s": round(args.tokens / args.rate, 3) if args.rate else None,
            "worker_threads": concurrency,
            "chat_token_flush_ms": settings.CHAT_TOKEN_FLUSH_MS,
            "pinned": {"model_clients_relay": sorted(split[0]), "product": sorted(split[1])}
            if split
            else None,
            "cpu_per_token": cpu_per_token(product, relayed, floor, args.cpu_n),
            "stack": stack,
            "baseline_in_process": baseline,
            "zero_delay": {
                "connections": args.zero_delay_connections,
                "stack_turns_per_s": turns_per_second(zero),
                "baseline_turns_per_s": turns_per_second(baseline_zero),
                "stack": zero,
                "baseline_in_process": baseline_zero,
            },
            "targets": {
                "n": int(largest),
                "completion_ratio_p95<=1.10": _le(stack[largest]["completion_ratio"]["p95"], 1.10),
                "ttft_added_p95_ms<=100": _le(stack[largest]["ttft_added_ms"]["p95"], 100),
                "no_lost_or_duplicated_tokens": stack[largest]["lost_tokens"] == 0
                and stack[largest]["duplicated_tokens"] == 0
                and stack[largest]["errors"] == 0,
            },
        }
    )


def cpu_per_token(
    product: dict[str, Any], relayed: dict[str, Any], floor: dict[str, Any], n: int
) -> dict[str, Any]:
    """The product's CPU per relayed token against the minimal relay's, and its web process's
    against the edge floor's (daphne and a bare consumer sending the same frames), at one N."""
    mine = product["cpu_us_per_token"]
    total = mine["web"] + mine["worker"] if None not in mine.values() else None
    baseline = relayed["cpu_us_per_token"]["relay"]
    edge = floor["cpu_us_per_token"]["edge"]
    return {
        "n": n,
        "web_us": mine["web"],
        "worker_us": mine["worker"],
        "product_us": total,
        "relay_us": baseline,
        "product_over_relay": round(total / baseline, 2) if total and baseline else None,
        "relay_run": {k: relayed[k] for k in ("tokens_relayed", "lost_tokens", "errors")},
        "web_floor_us": edge,
        "web_over_floor": round(mine["web"] / edge, 2) if mine["web"] and edge else None,
        "floor_run": {k: floor[k] for k in ("tokens_relayed", "lost_tokens", "errors")},
    }


def _le(value: float | None, limit: float) -> bool:
    return value is not None and value <= limit


if __name__ == "__main__":
    main()
