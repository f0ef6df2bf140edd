"""The Celery app: tenant-aware, fails closed without a tenant, resets the schema after tasks.

tenant-schemas-celery stamps every task sent from a tenant context with that schema
(``_schema_name`` header) and switches the worker's connection to it before the task runs.
On top of that this module enforces the rules of DESIGN.md §4:

* a task sent from the public schema, or with no schema at all, is refused before its body
  runs (``MissingTenantError``) unless it is explicitly a platform task (``tenant_required =
  False``, e.g. a beat job that fans out to every tenant);
* after every task, whatever happened, the worker's connection is back on the public schema.
"""

from __future__ import annotations

import os
from typing import Any

import redis
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    before_task_publish,
    celeryd_init,
    task_failure,
    task_postrun,
    task_prerun,
    worker_init,
)
from kombu.transport.redis import Channel as RedisChannel
from kombu.transport.redis import Transport as RedisTransport
from tenant_schemas_celery.app import CeleryApp, get_schema_name_from_task, switch_schema
from tenant_schemas_celery.task import TenantTask

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class MissingTenantError(RuntimeError):
    """A tenant task arrived without a tenant schema; it is refused, never run in public."""


class CountersignTask(TenantTask):
    """Base task: runs in the schema it was sent from and refuses to run without one."""

    abstract = True
    tenant_required = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.tenant_required:
            from core.schema import PUBLIC, current_schema

            if current_schema() in ("", PUBLIC) and _sent_from_a_tenant(self):
                # Sent from a tenant, yet not switched to it: the look-up of its tenant failed
                # before the task (task_prerun logs why), i.e. the database was unreachable.
                from core.db_wait import when_database_answers

                when_database_answers(lambda: switch_schema(self, kwargs), what=self.name)
            if current_schema() in ("", PUBLIC):
                raise MissingTenantError(
                    f"task {self.name} was sent without a tenant; refusing to run it in the "
                    "public schema"
                )
        return super().__call__(*args, **kwargs)


def _sent_from_a_tenant(task: Any) -> bool:
    from core.schema import PUBLIC

    return get_schema_name_from_task(task, {}) not in (None, "", PUBLIC)


class _BrokerChannel(RedisChannel):
    """kombu's Redis channel, minus one way to stop a worker on a broker restart.

    When the broker connection breaks, Celery detaches the broken connection from its transport
    (``Connection.collect``) and then closes it. A channel of that connection still has work:
    closing puts back the messages it delivered and nobody acknowledged, and a task that was
    running when the connection broke acknowledges its message on it when it finishes. Both
    build a Redis client from the detached connection and fail with ``AttributeError:
    'NoneType' object has no attribute 'hostname'`` (celery 5.7.0 / kombu 5.7.0,
    ``_connparams``). Celery tolerates connection errors there, not that, so it reached the
    worker as "Unrecoverable error" and a one-second Redis restart stopped every worker for
    good. Here it is the connection error it is: the clean-up is skipped, the late
    acknowledgement is logged as lost ("Couldn't ack"), and the message stays in kombu's
    unacked index, so it comes back after the visibility timeout; a redelivered turn finds its
    reply stored and only announces it again."""

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            raise redis.ConnectionError("this channel's broker connection was closed")
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]
        return params


RedisTransport.Channel = _BrokerChannel


app = CeleryApp("countersign", task_cls=CountersignTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def queue_names() -> list[str]:
    """The names of the queues the workers consume (the default one and any declared)."""
    queues = {app.conf.task_default_queue, *(app.conf.task_queues or ())}
    return sorted({str(getattr(queue, "name", queue)) for queue in queues})


def queue(
    task_name: str, *args: Any, countdown: float | None = None, traceparent: str | None = None
) -> None:
    """Queue a task by its name. Services queue work this way instead of importing the task
    module, which imports the services it calls: the circle the import contracts forbid. The
    task must be registered in this process (each app's ``ready`` imports its tasks), and is
    the same object as the imported one, so patching its ``delay`` in tests still works.

    With tracing on, the task continues the current trace, or the one ``traceparent`` names
    (core/tracing.py)."""
    from core.tracing import queued

    task = app.tasks[task_name]
    with queued(task_name, traceparent=traceparent):
        if countdown is None:
            task.delay(*args)
        else:
            task.apply_async(args, countdown=countdown)


# Task leases, lock renewal and the worker heartbeat (their signal handlers connect on import).
from core import leases  # noqa: E402, F401


@task_postrun.connect(dispatch_uid="countersign_reset_schema")
def reset_schema_after_task(**_: Any) -> None:
    """Leave every worker thread on the public schema, whatever the task did or raised."""
    from core.schema import PUBLIC, current_schema, use_public_schema

    if current_schema() != PUBLIC:
        use_public_schema()


@after_setup_logger.connect(dispatch_uid="countersign_json_logs")
@after_setup_task_logger.connect(dispatch_uid="countersign_json_task_logs")
def json_logs_in_workers(logger: Any, **_: Any) -> None:
    """Celery sets up the worker's logging itself; with ``LOG_FORMAT=json`` its handlers get
    the same JSON formatter as web processes (levels stay as ``-l`` set them)."""
    from django.conf import settings

    if settings.LOG_FORMAT == "json":
        from core.logs import JsonFormatter

        for handler in logger.handlers:
            handler.setFormatter(JsonFormatter())


@celeryd_init.connect(dispatch_uid="countersign_db_pool_size")
def db_pool_sized_to_concurrency(options: dict[str, Any] | None = None, **_: Any) -> None:
    """A worker thread keeps its pooled connection for a whole task (a turn streams for
    seconds or minutes), so the process's pool must hold one per thread plus a few for its
    own housekeeping, whatever DB_POOL_MAX_SIZE says for web processes. Runs before the pool
    exists (it is created on the first connection)."""
    from django.conf import settings

    concurrency = int((options or {}).get("concurrency") or settings.CELERY_WORKER_CONCURRENCY)
    options_of_default: dict[str, Any] = settings.DATABASES["default"]["OPTIONS"]  # type: ignore[assignment]
    pool = options_of_default["pool"]
    pool["max_size"] = max(pool["max_size"], concurrency + 4)


@worker_init.connect(dispatch_uid="countersign_tracing")
def tracing_in_workers(**_: Any) -> None:
    from core.tracing import tracing_setup_from_settings

    tracing_setup_from_settings()


@before_task_publish.connect(dispatch_uid="countersign_trace_headers")
def trace_into_headers(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """The sender's trace context travels in the message's headers (redeliveries keep it)."""
    from core.tracing import inject_into_headers

    if headers is not None:
        inject_into_headers(headers)


@task_prerun.connect(dispatch_uid="countersign_task_span_start")
def task_span_start(task_id: str, task: Any, **_: Any) -> None:
    from core.tracing import task_span_start

    task_span_start(task_id=task_id, task_name=task.name, request=task.request)


@task_failure.connect(dispatch_uid="countersign_task_span_failed")
def task_span_failed(task_id: str, **_: Any) -> None:
    from core.tracing import task_span_end

    task_span_end(task_id=task_id, failed=True)


@task_postrun.connect(dispatch_uid="countersign_task_span_end")
def task_span_end(task_id: str, **_: Any) -> None:
    from core.tracing import task_span_end

    task_span_end(task_id=task_id, failed=False)
