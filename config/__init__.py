"""Project wiring: settings, URL confs, the ASGI application and the Celery app."""

from core.celery import app as celery_app

__all__ = ["celery_app"]
