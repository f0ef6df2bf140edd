"""Periodic per-tenant jobs, declared by apps and kept as editable django-celery-beat rows.

An app lists its jobs in its AppConfig::

    periodic_jobs = [PeriodicJob("knowledge.reindex_tenant", every_seconds=3600, name="…")]

After the public schema is migrated, each job gets a ``PeriodicTask`` running ``tenants.fan_out``
with the job's task name, so it runs once per tenant in that tenant's schema. Rows are only
created, never overwritten: an interval or an "enabled" switch changed in admin survives.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.apps import apps

from core.schema import PUBLIC, current_schema


@dataclass(frozen=True)
class PeriodicJob:
    task: str
    every_seconds: int
    name: str


def declared_jobs() -> list[PeriodicJob]:
    return [
        job for config in apps.get_app_configs() for job in getattr(config, "periodic_jobs", [])
    ]


def periodic_jobs_sync() -> None:
    """Create the beat rows of every declared job that has none yet (public schema)."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    for job in declared_jobs():
        if PeriodicTask.objects.filter(name=job.name).exists():
            continue
        interval, _ = IntervalSchedule.objects.get_or_create(
            every=job.every_seconds, period=IntervalSchedule.SECONDS
        )
        PeriodicTask.objects.create(
            name=job.name, task="tenants.fan_out", interval=interval, args=json.dumps([job.task])
        )


def sync_jobs_after_migrate(sender: Any, **kwargs: Any) -> None:
    last_app = list(apps.get_app_configs())[-1]
    if sender is last_app and current_schema() == PUBLIC:
        periodic_jobs_sync()
