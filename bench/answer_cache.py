"""Time to first token of a repeated knowledge question: from the answer cache, and without it
(the baseline), measured in the same run.

    .venv/bin/python bench/answer_cache.py [--rounds 20]

In-process (the turn service, as a worker runs it, without daphne, Celery or the WebSocket), on
the embedded servers of ``.data/bench`` (``COUNTERSIGN_DATA_DIR``), in a tenant of its own with
a one-document knowledge base, answered by the offline model. Every turn is the first message
of a fresh conversation (only those may be answered from the cache). Each round:

- ``uncached`` (the baseline): the question with the answer cache switched off
  (``ANSWER_CACHE_ENABLED=false``): prompt, retrieval (its query embedding already in the
  query-embedding cache, as for any repeated question), extraction, checkpoint writes;
- ``cached``: the same question with the cache on; it was answered once before the rounds.
- ``first_ask``: a question never asked before (a round number in it), with the cache on: both
  caches miss, so this is the baseline plus the cost of looking up and storing.

``lookup_ms`` is the cost the cache adds to a miss: building the key (three one-row reads) and
one Redis GET. Time to first token is from the call to ``turn_run`` (the user message already
stored) to the first ``token`` event; ``turn_ms`` until ``done``. Two warm-up rounds are not
counted. JSON on stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _kb import bench_tenant, emit, percentiles, setup_django
from routed_ttft import POLICY, QUESTION, timed_turn


def prepare(tenant: Any) -> Any:
    import secrets

    from knowledge.indexing import kb_reindex
    from knowledge.models import Document
    from knowledge.services import document_create_from_text
    from tenants.roles import STAFF
    from tenants.services import user_upsert

    user = user_upsert(
        tenant=tenant, username="bench", password=secrets.token_urlsafe(16), role=STAFF
    )
    if not Document.objects.exists():
        document_create_from_text(title="Leave policy", text=POLICY)
        kb_reindex()
    return user


def lookup_ms(user: Any) -> float:
    """One cache lookup that misses, as ``turn_run`` does it before the graph."""
    from chat.models import Conversation, Message
    from chat.services.answer_cache import answer_cache_get, answer_cache_key

    conversation = Conversation.objects.create(user=user)
    message = Message.objects.create(
        conversation=conversation, role=Message.Role.USER, content=f"{QUESTION} {time.time()}"
    )
    started = time.perf_counter()
    key = answer_cache_key(conversation=conversation, message=message, model="bench")
    assert key is not None
    assert answer_cache_get(key) is None
    return (time.perf_counter() - started) * 1000


def run(rounds: int) -> dict[str, Any]:
    from django.test import override_settings
    from django_tenants.utils import tenant_context

    from chat.agent.llm import model_label
    from chat.models import Message

    tenant = bench_tenant("bench_answer_cache")
    samples: dict[str, list[tuple[float, float]]] = {"uncached": [], "cached": [], "first_ask": []}
    lookups: list[float] = []
    with tenant_context(tenant):
        user = prepare(tenant)
        timed_turn(user, QUESTION)  # stores the answer the cached rounds get
        for index in range(rounds + 2):
            with override_settings(ANSWER_CACHE_ENABLED=False):
                uncached = timed_turn(user, QUESTION)
            measured = {
                "uncached": uncached,
                "cached": timed_turn(user, QUESTION),
                "first_ask": timed_turn(user, f"{QUESTION} (round {index} of {time.time()})"),
            }
            lookup = lookup_ms(user)
            if index >= 2:  # warm-ups: imports, connections, the embedding model
                for kind, sample in measured.items():
                    samples[kind].append(sample)
                lookups.append(lookup)
        last = Message.objects.filter(role=Message.Role.ASSISTANT).order_by("-created_at")
        cached_replies = last.filter(usage__cached=True).count()
    assert cached_replies >= rounds, "the cached rounds were not answered from the cache"
    return {
        "benchmark": "answer_cache",
        "rounds": rounds,
        "model": model_label(),
        **{
            kind: {
                "ttft": percentiles([first for first, _ in values]),
                "turn": percentiles([whole for _, whole in values]),
            }
            for kind, values in samples.items()
        },
        "lookup_ms": percentiles(lookups),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    setup_django()
    emit(run(args.rounds))


if __name__ == "__main__":
    main()
