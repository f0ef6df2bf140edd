"""The read-only document page a citation links to: signed in, this tenant's active documents
only, with the cited passage highlighted; the chat page's citation links point at it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from chat.models import Conversation, Message
from knowledge.models import Chunk, Document
from tenants.models import Tenant
from tests.conftest import host_client
from tests.knowledge.factories import LEAVE_POLICY, make_document
from tests.tenants.factories import http_login, make_user


def _signed_in(tenant: Tenant, user: User) -> Client:
    client = host_client(tenant)
    assert http_login(client, user.get_username())
    return client


def _policy(tenant: Tenant) -> tuple[Document, Chunk]:
    with tenant_context(tenant):
        document = make_document("Leave policy", LEAVE_POLICY, embed=False)
        chunk = document.chunks.filter(text__contains="doctor's note").get()
        return document, chunk


def test_a_citation_link_opens_the_document_with_the_passage_highlighted(
    tenant_a: Tenant,
) -> None:
    document, chunk = _policy(tenant_a)
    client = _signed_in(tenant_a, make_user(tenant_a, "sam"))

    response = client.get(f"/kb/documents/{document.pk}/?chunk={chunk.pk}")

    assert response.status_code == 200
    page = response.content.decode()
    assert 'class="topbar"' in page and '<h1 id="document-title">Leave policy</h1>' in page
    assert 'role="heading" aria-level="3">Sick leave</p>' in page  # "## Sick leave"
    assert f'id="chunk-{chunk.pk}"' in page
    marked = " ".join(part.split("</mark>", 1)[0] for part in page.split("<mark")[1:])
    assert "line manager" in marked and "doctor&#x27;s note" in marked
    assert "25 days" not in marked
    assert "25 days of paid annual leave" in page  # the rest of the document is there too
    assert "default-src 'self'" in response["Content-Security-Policy"]


def test_the_document_opens_whole_without_a_passage(tenant_a: Tenant) -> None:
    document, _ = _policy(tenant_a)

    response = _signed_in(tenant_a, make_user(tenant_a, "sam")).get(f"/kb/documents/{document.pk}/")

    assert response.status_code == 200
    assert b"<mark" not in response.content and b"25 days" in response.content


def test_a_passage_the_document_no_longer_has_is_said_instead_of_highlighting_another(
    tenant_a: Tenant,
) -> None:
    document, _ = _policy(tenant_a)
    with tenant_context(tenant_a):
        other = make_document("Expenses", "# Expenses\n\nReceipts within 30 days.", embed=False)
        foreign_chunk = other.chunks.first()
    assert foreign_chunk is not None

    response = _signed_in(tenant_a, make_user(tenant_a, "sam")).get(
        f"/kb/documents/{document.pk}/?chunk={foreign_chunk.pk}"
    )

    assert response.status_code == 200
    assert b'data-testid="passage-missing"' in response.content and b"<mark" not in response.content


@pytest.mark.parametrize("chunk", ["abc", "-1", "1e3", "١٢"])
def test_a_passage_that_is_not_a_number_is_a_clear_bad_request(
    tenant_a: Tenant, chunk: str
) -> None:
    document, _ = _policy(tenant_a)

    response = _signed_in(tenant_a, make_user(tenant_a, "sam")).get(
        f"/kb/documents/{document.pk}/", {"chunk": chunk}
    )

    assert response.status_code == 400
    assert b"The passage in this address is not a number" in response.content


def test_an_absurdly_large_id_is_not_found_rather_than_a_server_error(tenant_a: Tenant) -> None:
    document, _ = _policy(tenant_a)
    client = _signed_in(tenant_a, make_user(tenant_a, "sam"))

    assert client.get(f"/kb/documents/{'9' * 30}/").status_code == 404
    huge_chunk = client.get(f"/kb/documents/{document.pk}/", {"chunk": "9" * 5000})
    assert huge_chunk.status_code == 200 and b"passage-missing" in huge_chunk.content


def test_a_deactivated_document_is_not_found(tenant_a: Tenant) -> None:
    document, _ = _policy(tenant_a)
    with tenant_context(tenant_a):
        Document.objects.filter(pk=document.pk).update(is_active=False)

    response = _signed_in(tenant_a, make_user(tenant_a, "sam")).get(f"/kb/documents/{document.pk}/")

    assert response.status_code == 404


def test_an_anonymous_visitor_is_sent_to_sign_in(tenant_a: Tenant) -> None:
    document, _ = _policy(tenant_a)

    response = host_client(tenant_a).get(f"/kb/documents/{document.pk}/")

    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_document_of_tenant_a_is_not_found_from_tenant_b(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    document, chunk = _policy(tenant_a)
    with tenant_context(tenant_b):
        # Tenant B has a document too, so the id could exist there only by coincidence.
        make_document("Clinic hours", "# Hours\n\nOpen from 8am.", embed=False)
    other = _signed_in(tenant_b, make_user(tenant_b, "sam"))

    response = other.get(f"/kb/documents/{document.pk}/?chunk={chunk.pk}")

    assert response.status_code == 404
    assert b"Leave policy" not in response.content and b"doctor" not in response.content


def test_a_reply_links_each_citation_chip_to_the_document_at_its_passage(
    tenant_a: Tenant,
) -> None:
    document, chunk = _policy(tenant_a)
    sam = make_user(tenant_a, "sam")
    with tenant_context(tenant_a):
        conversation = Conversation.objects.create(user=sam, title="Sick leave")
        Message.objects.create(
            conversation=conversation,
            role=Message.Role.ASSISTANT,
            content="A doctor's note from the fourth day [1].",
            citations=[
                {
                    "n": 1,
                    "document": document.pk,
                    "chunk": chunk.pk,
                    "title": "Leave policy",
                    "snippet": "Tell your line manager before 9:00 on the first day of absence.",
                }
            ],
        )

    page = _signed_in(tenant_a, sam).get(f"/c/{conversation.uuid}/").content.decode()

    assert f'href="/kb/documents/{document.pk}/?chunk={chunk.pk}#chunk-{chunk.pk}"' in page
    assert '<span class="chip-n">1</span> Leave policy' in page
