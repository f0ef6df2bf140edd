"""The one parser of ``Authorization: Bearer <token>`` headers (HTTP API, WebSocket handshake,
the revocation of open sessions, /metrics). Pure: no Django, so any module may import it early."""

from __future__ import annotations


def bearer_token(authorization: str) -> str | None:
    """The token of an ``Authorization`` header value ``Bearer <token>`` (scheme in any case,
    blanks around the token ignored), or None for another scheme or an empty token."""
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None
