"""Prometheus metrics: every series the product exports, and the /metrics exposition.

Multiprocess mode: each web (daphne) and worker (Celery) process writes its samples to
memory-mapped files in ``PROMETHEUS_MULTIPROC_DIR`` (set by config/settings.py before this
module is imported), and a scrape of any web process on the machine adds up every file, so the
numbers are right whichever process served the turn. Celery queue depth is not a sample any
process writes: it is read from Redis at scrape time.

Labels are bounded on purpose: outcome, kind, decision, error class name, method, queue. No
tenant, user or conversation label (per-tenant numbers are in the usage tables, see
chat/services/usage.py), and nothing a person typed ever becomes a label.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterator

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.bearer import bearer_token
from core.redis_clients import probe_redis

# Reading a setting loads config/settings.py, which exports PROMETHEUS_MULTIPROC_DIR: the client
# picks multiprocess mode once, when first imported, from that variable.
_MULTIPROC_DIR = settings.PROMETHEUS_MULTIPROC_DIR

from prometheus_client import (  # noqa: E402
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric  # noqa: E402
from prometheus_client.registry import Collector  # noqa: E402

# Turns take seconds (the model streams); retrieval takes milliseconds.
_TURN_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300)
_FAST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

TURN_DURATION = Histogram(
    "chat_turn_duration_seconds",
    "Wall time of one run of the graph in a worker, by how it ended "
    "(complete, paused for approval, cancelled, failed, routed: answered by the router).",
    ["outcome"],
    buckets=_TURN_BUCKETS,
)
TIME_TO_FIRST_TOKEN = Histogram(
    "chat_time_to_first_token_seconds",
    "From a worker starting a run to the model's first streamed token.",
    buckets=_FAST_BUCKETS,
)
TOKENS = Counter(
    "chat_tokens", "Model tokens used, as reported by the model (kind: input or output).", ["kind"]
)
TURNS_REFUSED = Counter(
    "chat_turns_refused", "New turns refused before running (reason: budget).", ["reason"]
)
HITL_DECISIONS = Counter(
    "hitl_decisions",
    "Decisions on pending actions: approved, edited (approved with changed arguments), rejected, "
    "withdrawn (by the requester), expired (nobody decided in time).",
    ["decision"],
)
AGENT_ERRORS = Counter(
    "agent_errors",
    "Runs that failed (the exception's class name), hit the recursion limit or called an "
    "unknown tool.",
    ["type"],
)
SQL_RETRIES = Counter(
    "agent_sql_retries", "query_data calls that failed and were handed back to the model to repair."
)
HTTP_SHED = Counter(
    "http_requests_shed",
    "HTTP requests answered 503 before running, because the process's admission limit was full "
    "(reason: queue_full: the hard cap of waiting requests; expected_wait: it could not be "
    "served within WEB_QUEUE_TIMEOUT_SECONDS; waited: it waited that long).",
    ["reason"],
)
WORKER_LOST_RECOVERIES = Counter(
    "chat_stranded_actions_recovered",
    "Approved actions a lost worker left executing, finished by the resumed turn.",
)
APPROVAL_NOTIFICATIONS = Counter(
    "approval_notifications",
    "Digests telling approvers what waits for them (notifications/), by channel (email, "
    "telegram, sms) and outcome (sent, failed: the provider refused it or it never answered).",
    ["channel", "outcome"],
)
KB_RETRIEVAL = Histogram(
    "kb_retrieval_seconds",
    "Knowledge-base search latency (embedding the query plus the one SQL statement).",
    ["method"],
    buckets=_FAST_BUCKETS,
)
KB_QUERY_EMBEDDING_CACHE = Counter(
    "kb_query_embedding_cache",
    "Query embeddings looked up in the cache (result: hit_memory, hit_redis, miss, error: the "
    "cache failed and the model computed the vector). Hit rate: hits / (hits + miss).",
    ["result"],
)
ANSWER_CACHE = Counter(
    "chat_answer_cache",
    "Knowledge answers looked up in the per-tenant answer cache (result: hit, miss, stored, "
    "error: the cache failed and the agent answered). Hit rate: hit / (hit + miss).",
    ["result"],
)

AUDIT_CHAIN_BREAKS = Counter(
    "audit_chain_breaks",
    "Nightly audit-chain checks that found a tenant's trail broken (a removed, edited or "
    "reordered event); the ERROR log line names the tenant and the first broken event.",
)

# Every label set the product knows, written at zero when a process starts: a series appears in
# the exposition only once written, so an alert on ``increase(agent_errors_total[5m])`` or a
# dashboard panel read "no data" (which looks like health) until the first error. Labels made
# of an exception's class name are open-ended and appear when they first happen.
_KNOWN_LABELS: tuple[tuple[Counter | Histogram, tuple[dict[str, str], ...]], ...] = (
    (
        TURN_DURATION,
        tuple(
            {"outcome": outcome}
            for outcome in ("complete", "paused", "cancelled", "failed", "routed", "cached")
        ),
    ),
    (TOKENS, ({"kind": "input"}, {"kind": "output"})),
    (TURNS_REFUSED, ({"reason": "budget"},)),
    (
        HITL_DECISIONS,
        tuple(
            {"decision": decision}
            for decision in ("approved", "edited", "rejected", "withdrawn", "expired")
        ),
    ),
    (AGENT_ERRORS, ({"type": "recursion_limit"}, {"type": "unknown_tool"})),
    (
        HTTP_SHED,
        tuple({"reason": reason} for reason in ("queue_full", "expected_wait", "waited")),
    ),
    (
        APPROVAL_NOTIFICATIONS,
        tuple(
            {"channel": channel, "outcome": outcome}
            for channel in ("email", "telegram", "sms")
            for outcome in ("sent", "failed")
        ),
    ),
    (KB_RETRIEVAL, ({"method": "hybrid"},)),
    (
        KB_QUERY_EMBEDDING_CACHE,
        tuple({"result": r} for r in ("hit_memory", "hit_redis", "miss", "error")),
    ),
    (ANSWER_CACHE, tuple({"result": r} for r in ("hit", "miss", "stored", "error"))),
)
for _metric, _label_sets in _KNOWN_LABELS:
    for _labels in _label_sets:
        _metric.labels(**_labels)


class CeleryQueueDepth(Collector):
    """``celery_queue_depth{queue}``: messages waiting in each Celery queue, read at scrape.

    kombu's Redis transport keeps a queue as Redis lists named ``<global_keyprefix><queue>``
    for priority 0 and ``<prefix><queue>\\x06\\x16<n>`` for the other priority steps; the
    depth is the sum of their lengths (what kombu's own ``_size`` adds up).
    """

    _PRIORITY_SEPARATOR = "\x06\x16"
    _PRIORITY_STEPS = (0, 3, 6, 9)

    def collect(self) -> Iterator[Metric]:
        import redis

        from core.celery import queue_names

        family = GaugeMetricFamily(
            "celery_queue_depth",
            "Messages waiting in a Celery queue (read from Redis).",
            None,
            ["queue"],
        )
        prefix = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix", "")
        client = probe_redis()
        try:
            for name in queue_names():
                keys = [
                    f"{prefix}{name}" + (f"{self._PRIORITY_SEPARATOR}{step}" if step else "")
                    for step in self._PRIORITY_STEPS
                ]
                pipe = client.pipeline()
                for key in keys:
                    pipe.llen(key)
                family.add_metric([str(name)], sum(pipe.execute()))
        except redis.RedisError:
            return  # Redis down: /readyz says so; the scrape still returns the other series
        yield family


def metrics_exposition() -> bytes:
    """Every process's samples added up, plus the queue depths, in Prometheus text format."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(settings.PROMETHEUS_MULTIPROC_DIR))
    registry.register(CeleryQueueDepth())
    return generate_latest(registry)


def scrape_refusal(request: HttpRequest) -> str | None:
    """Why this request may not read /metrics; None when it may.

    With ``METRICS_TOKEN`` set the bearer token is required from everyone. Without it, only a
    loopback or private peer address is served (``METRICS_ALLOW_INTERNAL``). Behind a load
    balancer the peer is the balancer: set a token or keep /metrics off the public route.
    """
    if settings.METRICS_TOKEN:
        token = bearer_token(request.headers.get("Authorization", "")) or ""
        if hmac.compare_digest(token.encode(), settings.METRICS_TOKEN.encode()):
            return None
        return "a valid METRICS_TOKEN bearer token is required"
    if not settings.METRICS_ALLOW_INTERNAL:
        return "metrics are disabled (set METRICS_TOKEN or METRICS_ALLOW_INTERNAL)"
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return "metrics are served to internal addresses only"
    if peer.is_loopback or peer.is_private:
        return None
    return "metrics are served to internal addresses only"


def metrics_view(request: HttpRequest) -> HttpResponse:
    refusal = scrape_refusal(request)
    if refusal is not None:
        return JsonResponse({"error": {"code": "forbidden", "message": refusal}}, status=403)
    return HttpResponse(metrics_exposition(), content_type=CONTENT_TYPE_LATEST)
