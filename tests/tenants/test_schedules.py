"""Declared periodic jobs become editable beat rows that fan out to tenants."""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django_celery_beat.models import PeriodicTask

from tenants.schedules import PeriodicJob, periodic_jobs_sync


@pytest.fixture
def declared_job(monkeypatch: pytest.MonkeyPatch) -> PeriodicJob:
    job = PeriodicJob("tests.nightly", every_seconds=600, name="Nightly test job")
    monkeypatch.setattr(apps.get_app_config("tenants"), "periodic_jobs", [job], raising=False)
    return job


def test_a_declared_job_gets_a_fan_out_beat_row(db: None, declared_job: PeriodicJob) -> None:
    periodic_jobs_sync()

    row = PeriodicTask.objects.get(name="Nightly test job")
    assert row.task == "tenants.fan_out"
    assert json.loads(row.args) == ["tests.nightly"]
    assert row.interval is not None and row.interval.every == 600


def test_an_admin_edit_of_the_row_survives_the_next_sync(
    db: None, declared_job: PeriodicJob
) -> None:
    periodic_jobs_sync()
    PeriodicTask.objects.filter(name="Nightly test job").update(enabled=False)

    periodic_jobs_sync()

    assert PeriodicTask.objects.get(name="Nightly test job").enabled is False
