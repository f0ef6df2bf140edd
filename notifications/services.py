"""Telling approvers what waits for them: preferences, scheduling, composing and sending digests.

The flow (docs/notifications.md):

1. A pending action is stored; after commit, ``notify_pending`` (a task in the tenant's schema)
   asks who may decide it and schedules one ``send_digest`` per approver with a channel: now
   if that person got nothing in the last ``APPROVAL_NOTIFY_INTERVAL_SECONDS``, else when the
   interval is over. A Redis flag per person (``cs:<schema>:notify:<user>:scheduled``) keeps
   that to one scheduled task however many actions arrive meanwhile.
2. ``send_digest`` locks the person's user row, and unless a digest went out less than an
   interval ago, stores a digest listing every action they may decide and were not yet told of
   (one ``ApprovalNotice`` per person and action, unique in the database), then sends it.
3. Sending is claimed ``queued → sending`` with a conditional UPDATE; transient provider
   failures go back to ``queued`` and are retried with the delivery backoff; a digest found in
   ``sending`` after ``ACTIONS_SENDING_ABANDONED_SECONDS`` is marked failed, never re-sent.
   So a retried or redelivered task never sends the same news twice.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, replace
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from actions.delivery import TRANSPORTS, Delivery
from actions.outbox import Failed, Retry, outbox_claim, outbox_send, outbox_settle
from actions.tools.base import UnknownToolError
from actions.tools.registry import get_tool
from chat.models import PendingAction
from chat.presenters import action_card
from core.celery import queue
from core.metrics import APPROVAL_NOTIFICATIONS
from core.redis_clients import sync_redis
from core.schema import current_schema, current_tenant
from notifications.decision_links import Purpose, decision_link_tokens
from notifications.digest_text import (
    NOBODY_ELSE_CAN_APPROVE,
    WaitingItem,
    digest_body,
    digest_email,
    digest_sms,
    digest_subject,
)
from notifications.link_origin import link_origin
from notifications.models import (
    ApprovalDigest,
    ApprovalNotice,
    Channel,
    NotificationPreference,
    preference_address_checked,
)
from notifications.reply_codes import reply_codes_new
from notifications.selectors import (
    actions_to_tell,
    notification_target,
    told_as_admin,
    told_of,
)
from tenants.names import digest_scheduled_key

logger = logging.getLogger(__name__)
Status = ApprovalDigest.Status


@dataclass(frozen=True)
class DigestAttempt:
    """What one run of ``send_digest`` did; ``retry_in`` asks the task to try again later."""

    status: str
    retry_in: float | None = None


# -- preferences ---------------------------------------------------------------------------------


def preference_save(
    *, user: User, channel: str, address: str, quiet: bool
) -> NotificationPreference:
    """Store ``user``'s own choice (the settings page; the admin uses the model's ``clean``)."""
    checked = preference_address_checked(channel=channel, address=address)
    preference, _ = NotificationPreference.objects.update_or_create(
        user=user, defaults={"channel": channel, "address": checked, "quiet": quiet}
    )
    return preference


# -- who is told, and when ---------------------------------------------------------------------


def approvers_notify(*, action_id: str) -> int:
    """Schedule a digest for everyone who may decide the pending action ``action_id`` (and the
    tenant admins, when nobody else may: ``told_of``) and has somewhere to be told; returns
    how many. An action of another tenant, or one decided
    meanwhile, is not found here and tells nobody."""
    try:
        action = PendingAction.objects.filter(
            pk=uuid.UUID(str(action_id)), status=PendingAction.Status.PENDING
        ).first()
    except ValueError:
        action = None
    if action is None:
        return 0
    scheduled = 0
    for user in told_of(action=action):
        if notification_target(user=user) is None:
            continue
        digest_schedule(user_id=user.pk, countdown=_throttle_remaining(user.pk))
        scheduled += 1
    return scheduled


def _scheduled_flag(user_id: int) -> str:
    return digest_scheduled_key(current_schema(), user_id)


def digest_schedule(*, user_id: int, countdown: float) -> bool:
    """Queue ``send_digest`` for ``user_id`` in ``countdown`` seconds, unless one already is."""
    client = sync_redis()
    # The flag outlives the task's countdown a little, so a lost task does not block for long.
    ttl_ms = int((max(countdown, 0.0) + 60) * 1000)
    if not client.set(_scheduled_flag(user_id), "1", nx=True, px=ttl_ms):
        return False
    try:
        queue("notifications.send_digest", user_id, countdown=max(countdown, 0.0))
    except Exception:
        client.delete(_scheduled_flag(user_id))
        raise
    return True


def _throttle_remaining(user_id: int) -> float:
    """Seconds until ``user_id`` may get another message (0: now)."""
    latest = (
        ApprovalDigest.objects.filter(user_id=user_id)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    if latest is None:
        return 0.0
    interval = timedelta(seconds=settings.APPROVAL_NOTIFY_INTERVAL_SECONDS)
    return max(0.0, (latest + interval - timezone.now()).total_seconds())


# -- composing and sending -------------------------------------------------------------------------


def digest_run(*, user_id: int) -> DigestAttempt:
    """The body of ``send_digest``: send the person's unsent digest, or compose and send a new
    one listing what waits for them, or, within the interval, schedule itself for later."""
    # Cleared before reading what waits: an action stored from now on schedules a new run.
    sync_redis().delete(_scheduled_flag(user_id))
    _abandoned_marked_failed(user_id)
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id, is_active=True).first()
        if user is None:
            return DigestAttempt("no_user")
        digest = ApprovalDigest.objects.filter(user=user, status=Status.QUEUED).first()
        if digest is None:
            wait = _throttle_remaining(user_id)
            if wait > 0:
                transaction.on_commit(lambda: digest_schedule(user_id=user_id, countdown=wait))
                return DigestAttempt("throttled")
            digest = _compose(user)
            if digest is None:
                return DigestAttempt("nothing_to_tell")
    return digest_deliver(digest_id=digest.pk)


def _compose(user: User) -> ApprovalDigest | None:
    target = notification_target(user=user)
    if target is None:
        return None
    actions = actions_to_tell(user=user)
    if not actions:
        return None
    digest = ApprovalDigest.objects.create(
        user=user, channel=target.channel, address=target.address
    )
    # A channel with a way back in (the channel table's ``inbound``) carries reply codes.
    kind = TRANSPORTS.get(target.channel)
    codes = reply_codes_new(user=user, count=len(actions)) if kind and kind.inbound else []
    ApprovalNotice.objects.bulk_create(
        [
            ApprovalNotice(
                user=user,
                action=action,
                digest=digest,
                reply_code=codes[n] if n < len(codes) else "",
                arguments_hash=action.arguments_hash if codes else "",
            )
            for n, action in enumerate(actions)
        ]
    )
    return digest


def _abandoned_marked_failed(user_id: int) -> None:
    """A digest left in ``sending`` by a dead worker may or may not have gone out: it is
    marked failed, never sent again (the next digest lists only newer actions)."""
    cutoff = timezone.now() - timedelta(seconds=settings.ACTIONS_SENDING_ABANDONED_SECONDS)
    for digest in ApprovalDigest.objects.filter(
        user_id=user_id, status=Status.SENDING, attempted_at__lt=cutoff
    ):
        _fail(digest, "delivery unknown: the worker sending it stopped")


def digest_deliver(*, digest_id: int) -> DigestAttempt:
    """Send one stored digest through the one outbox loop (actions/outbox.py)."""
    claimed = outbox_claim(ApprovalDigest, digest_id, attempted_at=timezone.now())
    digest = ApprovalDigest.objects.get(pk=digest_id)
    if not claimed:
        return DigestAttempt(digest.status)
    items = _waiting_items(digest)
    if not items:
        _fail(digest, "nothing in it is this person's to decide any more")
        return DigestAttempt(Status.FAILED)
    outcome = outbox_send(
        lambda: _delivery(digest, items),
        channel=digest.channel,
        attempts=digest.attempts,
        label=f"approval digest {digest.pk}",
    )
    if isinstance(outcome, Retry):
        outbox_settle(ApprovalDigest, digest.pk, status=Status.QUEUED, error=outcome.error[:2000])
        return DigestAttempt(Status.QUEUED, retry_in=outcome.delay)
    if isinstance(outcome, Failed):
        _fail(digest, outcome.error)
        return DigestAttempt(Status.FAILED)
    outbox_settle(ApprovalDigest, digest.pk, status=Status.SENT, sent_at=timezone.now(), error="")
    APPROVAL_NOTIFICATIONS.labels(channel=digest.channel, outcome="sent").inc()
    return DigestAttempt(Status.SENT)


def _fail(digest: ApprovalDigest, reason: str) -> None:
    failed = outbox_settle(ApprovalDigest, digest.pk, status=Status.FAILED, error=reason[:2000])
    if failed:
        logger.warning(
            "approval digest %s to user %s failed: %s", digest.pk, digest.user_id, reason
        )
        APPROVAL_NOTIFICATIONS.labels(channel=digest.channel, outcome="failed").inc()


def digest_delivery(*, digest: ApprovalDigest) -> Delivery:
    """The digest's message as it would be sent now: the dev outbox page and the digest admin
    show it. Composed again from the actions it lists (nothing is stored twice), so a request
    decided since, or no longer this person's to decide, is left out as a retry would."""
    items = _waiting_items(digest)
    if items:
        return _delivery(digest, items)
    return Delivery(
        channel=digest.channel,
        to_address=digest.address,
        body="Every request this digest listed has been decided since (or is no longer yours).",
        subject=digest_subject(tenant_name=current_tenant().name, count=0),
        idempotency_key=f"approvals-{digest.uuid}",
    )


def _waiting_items(digest: ApprovalDigest) -> list[WaitingItem]:
    """The actions the digest lists (as their cards show them) that are still the person's to
    decide. Asked now, not when the digest was stored (a retry may come much later): an action
    the person may no longer read or decide (``decision_link_tokens``) is left out, text, links
    and reply code alike."""
    actions = (
        PendingAction.objects.filter(pk__in=digest.notices.values("action_id"))
        .select_related("requested_by")
        .order_by("created_at")
    )
    codes = dict(digest.notices.values_list("action_id", "reply_code"))
    items = []
    for action in actions:
        tokens = decision_link_tokens(user=digest.user, action=action)
        if tokens is None:
            if told_as_admin(user=digest.user, action=action):
                items.append(_admin_item(action))
            continue
        email = digest.channel == Channel.EMAIL
        item = _item(action, tokens, viewer=digest.user, with_links=email)
        items.append(replace(item, reply_code=codes.get(action.pk, "")))
    return items


def _delivery(digest: ApprovalDigest, items: list[WaitingItem]) -> Delivery:
    """The digest's message, built inside the send attempt (an unusable address fails it)."""
    tenant_name = current_tenant().name
    inbox = tenant_link(reverse("approvals"))
    if digest.channel == Channel.SMS:
        body = digest_sms(tenant_name=tenant_name, items=items, inbox_link=inbox)
    elif digest.channel == Channel.EMAIL:
        body = digest_email(
            tenant_name=tenant_name,
            items=items,
            inbox_link=inbox,
            settings_link=tenant_link(reverse("notification-settings")),
        )
    else:
        body = digest_body(
            tenant_name=tenant_name,
            items=items,
            inbox_link=inbox,
            settings_link=tenant_link(reverse("notification-settings")),
        )
    return Delivery(
        channel=digest.channel,  # checked against the channel table by Delivery
        to_address=digest.address,
        body=body,
        subject=digest_subject(tenant_name=tenant_name, count=len(items)),
        idempotency_key=f"approvals-{digest.uuid}",
    )


def _item(
    action: PendingAction, tokens: dict[Purpose, str], *, viewer: User, with_links: bool
) -> WaitingItem:
    """One action of a digest; ``with_links``: the e-mail's, with its text and signed links
    (other channels link to the card: a Telegram or SMS reply is another door)."""
    card_link = tenant_link(reverse("approvals"), fragment=f"action-{action.pk}")
    item = WaitingItem(
        tool_label=_tool_label(action.tool),
        description=action.description,
        requested_by=action.requested_by.get_username(),
        link=card_link,
    )
    if not with_links:
        return item

    def signed(purpose: Purpose) -> str:
        return tenant_link(reverse("decision-link", args=[tokens[purpose]]))

    return replace(
        item,
        link=signed("open"),
        approve_link=signed("approve"),
        reject_link=signed("reject"),
        fields=_text(action, viewer),
    )


def _admin_item(action: PendingAction) -> WaitingItem:
    """A request a tenant admin is told of because nobody else may approve it: what it is and
    why it waits, linked to its conversation; never a decision link (they may not decide)."""
    return WaitingItem(
        tool_label=_tool_label(action.tool),
        description=action.description,
        requested_by=action.requested_by.get_username(),
        link=tenant_link(reverse("conversation", args=[action.conversation.uuid])),
        note=NOBODY_ELSE_CAN_APPROVE,
    )


def _text(action: PendingAction, viewer: User) -> tuple[tuple[str, str], ...]:
    """The action's text as its card's form shows it to ``viewer``: (label, value) per field,
    a list on one line, a moment also in the tenant's time zone."""
    fields = []
    for field in action_card(action, viewer=viewer).fields:
        value = ", ".join(field.value.splitlines()) if field.kind == "lines" else field.value
        if field.reads_as:
            value += f" (that is {field.reads_as})"
        fields.append((field.label, value))
    return tuple(fields)


def tenant_link(path: str, *, fragment: str = "") -> str:
    """An absolute URL on the current tenant's own (primary) domain; in development, on the
    address its pages were last opened with (``notifications.link_origin``)."""
    anchor = f"#{fragment}" if fragment else ""
    origin = link_origin()
    if origin is not None:
        return f"{origin}{path}{anchor}"
    domain = current_tenant().get_primary_domain().domain
    port = settings.APPROVAL_NOTIFY_LINK_PORT
    netloc = f"{domain}:{port}" if port else domain
    return f"{settings.APPROVAL_NOTIFY_LINK_SCHEME}://{netloc}{path}{anchor}"


def _tool_label(name: str) -> str:
    """The tool's label for people ("SMS"), or its name when the tool no longer exists."""
    try:
        return get_tool(name).label
    except UnknownToolError:
        return name
