"""Platform tasks: beat runs in the public schema and fans a job out to every tenant."""

from __future__ import annotations

from django_tenants.utils import tenant_context

from core.celery import app
from tenants.models import Tenant


@app.task(name="tenants.fan_out", tenant_required=False)
def fan_out(task_name: str) -> int:
    """Send ``task_name`` once per active tenant, each from inside that tenant's schema.

    Periodic per-tenant jobs (reindex, due reminders) are scheduled in django-celery-beat as
    ``tenants.fan_out`` with the job's task name as argument, so one schedule serves every tenant
    (including tenants created later) and each copy runs in its own schema.
    """
    tenants = list(Tenant.objects.filter(is_active=True).exclude(schema_name="public"))
    for tenant in tenants:
        with tenant_context(tenant):
            app.send_task(task_name)
    return len(tenants)
