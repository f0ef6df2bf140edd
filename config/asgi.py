"""ASGI entry point: HTTP to Django, WebSocket to Channels behind tenant resolution and auth."""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (as get_asgi_application() does).
django.setup(set_prefix=False)

from core.asgi import RequestThreadASGIHandler  # noqa: E402

# Django's handler, except that a view's error page renders in the request's tenant schema.
django_asgi_app = RequestThreadASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from chat.routing import websocket_urlpatterns  # noqa: E402
from core.admission import HttpAdmission  # noqa: E402
from tenants.asgi import TenantWebSocketMiddleware  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Bounded: each admitted request takes a thread and a database connection.
        "http": HttpAdmission(
            django_asgi_app,
            slots=settings.WEB_MAX_CONCURRENT_REQUESTS,
            queue=settings.WEB_MAX_QUEUED_REQUESTS,
            wait_seconds=settings.WEB_QUEUE_TIMEOUT_SECONDS,
        ),
        "websocket": TenantWebSocketMiddleware(URLRouter(websocket_urlpatterns)),
    }
)
