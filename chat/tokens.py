"""API tokens: create (shown once), authenticate (by digest), revoke."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone

from chat.models import ApiToken
from chat.services.sessions import sessions_end

TOKEN_PREFIX = "cs_"
_TOUCH_EVERY = timedelta(minutes=1)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def api_token_create(
    *, user: User, name: str, expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the token text (not stored anywhere)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        user=user, name=name[:100], prefix=token[:10], digest=_digest(token), expires_at=expires_at
    )
    return row, token


def user_for_token(token: str) -> User | None:
    """The active user owning an unrevoked, unexpired ``token`` in the current tenant schema,
    or None. (Another tenant's token finds nothing: tokens live in their tenant's schema.)"""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = (
        ApiToken.objects.select_related("user")
        .filter(digest=_digest(token), revoked_at__isnull=True, user__is_active=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .first()
    )
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > _TOUCH_EVERY:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
    return row.user


def api_token_revoke(*, token: ApiToken) -> None:
    """Revoke ``token`` and close the WebSockets open with it (4401, after commit)."""
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    sessions_end(user_id=token.user_id, credential=token.digest)
