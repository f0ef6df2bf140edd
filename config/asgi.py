"""ASGI entry point: HTTP to Django, WebSocket to Channels behind tenant resolution and auth."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from chat.routing import websocket_urlpatterns  # noqa: E402
from tenants.asgi import TenantWebSocketMiddleware  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": TenantWebSocketMiddleware(URLRouter(websocket_urlpatterns)),
    }
)
