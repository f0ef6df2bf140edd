"""Reading the audit trail: a period's events, each as the dict the chain and exports use,
and the verification of this tenant's whole chain."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from chat.audit.chain import ChainBreak, ChainCheck, at_text, check_events
from chat.models import ActionEvent, AuditChainHead


def event_record(event: ActionEvent) -> dict[str, Any]:
    """One event as exported and checked (``chat/audit/chain.py``)."""
    return {
        "seq": event.seq,
        "action": str(event.action_id),
        "tool": event.tool,
        "kind": event.kind,
        "actor": event.actor_id,
        "actor_username": event.actor_username,
        "at": at_text(event.at),
        "data": event.data,
        "redacted": event.redacted_at is not None,
        "redacted_at": at_text(event.redacted_at) if event.redacted_at else None,
        "data_hash": event.data_hash,
        "content_hash": event.content_hash,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def audit_records(
    *, since: datetime | None = None, until: datetime | None = None
) -> Iterator[dict[str, Any]]:
    """This tenant's events in chain order, ``since`` ≤ time < ``until`` (either open)."""
    events = ActionEvent.objects.order_by("seq")
    if since is not None:
        events = events.filter(at__gte=since)
    if until is not None:
        events = events.filter(at__lt=until)
    return (event_record(event) for event in events.iterator(chunk_size=2000))


def audit_chain_verify() -> ChainCheck:
    """Check this tenant's whole chain, then that it ends where the chain head says: a removed
    newest event (or an emptied table) leaves the head pointing past the trail's end."""
    check = check_events(audit_records())
    if check.broken is not None:
        return check
    head = AuditChainHead.objects.filter(pk=1).first()
    head_seq = head.seq if head else 0
    if head is None and check.events == 0:
        return check
    if head is None or (head.seq, head.hash) != (check.last_seq, check.last_hash):
        reason = f"the trail ends at event {check.last_seq} but its head is at event {head_seq}"
        return ChainCheck(
            check.events, check.last_seq, check.last_hash, ChainBreak(check.last_seq + 1, reason)
        )
    return check
