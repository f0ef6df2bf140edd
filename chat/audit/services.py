"""Writing the audit trail: append an event under the chain's lock, redact old text, and check
a tenant's chain on schedule (metric and ERROR log on a break)."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from chat.audit.chain import GENESIS, content_hash, data_hash, link_hash
from chat.audit.selectors import audit_chain_verify, event_record
from chat.models import ActionEvent, AuditChainHead, PendingAction
from core.metrics import AUDIT_CHAIN_BREAKS
from core.schema import current_schema, current_tenant
from tenants.models import Tenant

logger = logging.getLogger(__name__)


def _locked_head() -> AuditChainHead:
    """The chain head, locked until the caller's transaction ends (created on first use)."""
    head = AuditChainHead.objects.select_for_update().filter(pk=1).first()
    if head is None:
        # Two first events at once: one inserts, the other waits on the row and then sees it.
        AuditChainHead.objects.bulk_create(
            [AuditChainHead(pk=1, seq=0, hash=GENESIS)], ignore_conflicts=True
        )
        head = AuditChainHead.objects.select_for_update().get(pk=1)
    return head


@transaction.atomic
def audit_event_record(
    *,
    action: PendingAction,
    kind: str,
    actor: User | None = None,
    actor_id: int | None = None,
    data: dict[str, Any] | None = None,
) -> ActionEvent:
    """Append one event to this tenant's trail, chained to the one before it.

    The chain head stays locked until the caller's transaction commits, so concurrent
    decisions get one total order and no fork; callers append as the last write of their
    transaction, after the action's own conditional UPDATE (one lock order everywhere).
    """
    if actor is None and actor_id is not None:
        actor = User.objects.get(pk=actor_id)
    # Stored exactly as hashed: what the JSON column gives back is what the hash is made of.
    stored = json.loads(json.dumps(data or {}, cls=DjangoJSONEncoder))
    head = _locked_head()
    event = ActionEvent(
        seq=head.seq + 1,
        action_id=action.pk,
        tool=action.tool,
        kind=kind,
        actor=actor,
        actor_username=actor.get_username() if actor else "",
        at=timezone.now(),
        data=stored,
        data_hash=data_hash(stored),
        prev_hash=head.hash,
    )
    event.content_hash = content_hash(event_record(event), data_hash=event.data_hash)
    event.hash = link_hash(prev_hash=event.prev_hash, content_hash=event.content_hash)
    event.save(force_insert=True)
    AuditChainHead.objects.filter(pk=1).update(seq=event.seq, hash=event.hash)
    return event


def audit_events_redact(*, older_than_days: int, now: datetime | None = None) -> int:
    """Empty the text and recipients of events older than ``older_than_days`` days. Their
    hashes stay, so the chain still verifies; the trigger allows this UPDATE and no other."""
    now = now or timezone.now()
    return ActionEvent.objects.filter(
        at__lt=now - timedelta(days=older_than_days), redacted_at__isnull=True
    ).update(data={}, redacted_at=now)


def audit_retention_apply() -> int:
    """Redact per the current tenant's ``audit_redact_after_days`` (nothing when unset)."""
    # Read afresh: the connection's tenant object may be older than an admin's change.
    days = (
        Tenant.objects.filter(pk=current_tenant().pk)
        .values_list("audit_redact_after_days", flat=True)
        .first()
    )
    if days is None:
        return 0
    return audit_events_redact(older_than_days=days)


def audit_chain_check() -> bool:
    """Verify the current tenant's chain; on a break, count it in ``audit_chain_breaks`` and
    log at ERROR where it broke. True when the chain holds."""
    check = audit_chain_verify()
    if check.broken is None:
        return True
    AUDIT_CHAIN_BREAKS.inc()
    logger.error(
        "audit chain of tenant %s is broken at %s",
        current_schema(),
        check.broken,
        extra={"audit_break_seq": check.broken.seq},
    )
    return False
