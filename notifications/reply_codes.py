"""The short codes an approver answers an SMS or Telegram notice with ("YES 4821")."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from notifications.models import ApprovalNotice

CODE_DIGITS = 4
# A code is not given to the same person again for this long, so an old text answered late
# can never name a newer request.
CODE_REUSE_AFTER = timedelta(days=30)


def reply_codes_new(*, user: User, count: int) -> list[str]:
    """``count`` fresh codes for ``user``: random, distinct, and none the person was given in
    the last ``CODE_REUSE_AFTER`` (codes are only unique per person: the sender's address
    says whose they are)."""
    recent = set(
        ApprovalNotice.objects.filter(
            user=user, digest__created_at__gte=timezone.now() - CODE_REUSE_AFTER
        )
        .exclude(reply_code="")
        .values_list("reply_code", flat=True)
    )
    codes: list[str] = []
    space = 10**CODE_DIGITS
    while len(codes) < count and len(recent) < space:
        code = f"{secrets.randbelow(space):0{CODE_DIGITS}d}"
        if code not in recent:
            recent.add(code)
            codes.append(code)
    return codes
