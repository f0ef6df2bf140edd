"""The reindex task runs in its tenant's schema; beat runs it for every tenant; the demo
tenants get a sample knowledge base."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django_celery_beat.models import PeriodicTask
from django_tenants.utils import tenant_context

from knowledge.demo import demo_documents_load
from knowledge.indexing import kb_stale_chunk_count
from knowledge.models import Chunk, Document
from knowledge.services import Upload, document_create_from_upload
from knowledge.tasks import reindex_tenant
from tenants.models import Tenant
from tests.knowledge.conftest import FakeEmbedder
from tests.knowledge.factories import LEAVE_POLICY, make_document


@pytest.mark.usefixtures("fake_embedder")
def test_the_reindex_task_embeds_the_stale_chunks_of_the_tenant_it_was_sent_from(
    celery_worker_thread: None, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    with tenant_context(tenant_b):
        make_document("Beta leave", LEAVE_POLICY, embed=False)
    with tenant_context(tenant_a):
        make_document("Alpha leave", LEAVE_POLICY, embed=False)
        embedded = reindex_tenant.delay().get(timeout=30)

    assert embedded == 2
    with tenant_context(tenant_a):
        assert kb_stale_chunk_count() == 0
    with tenant_context(tenant_b):
        assert kb_stale_chunk_count() == 2


def test_an_upload_queues_the_reindex_only_after_it_commits(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder, django_capture_on_commit_callbacks: object
) -> None:
    capture = django_capture_on_commit_callbacks
    with capture() as callbacks, transaction.atomic():  # type: ignore[operator]
        document_create_from_upload(upload=Upload(name="a.md", data=LEAVE_POLICY.encode()))

    assert len(callbacks) == 1


def test_a_periodic_job_fans_the_reindex_out_to_every_tenant(db: None) -> None:
    from tenants.schedules import periodic_jobs_sync

    periodic_jobs_sync()

    job = PeriodicTask.objects.get(name="knowledge: embed stale chunks in every tenant")
    assert job.task == "tenants.fan_out"
    assert json.loads(job.args) == ["knowledge.reindex_tenant"]
    assert job.interval is not None and job.interval.every == 900


def test_the_demo_knowledge_base_loads_once_with_a_korean_and_a_spanish_document(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    first = demo_documents_load()
    again = demo_documents_load()

    assert (first, again) == (5, 0)
    assert set(Document.objects.values_list("language", flat=True)) == {"en", "es", "ko"}
    assert set(Document.objects.values_list("status", flat=True)) == {"ready"}
    assert not Chunk.objects.filter(embedding__isnull=True).exists()
