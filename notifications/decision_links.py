"""Deciding from the e-mail: one-time signed links (docs/notifications.md, "Deciding from the
e-mail").

A link names its tenant, its approver, the action, the action's version and what it does
(``approve``, ``reject`` or ``open``), and when it stops working: when the action expires, and
at the latest ``APPROVAL_LINK_MAX_DAYS`` after it was written. It is signed with Django's
signing (``SECRET_KEY`` and this module's salt), so it carries nothing secret beyond its
signature and none of it can be changed. Opening a link only shows the request (mail scanners
fetch links); a POST by the very person it was written for decides, through chat's decision
service, as the inbox does: the same policy, four-eyes rule, audit events and announcements.
One use per person, action and version (``DecisionLinkUse``, unique, written in the decision's
transaction), so a replayed link or a second tab never decides twice.

Every refusal is a ``LinkRefused`` whose message says what happened, for the page to show.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, get_args

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.db import IntegrityError, transaction
from django.utils import timezone

from chat.models import PendingAction
from chat.pending_actions import (
    ActionExpired,
    ActionNotFound,
    ActionPermissionDenied,
    ActionStateError,
    action_get,
    confirm_refusal,
    decide_refusal,
    expired_message,
    is_overdue,
)
from chat.selectors import action_visible_to
from chat.services.realtime import action_confirm, action_decide
from core.schema import current_schema
from notifications.models import DecisionLinkUse
from tenants.selectors import tenant_zone

Purpose = Literal["approve", "reject", "open"]
PURPOSES: tuple[Purpose, ...] = get_args(Purpose)
# A salt of its own: no other signed value of the product (a session, a password reset) can be
# passed off as a decision link, nor a decision link as one of them.
SALT = "countersign.notifications.decision-link"
Status = PendingAction.Status


class LinkRefused(Exception):
    """The link cannot be used (now, by this person); the message says why, for people."""


class LinkInvalid(LinkRefused):
    """Not a link we wrote: forged, altered, truncated."""


class LinkOtherTenant(LinkRefused):
    """A link of another organisation, opened on this one's address."""


class LinkOtherPerson(LinkRefused):
    """Written for another person than the one signed in."""


class LinkExpired(LinkRefused):
    """Past the link's own end or its action's expiry."""


class LinkOutdated(LinkRefused):
    """The action was edited after the link was written: it shows another text now."""


class LinkSpent(LinkRefused):
    """Used already, or the action was decided (by anyone, anywhere) meanwhile."""


class LinkGone(LinkRefused):
    """The action no longer exists."""


class LinkNotAllowed(LinkRefused):
    """The person may no longer decide (or read) the action: the tenant's policy changed."""


@dataclass(frozen=True)
class DecisionLink:
    """What a link says, once its signature is checked."""

    schema: str
    user_id: int
    action_id: str
    version: int
    purpose: Purpose
    expires_at: int  # seconds since the epoch

    def signed(self, *, key: str | None = None) -> str:
        """The link's token (``key``: another signing key than ``SECRET_KEY``, for tests that
        forge one)."""
        payload = {
            "t": self.schema,
            "u": self.user_id,
            "a": self.action_id,
            "v": self.version,
            "p": self.purpose,
            "e": self.expires_at,
        }
        return signing.dumps(payload, key=key, salt=SALT, compress=True)


def decision_link_token(
    *, user: User, action: PendingAction, purpose: Purpose, issued_at: datetime | None = None
) -> str:
    """A signed link's token for ``user`` to ``purpose`` ``action`` as it is now (its
    version), in the current tenant. ``issued_at``: when it counts as written (now)."""
    issued = issued_at or timezone.now()
    ends = issued + timedelta(days=settings.APPROVAL_LINK_MAX_DAYS)
    if action.expires_at is not None:
        ends = min(ends, action.expires_at)
    link = DecisionLink(
        schema=current_schema(),
        user_id=user.pk,
        action_id=str(action.pk),
        version=action.version,
        purpose=purpose,
        expires_at=int(ends.timestamp()),
    )
    return link.signed()


def decision_link_tokens(*, user: User, action: PendingAction) -> dict[Purpose, str] | None:
    """The tokens of ``user``'s three links to ``action``, or None when ``user`` may not read
    it (``chat.selectors.action_visible_to``) or may not decide it now: then a digest shows
    neither its text nor a link."""
    if not action_visible_to(user=user, action=action):
        return None
    refusal = (
        confirm_refusal(action=action, user=user)
        if action.awaits_confirmation
        else decide_refusal(action=action, user=user)
    )
    if refusal is not None:
        return None
    return {
        purpose: decision_link_token(user=user, action=action, purpose=purpose)
        for purpose in PURPOSES
    }


def decision_link_read(*, token: str) -> DecisionLink:
    """The link ``token`` stands for, written for the current tenant; ``LinkInvalid`` (not a
    link we signed) or ``LinkOtherTenant``. Who uses it, and whether it still works, is
    ``decision_link_open``'s and ``decision_link_use``'s question."""
    try:
        data = signing.loads(token, salt=SALT)
        link = DecisionLink(
            schema=str(data["t"]),
            user_id=int(data["u"]),
            action_id=str(uuid.UUID(str(data["a"]))),
            version=int(data["v"]),
            purpose=data["p"],
            expires_at=int(data["e"]),
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise LinkInvalid(
            "This link is not valid: it was changed or cut short on its way. Open the request "
            "from your approvals inbox instead."
        ) from None
    if link.purpose not in PURPOSES:
        raise LinkInvalid("This link is not valid: it does not say what it does.")
    if link.schema != current_schema():
        raise LinkOtherTenant(
            "This link belongs to another organisation: open it from the e-mail as it came, "
            "on that organisation's address."
        )
    return link


def decision_link_open(*, link: DecisionLink, user: User) -> PendingAction:
    """The action ``link`` lets ``user`` decide now (for the confirmation page), or the
    ``LinkRefused`` that says why not. Changes nothing."""
    return _usable(link, user)


def decision_link_use(*, link: DecisionLink, user: User, decision: str) -> PendingAction:
    """Decide through ``link``: ``decision`` is the pressed button's (an ``approve`` or
    ``reject`` link does only that; an ``open`` link either). Through chat's decision service
    (an approver's edit waiting for ``user`` is confirmed or declined instead), exactly once
    per person, action and version; every refusal is a ``LinkRefused``."""
    wanted = decision or link.purpose
    if wanted not in ("approve", "reject") or link.purpose not in ("open", wanted):
        raise LinkInvalid(f"This link can't {wanted or 'decide'}: it is to {link.purpose}.")
    action = _usable(link, user)
    try:
        with transaction.atomic():
            DecisionLinkUse.objects.create(
                user=user, action=action, version=link.version, decision=wanted
            )
            if action.awaits_confirmation:
                return action_confirm(
                    user=user,
                    action_id=str(action.pk),
                    decision="confirm" if wanted == "approve" else "decline",
                )
            return action_decide(
                user=user,
                action_id=str(action.pk),
                decision="approve" if wanted == "approve" else "reject",
            )
    except IntegrityError:  # another tab or click used it first, and has committed
        raise _spent(link, user, action) from None
    except ActionExpired as error:
        raise LinkExpired(f"This link has expired: {error}.") from None
    except ActionPermissionDenied as error:
        raise LinkNotAllowed(f"You may not decide this request: {error}.") from None
    except ActionStateError:  # decided meanwhile, somewhere else
        raise _spent(link, user, action) from None


def _usable(link: DecisionLink, user: User) -> PendingAction:
    """The checks of a link, in the order that tells people the most useful thing first and
    never shows a text to someone who may not read it."""
    if user.pk != link.user_id:
        raise LinkOtherPerson(
            f"This link was sent to another person, and you are signed in as "
            f"{user.get_username()}. Nothing was decided. If it was forwarded to you, open the "
            "request from your own approvals inbox."
        )
    if link.expires_at <= timezone.now().timestamp():
        raise LinkExpired(
            "This link has expired: links in an e-mail work until their request expires, and "
            f"at most {settings.APPROVAL_LINK_MAX_DAYS} days. Open the request from your "
            "approvals inbox instead."
        )
    try:
        action = action_get(action_id=link.action_id)
    except ActionNotFound:
        raise LinkGone("This request no longer exists.") from None
    if not action_visible_to(user=user, action=action):
        raise LinkNotAllowed(
            "You may not decide this request any more: your organisation's rules for it "
            "changed since this e-mail was sent."
        )
    if DecisionLinkUse.objects.filter(user=user, action=action, version=link.version).exists():
        raise _spent(link, user, action)
    if action.version != link.version:
        raise LinkOutdated(
            "This request was edited after this e-mail was sent, so the text in it is not "
            "the text that would be sent now. Nothing was decided: open the request in your "
            "approvals inbox to read its new text."
        )
    if action.status == Status.EXPIRED or is_overdue(action):
        raise LinkExpired(f"This link has expired: {expired_message(action)}.")
    if action.status not in PendingAction.UNDECIDED:
        raise _spent(link, user, action)
    refusal = (
        confirm_refusal(action=action, user=user)
        if action.awaits_confirmation
        else decide_refusal(action=action, user=user)
    )
    if refusal is not None:
        raise LinkNotAllowed(f"You may not decide this request: {refusal}.")
    return action


def _spent(link: DecisionLink, user: User, action: PendingAction) -> LinkSpent:
    action.refresh_from_db()
    used = DecisionLinkUse.objects.filter(user=user, action=action, version=link.version).first()
    outcome = f"The request was {_decided_words(action)}."
    if used is not None:
        return LinkSpent(f"This link was already used, at {_when(used.used_at)}. {outcome}")
    return LinkSpent(f"This request was already decided. {outcome}")


def _decided_words(action: PendingAction) -> str:
    """ "approved by olivia at 24 Nov 2026, 09:12", "withdrawn by its requester", …"""
    by = action.decided_by.get_username() if action.decided_by else "someone"
    at = f" at {_when(action.decided_at)}" if action.decided_at else ""
    if action.status in PendingAction.APPROVED_SINCE:
        return f"approved by {by}{at}"
    if action.status == Status.REJECTED:
        return f"rejected by {by}{at}"
    if action.status == Status.WITHDRAWN:
        return "withdrawn by the person who asked for it"
    if action.status == Status.EXPIRED:
        return "not decided in time, and expired"
    if action.status == Status.EDITED:
        return "edited by an approver, and waits for that edit to be confirmed"
    return f"{action.status}"


def _when(moment: Any) -> str:
    zone = tenant_zone()
    return f"{moment.astimezone(zone):%d %b %Y, %H:%M} ({zone.key})"
