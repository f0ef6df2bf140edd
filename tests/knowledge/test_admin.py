"""Tenant admins curate the knowledge base in Django admin (upload, chunks, actions,
playground); nobody else can, and no tenant sees another's documents there (acceptance 4, 5)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django_tenants.utils import tenant_context

from knowledge.models import Chunk, Document
from tenants.models import Tenant
from tenants.roles import STAFF, TENANT_ADMIN
from tests.knowledge.factories import EXPENSES, LEAVE_POLICY, make_document
from tests.tenants.factories import http_login, make_user

pytestmark = pytest.mark.usefixtures("fake_embedder")

ADMIN = "/admin/knowledge/document/"


@pytest.fixture
def admin_a(tenant_a: Tenant, client_a: Client) -> Client:
    make_user(tenant_a, "root", role=TENANT_ADMIN)
    assert http_login(client_a, "root")
    return client_a


def _messages(response: object) -> list[str]:
    return [str(message) for message in response.context["messages"]]  # type: ignore[attr-defined]


def test_a_tenant_admin_uploads_several_files_at_once(tenant_a: Tenant, admin_a: Client) -> None:
    files = [
        SimpleUploadedFile("leave.md", LEAVE_POLICY.encode(), "text/markdown"),
        SimpleUploadedFile("expenses.md", EXPENSES.encode(), "text/markdown"),
    ]

    response = admin_a.post(f"{ADMIN}add/", {"files": files, "tags": "HR, policy"}, follow=True)

    assert _messages(response) == ["leave.md: added, 2 chunks.", "expenses.md: added, 1 chunks."]
    with tenant_context(tenant_a):
        documents = Document.objects.order_by("title")
        assert [(d.title, d.tags, d.status) for d in documents] == [
            ("Expenses", ["hr", "policy"], "pending"),
            ("Leave policy", ["hr", "policy"], "pending"),
        ]


@override_settings(KB_MAX_UPLOAD_BYTES=2000)
def test_bad_uploads_each_get_a_clear_message_and_the_good_one_still_lands(
    tenant_a: Tenant, admin_a: Client
) -> None:
    files = [
        SimpleUploadedFile("empty.txt", b"", "text/plain"),
        SimpleUploadedFile("broken.pdf", b"%PDF-1.4 garbage", "application/pdf"),
        SimpleUploadedFile("huge.md", b"word " * 1000, "text/markdown"),
        SimpleUploadedFile("blob.txt", bytes(range(256)) * 4, "text/plain"),
        SimpleUploadedFile("leave.md", LEAVE_POLICY.encode(), "text/markdown"),
    ]

    response = admin_a.post(f"{ADMIN}add/", {"files": files}, follow=True)

    shown = _messages(response)
    assert "empty.txt: The file is empty." in shown
    assert "broken.pdf: This PDF is damaged or is not a valid PDF file." in shown
    assert "huge.md: huge.md is 4.9 KB; the limit is 2.0 KB. Split it into smaller files." in shown
    assert any(
        message.startswith("blob.txt: This file does not look like text") for message in shown
    )
    assert "leave.md: added, 2 chunks." in shown
    with tenant_context(tenant_a):
        statuses = dict(Document.objects.values_list("original_filename", "status"))
        assert statuses == {
            "empty.txt": "failed",
            "broken.pdf": "failed",
            "blob.txt": "failed",
            "leave.md": "pending",
        }
        assert set(Chunk.objects.values_list("document__original_filename", flat=True)) == {
            "leave.md"
        }


def test_the_document_list_shows_status_chunk_count_and_language(
    tenant_a: Tenant, admin_a: Client
) -> None:
    with tenant_context(tenant_a):
        make_document("Leave policy", LEAVE_POLICY)

    response = admin_a.get(ADMIN)

    row = response.content.decode()
    assert "Leave policy" in row
    assert '<td class="field-status">ready</td>' in row
    assert '<td class="field-chunk_count">2</td>' in row
    assert '<td class="field-language">en</td>' in row


def test_the_document_page_shows_its_chunks(tenant_a: Tenant, admin_a: Client) -> None:
    with tenant_context(tenant_a):
        document = make_document("Leave policy", LEAVE_POLICY)

    response = admin_a.get(f"{ADMIN}{document.pk}/change/")

    assert response.status_code == 200
    assert "doctor&#x27;s note is required" in response.content.decode()


def test_reindex_now_and_deactivate_are_admin_actions(tenant_a: Tenant, admin_a: Client) -> None:
    with tenant_context(tenant_a):
        document = make_document("Leave policy", LEAVE_POLICY)

    reindexed = admin_a.post(
        ADMIN, {"action": "reindex_now", "_selected_action": [document.pk]}, follow=True
    )
    deactivated = admin_a.post(
        ADMIN, {"action": "deactivate", "_selected_action": [document.pk]}, follow=True
    )

    assert "1 document(s) rechunked" in _messages(reindexed)[0]
    assert _messages(deactivated) == ["1 document(s) deactivated."]
    with tenant_context(tenant_a):
        assert Document.objects.get().is_active is False


def test_the_playground_shows_vector_text_and_fused_scores(
    tenant_a: Tenant, admin_a: Client
) -> None:
    with tenant_context(tenant_a):
        make_document("Leave policy", LEAVE_POLICY)

    response = admin_a.get(f"{ADMIN}playground/", {"q": "sick leave doctor", "k": "5"})

    page = response.content.decode()
    assert response.status_code == 200
    assert "Leave policy" in page
    assert "<th>vector</th><th>text</th><th>fused</th>" in page
    result = response.context["result"]
    assert result.hits[0].vector_score is not None and result.hits[0].text_score is not None


def test_the_playground_of_tenant_b_never_shows_tenant_a_documents(
    tenant_a: Tenant, tenant_b: Tenant, client_b: Client
) -> None:
    with tenant_context(tenant_a):
        make_document("Leave policy", LEAVE_POLICY)
    with tenant_context(tenant_b):
        make_document("Expenses", EXPENSES)
    make_user(tenant_b, "root-b", role=TENANT_ADMIN)
    assert http_login(client_b, "root-b")

    response = client_b.get(f"{ADMIN}playground/", {"q": "sick leave doctor annual", "k": "50"})

    titles = {hit.document_title for hit in response.context["result"].hits}
    assert titles == {"Expenses"}
    assert "Leave policy" not in response.content.decode()


def test_staff_cannot_open_the_knowledge_admin_or_the_playground(
    tenant_a: Tenant, client_a: Client
) -> None:
    make_user(tenant_a, "sam", role=STAFF)
    assert http_login(client_a, "sam")

    for url in (ADMIN, f"{ADMIN}add/", f"{ADMIN}playground/?q=leave"):
        response = client_a.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


def test_editing_the_text_in_admin_rechunks_the_document(tenant_a: Tenant, admin_a: Client) -> None:
    with tenant_context(tenant_a):
        document = make_document("Leave policy", LEAVE_POLICY)

    response = admin_a.post(
        f"{ADMIN}{document.pk}/change/",
        {
            "title": "Leave policy",
            "text": LEAVE_POLICY.replace("25 days", "27 days"),
            "is_active": "on",
            "tags_text": "hr",
            "chunks-TOTAL_FORMS": "0",
            "chunks-INITIAL_FORMS": "0",
        },
    )

    assert response.status_code == 302
    with tenant_context(tenant_a):
        document.refresh_from_db()
        assert document.tags == ["hr"]
        assert document.status == Document.Status.PENDING
        assert "27 days" in document.chunks.get(ordinal=0).text
