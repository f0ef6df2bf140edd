"""The ground floor: infrastructure every app may import (env parsing, the embedded servers,
logs, metrics, tracing, health checks, the Celery app).

It imports no product app and nothing from ``config``; ``config`` (settings, URLs, ASGI) sits
on top and wires everything together. See docs/architecture.md for the layers.
"""
