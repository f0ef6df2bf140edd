"""Open sessions (WebSockets, SSE streams) end when their credentials stop being valid.

A WebSocket or an event stream authenticates once, when it opens, and may stay open for days.
So revoking an API token, letting it expire, or deactivating a user must also reach the
sessions already open (issue #13: a revoked token's socket still approved an SMS):

* every frame that does database work re-checks the credential (``session_user``),
  so nothing is decided or sent on a revoked token, even if the notice below is lost;
* revoking or deactivating sends ``session.end`` to the channel-layer groups of the token and
  of the user (``session_groups``), and every WebSocket in them closes with 4401 at once;
* an SSE stream, which joins no group, re-checks its credential every
  ``SESSION_RECHECK_SECONDS`` and ends.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.db import close_old_connections, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django_tenants.utils import tenant_context

from chat.models import ApiToken
from core.bearer import bearer_token
from core.schema import current_schema
from tenants.names import session_token_group, session_user_group

logger = logging.getLogger(__name__)

# The WebSocket close code of a session whose credentials were revoked (docs/protocol.md).
CLOSE_REVOKED = 4401
SESSION_END = "session.end"


class SessionEnded(Exception):
    """The session's token was revoked or expired, or its user deactivated."""


def credential_of(authorization: str) -> str | None:
    """The digest of a bearer token in an ``Authorization`` header value (what a session keeps
    to re-check its token and to name its group), or None for session-cookie connections."""
    token = bearer_token(authorization)
    return hashlib.sha256(token.encode()).hexdigest() if token else None


def session_groups(*, schema: str, user_id: int, credential: str | None) -> list[str]:
    """The channel-layer groups a session joins so that revocation reaches it."""
    groups = [session_user_group(schema, user_id)]
    if credential is not None:
        groups.append(session_token_group(schema, credential))
    return groups


def session_user(*, user_id: int, credential: str | None) -> User | None:
    """The user, when still active and (for a token session) the token still valid: one query,
    since every frame that does database work asks."""
    users = User.objects.filter(pk=user_id, is_active=True)
    if credential is not None:
        valid = ApiToken.objects.filter(
            digest=credential, user_id=OuterRef("pk"), revoked_at__isnull=True
        ).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        users = users.filter(Exists(valid))
    return users.first()


def session_credential_valid(*, user_id: int, credential: str | None) -> bool:
    """Whether the user is still active and (for a token session) the token still valid."""
    return session_user(user_id=user_id, credential=credential) is not None


async def session_still_valid(*, tenant: Any, user_id: int, credential: str | None) -> bool:
    """``session_credential_valid`` from a long-lived stream: in the tenant's schema, and the
    pooled connection goes straight back (the stream holds none between checks)."""

    def check() -> bool:
        try:
            with tenant_context(tenant):
                return session_credential_valid(user_id=user_id, credential=credential)
        finally:
            close_old_connections()

    return await sync_to_async(check)()


def sessions_end(*, user_id: int, credential: str | None = None) -> None:
    """After commit, close the open WebSockets of the token ``credential`` (or, without one,
    every one of the user). A lost notice is caught by the per-frame re-check."""
    schema = current_schema()
    groups = session_groups(schema=schema, user_id=user_id, credential=credential)
    targets = groups[1:] if credential is not None else groups[:1]
    transaction.on_commit(lambda: _send_end(targets))


def _send_end(groups: list[str]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    message: dict[str, Any] = {"type": SESSION_END}
    for group in groups:
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception:  # Redis down: the per-frame and periodic re-checks still bite.
            logger.warning("could not notify open sessions of a revocation", exc_info=True)
