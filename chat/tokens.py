"""API tokens: create (shown once), authenticate (by digest), revoke."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from chat.models import ApiToken

TOKEN_PREFIX = "cs_"
_TOUCH_EVERY = timedelta(minutes=1)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def api_token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the token text (not stored anywhere)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        user=user, name=name[:100], prefix=token[:10], digest=_digest(token)
    )
    return row, token


def user_for_token(token: str) -> User | None:
    """The active user owning an unrevoked ``token`` in the current tenant schema, or None.
    (Another tenant's token finds nothing: tokens live in their tenant's schema.)"""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = (
        ApiToken.objects.select_related("user")
        .filter(digest=_digest(token), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if row is None:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > _TOUCH_EVERY:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
    return row.user


def api_token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
