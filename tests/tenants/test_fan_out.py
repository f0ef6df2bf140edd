"""A platform job fans out to every tenant, each copy running in its own schema."""

from __future__ import annotations

import time

import redis
from django.conf import settings

from core.celery import app
from core.schema import current_schema
from tenants.models import Tenant
from tenants.tasks import fan_out

SEEN_KEY = "cs:test:fan-out-seen"


@app.task(name="tests.record_schema")
def record_schema() -> None:
    redis.Redis.from_url(settings.REDIS_URL).sadd(SEEN_KEY, current_schema())


def test_fan_out_runs_the_job_once_in_each_tenant_schema(
    celery_worker_thread: None, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    client = redis.Redis.from_url(settings.REDIS_URL, decode_responses=True)
    client.delete(SEEN_KEY)

    sent = fan_out.delay("tests.record_schema").get(timeout=20)
    deadline = time.monotonic() + 20
    while client.scard(SEEN_KEY) < sent and time.monotonic() < deadline:
        time.sleep(0.05)

    active = set(
        Tenant.objects.filter(is_active=True)
        .exclude(schema_name="public")
        .values_list("schema_name", flat=True)
    )
    assert sent == len(active)
    assert client.smembers(SEEN_KEY) == active >= {"alpha", "beta"}
