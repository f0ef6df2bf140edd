"""Time to first token of routed turns, against a full offline-model turn measured in the same run.

    .venv/bin/python bench/routed_ttft.py [--rounds 20]

In-process (the turn service, as a worker runs it, without daphne, Celery or the WebSocket),
on the embedded servers of ``.data/bench`` (``COUNTERSIGN_DATA_DIR``), in a tenant of its own
with a one-document knowledge base and one contact. Each round, in a fresh conversation:

- ``routed_small_talk``: "hello", "What can you do?", "안녕하세요", "고마워" in turn — answered by
  the router with the tenant's enabled tools (a policy query, no retrieval, no model);
- ``routed_cancel``: "cancel that" after an SMS request is pending (untimed) — the router
  withdraws the action and resumes the waiting graph to its end before it answers;
- ``agent_knowledge`` (the baseline): a leave question answered by the offline model through
  the graph (prompt, retrieval with a query embedding, extraction).

Time to first token is from the call to ``turn_run`` (the user message already stored) to the
first ``token`` event; ``turn_ms`` is until ``done``. Two warm-up rounds are not counted.
JSON on stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _kb import bench_tenant, emit, percentiles, setup_django

SMALL_TALK = ["hello", "What can you do?", "안녕하세요", "고마워"]
QUESTION = "How many days of paid annual leave do staff get?"
SMS_REQUEST = "Send an SMS to Emma Wilson saying class moved to 3pm"
POLICY = (
    "# Leave policy\n\nStaff receive 20 days of paid annual leave per year. Unused leave can be "
    "carried over for up to three months.\n\n## Sick leave\n\nSick leave requires a doctor's "
    "note after three consecutive days of absence."
)


@dataclass
class Stopwatch:
    """A ``TurnEvents`` sink that notes when the first token and ``done`` arrive."""

    started: float = field(default_factory=time.perf_counter)
    first_token: float | None = None
    finished: float | None = None

    def status(self, stage: str) -> None: ...
    def flush(self) -> None: ...
    def pending(self, action: Any) -> None: ...
    def action(self, action: Any) -> None: ...
    def error(self, code: str, message: str) -> None: ...

    def token(self, content: str) -> None:
        if self.first_token is None:
            self.first_token = time.perf_counter()

    def done(self, message: Any) -> None:
        self.finished = time.perf_counter()


def timed_turn(user: Any, text: str, conversation: Any = None) -> tuple[float, float]:
    """(time to first token, turn) in ms for one message."""
    from chat.services.turns import turn_run, turn_start

    conversation, message, _ = turn_start(
        user=user, text=text, conversation_uuid=conversation.uuid if conversation else None
    )
    watch = Stopwatch()
    turn_run(conversation=conversation, message=message, events=watch)
    assert watch.first_token is not None and watch.finished is not None, text
    return (watch.first_token - watch.started) * 1000, (watch.finished - watch.started) * 1000


def untimed_pending_sms(user: Any) -> Any:
    from chat.models import PendingAction
    from chat.services.turns import turn_run, turn_start

    conversation, message, _ = turn_start(user=user, text=SMS_REQUEST)
    turn_run(conversation=conversation, message=message, events=Stopwatch())
    assert PendingAction.objects.filter(conversation=conversation, status="pending").exists()
    return conversation


def prepare(tenant: Any) -> Any:
    import secrets

    from actions.models import Contact
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
    Contact.objects.get_or_create(name="Emma Wilson", defaults={"phone": "+12025550111"})
    return user


def run(rounds: int) -> dict[str, Any]:
    from django.test import override_settings
    from django_tenants.utils import tenant_context

    from chat.agent.llm import model_label

    tenant = bench_tenant("bench_router")
    samples: dict[str, list[tuple[float, float]]] = {
        "routed_small_talk": [],
        "routed_cancel": [],
        "agent_knowledge": [],
    }
    # The baseline asks one question again and again: the answer cache (bench/answer_cache.py
    # measures it) would answer every round after the first, so it is off here.
    with tenant_context(tenant), override_settings(ANSWER_CACHE_ENABLED=False):
        user = prepare(tenant)
        for index in range(rounds + 2):
            measured = {
                "routed_small_talk": timed_turn(user, SMALL_TALK[index % len(SMALL_TALK)]),
                "routed_cancel": timed_turn(user, "cancel that", untimed_pending_sms(user)),
                "agent_knowledge": timed_turn(user, QUESTION),
            }
            if index >= 2:  # warm-ups: imports, connections, the embedding model
                for kind, sample in measured.items():
                    samples[kind].append(sample)
    return {
        "benchmark": "routed_ttft",
        "rounds": rounds,
        "model": model_label(),
        **{
            kind: {
                "ttft": percentiles([first for first, _ in values]),
                "turn": percentiles([whole for _, whole in values]),
            }
            for kind, values in samples.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    setup_django()
    emit(run(args.rounds))


if __name__ == "__main__":
    main()
