"""Model usage: tokens and estimated cost per run, daily totals per tenant, the monthly budget.

Each run of the graph records the model calls it made itself (``run_usage``: the AI messages
that are new in the checkpoint since the run began), so a turn paused for approval counts the
call before the pause in its first run and the calls after the decision in the resume, never
one twice. ``usage_record`` stores that once per run id and adds it, in the same transaction,
to the tenant's ``UsageDay`` (tenant schema) and to ``TenantUsageDay`` (public schema, what the
platform admin lists). Prices come from ``LLM_PRICE_INPUT_PER_MTOK`` /
``LLM_PRICE_OUTPUT_PER_MTOK``; the offline model costs nothing by default.
"""

from __future__ import annotations

import calendar
import datetime
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone
from langchain_core.messages import AIMessage

from chat.models import Conversation, RunUsage, UsageDay
from core.metrics import TOKENS, TURNS_REFUSED
from core.schema import current_tenant
from tenants.models import Tenant, TenantUsageDay

_MILLION = Decimal(1_000_000)
_SIX_DECIMALS = Decimal("0.000001")


class BudgetExhausted(Exception):
    """The tenant's monthly token budget is spent; no new turn may start this month."""


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )


def usage_of(messages: Iterable[Any]) -> Usage:
    """Tokens the model reported on these messages (non-AI messages count nothing)."""
    total = Usage()
    for message in messages:
        if isinstance(message, AIMessage):
            meta: dict[str, Any] = dict(message.usage_metadata or {})
            total += Usage(int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)))
    return total


def run_usage(*, before: set[str | None], messages: list[Any]) -> Usage:
    """The usage of the AI messages a run added: those whose ids were not in ``before``."""
    return usage_of(m for m in messages if m.id not in before)


def usage_cost(usage: Usage) -> Decimal:
    """Estimated cost at the configured prices per million tokens, to six decimals."""
    price_in = Decimal(str(settings.LLM_PRICE_INPUT_PER_MTOK))
    price_out = Decimal(str(settings.LLM_PRICE_OUTPUT_PER_MTOK))
    cost = (usage.input_tokens * price_in + usage.output_tokens * price_out) / _MILLION
    return cost.quantize(_SIX_DECIMALS)


def usage_payload(usage: Usage, *, model: str, cached: bool = False) -> dict[str, Any]:
    """What a reply's ``usage`` JSON holds (the ``done`` frame shows it as is); ``cached``
    marks a reply given again from the answer cache (chat/services/answer_cache.py)."""
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost": float(usage_cost(usage)),
        "model": model,
        "cached": cached,
    }


_UPSERT_TENANT_DAY = """
INSERT INTO {table} (date, input_tokens, output_tokens, cost, turns)
VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (date) DO UPDATE SET
    input_tokens = {table}.input_tokens + EXCLUDED.input_tokens,
    output_tokens = {table}.output_tokens + EXCLUDED.output_tokens,
    cost = {table}.cost + EXCLUDED.cost,
    turns = {table}.turns + EXCLUDED.turns
"""
_UPSERT_PLATFORM_DAY = """
INSERT INTO {table} (tenant_id, date, input_tokens, output_tokens, cost, turns)
VALUES (%s, %s, %s, %s, %s, %s)
ON CONFLICT (tenant_id, date) DO UPDATE SET
    input_tokens = {table}.input_tokens + EXCLUDED.input_tokens,
    output_tokens = {table}.output_tokens + EXCLUDED.output_tokens,
    cost = {table}.cost + EXCLUDED.cost,
    turns = {table}.turns + EXCLUDED.turns
"""


@transaction.atomic
def usage_record(
    *,
    conversation: Conversation,
    run_id: uuid.UUID,
    usage: Usage,
    model: str,
    finished_turn: bool,
) -> RunUsage:
    """Store one run's usage and add it to today's totals, exactly once per ``run_id``.

    Runs inside the current tenant's schema; call it in the transaction that stores the reply,
    so a reply and its usage are kept or rolled back together.
    """
    cost = usage_cost(usage)
    row, created = RunUsage.objects.get_or_create(
        run_id=run_id,
        defaults={
            "conversation": conversation,
            "model": model[:200],
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cost": cost,
            "finished_turn": finished_turn,
        },
    )
    if not created:
        return row
    today = timezone.localdate()
    turns = 1 if finished_turn else 0
    values = (usage.input_tokens, usage.output_tokens, cost, turns)
    public = connection.ops.quote_name(settings.PUBLIC_SCHEMA_NAME)
    with connection.cursor() as cursor:
        # Unqualified: the connection's search path starts with the tenant's schema.
        cursor.execute(
            _UPSERT_TENANT_DAY.format(table=connection.ops.quote_name(UsageDay._meta.db_table)),
            [today, *values],
        )
        platform_table = f"{public}.{connection.ops.quote_name(TenantUsageDay._meta.db_table)}"
        cursor.execute(
            _UPSERT_PLATFORM_DAY.format(table=platform_table),
            [current_tenant().pk, today, *values],
        )
    TOKENS.labels(kind="input").inc(usage.input_tokens)
    TOKENS.labels(kind="output").inc(usage.output_tokens)
    return row


def _month_bounds(today: datetime.date) -> tuple[datetime.date, datetime.date]:
    last_day = calendar.monthrange(today.year, today.month)[1]
    return today.replace(day=1), today.replace(day=last_day)


def usage_month_tokens(*, today: datetime.date | None = None) -> int:
    """Tokens (input + output) the current tenant used this calendar month."""
    first, last = _month_bounds(today or timezone.localdate())
    totals = UsageDay.objects.filter(date__range=(first, last)).aggregate(
        input=Sum("input_tokens"), output=Sum("output_tokens")
    )
    return int(totals["input"] or 0) + int(totals["output"] or 0)


def usage_budget_check() -> None:
    """Raise ``BudgetExhausted`` when the current tenant's monthly token budget is spent.

    The budget is read from the database each time: the platform admin may change it while
    connections stay open with an older copy of the tenant.
    """
    budget = (
        Tenant.objects.filter(pk=current_tenant().pk)
        .values_list("monthly_token_budget", flat=True)
        .first()
    )
    if budget is None:
        return
    used = usage_month_tokens()
    if used < budget:
        return
    TURNS_REFUSED.labels(reason="budget").inc()
    _, last = _month_bounds(timezone.localdate())
    resets = last + datetime.timedelta(days=1)
    raise BudgetExhausted(
        f"this organisation's monthly budget of {budget} model tokens is spent ({used} used); "
        f"new questions can be asked again from {resets.isoformat()}"
    )
