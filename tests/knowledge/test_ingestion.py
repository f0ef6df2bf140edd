"""Adding documents: files become chunks; unreadable or oversized files say why and leave the
knowledge base as it was (acceptance 5)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from knowledge.ingest.parsers import IngestError
from knowledge.models import Chunk, Document
from knowledge.services import Upload, UploadTooLargeError, document_create_from_upload
from tenants.models import Tenant
from tests.knowledge.conftest import FakeEmbedder
from tests.knowledge.factories import LEAVE_POLICY, make_document
from tests.unit.knowledge.test_parsers import docx_without_core_properties, make_pdf

pytestmark = pytest.mark.usefixtures("fake_embedder")


def _upload(name: str, data: bytes) -> Document:
    return document_create_from_upload(upload=Upload(name=name, data=data))


def test_a_markdown_upload_becomes_chunks_with_their_heading_paths(in_tenant_a: Tenant) -> None:
    document = _upload("leave.md", LEAVE_POLICY.encode())

    chunks = list(document.chunks.order_by("ordinal"))
    assert document.status == Document.Status.PENDING
    assert document.title == "Leave policy"
    assert document.language == "en"
    assert str(document.file.name).startswith("knowledge/alpha/")
    assert [chunk.heading_path for chunk in chunks] == [
        ["Leave policy", "Annual leave"],
        ["Leave policy", "Sick leave"],
    ]
    assert all(document.text[c.char_start : c.char_end] == c.text for c in chunks)


def test_chunks_get_a_full_text_vector_with_the_title_and_headings(in_tenant_a: Tenant) -> None:
    document = _upload("leave.md", LEAVE_POLICY.encode())

    vector = str(document.chunks.get(ordinal=1).search_vector)
    assert "'sick':" in vector and "'leave':" in vector and "'doctor':" in vector


def test_a_pdf_without_a_title_is_titled_by_its_file_name_without_extension(
    in_tenant_a: Tenant,
) -> None:
    document = _upload("canteen.pdf", make_pdf([["Lunch is served from noon."]]))

    assert document.title == "canteen"


def test_a_docx_without_core_properties_is_titled_by_its_file_name_without_extension(
    in_tenant_a: Tenant,
) -> None:
    document = _upload("canteen.docx", docx_without_core_properties())

    assert document.title == "canteen"


def test_an_unreadable_file_is_titled_by_its_file_name_without_extension(
    in_tenant_a: Tenant,
) -> None:
    assert _upload("broken.pdf", b"not a pdf").title == "broken"


def test_an_empty_file_fails_with_a_clear_reason_and_no_chunks(in_tenant_a: Tenant) -> None:
    document = _upload("empty.txt", b"")

    assert document.status == Document.Status.FAILED
    assert document.error == "The file is empty."
    assert not document.chunks.exists()


def test_a_corrupt_pdf_fails_with_a_clear_reason_and_no_chunks(in_tenant_a: Tenant) -> None:
    document = _upload("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not a pdf")

    assert document.status == Document.Status.FAILED
    assert document.error == "This PDF is damaged or is not a valid PDF file."
    assert not document.chunks.exists()


def test_a_binary_file_fails_with_a_clear_reason_and_no_chunks(in_tenant_a: Tenant) -> None:
    document = _upload("photo.txt", bytes(range(256)) * 8)

    assert document.status == Document.Status.FAILED
    assert document.error.startswith("This file does not look like text")
    assert not document.chunks.exists()


@override_settings(KB_MAX_UPLOAD_BYTES=1000)
def test_an_upload_over_the_limit_is_refused_and_nothing_is_stored(in_tenant_a: Tenant) -> None:
    with pytest.raises(UploadTooLargeError) as refused:
        _upload("big.txt", b"word " * 300)

    assert refused.value.message == (
        "big.txt is 1.5 KB; the limit is 1000 bytes. Split it into smaller files."
    )
    assert not Document.objects.exists()


def test_a_failed_upload_leaves_the_other_documents_as_they_were(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    good = make_document("Leave policy", LEAVE_POLICY)
    before = list(Chunk.objects.values_list("id", "content_hash", "embedded_hash"))

    for name, data in [("empty.md", b"  \n"), ("bad.pdf", b"%PDF-garbage"), ("x.txt", b"\0" * 9)]:
        _upload(name, data)

    good.refresh_from_db()
    assert good.status == Document.Status.READY
    assert list(Chunk.objects.values_list("id", "content_hash", "embedded_hash")) == before


def test_reuploading_a_fixed_file_turns_its_failed_document_into_a_ready_one(
    in_tenant_a: Tenant,
) -> None:
    failed = document_create_from_upload(upload=Upload(name="a.md", data=b""), external_id="f:a")

    fixed = document_create_from_upload(
        upload=Upload(name="a.md", data=LEAVE_POLICY.encode()), external_id="f:a"
    )

    assert fixed.pk == failed.pk
    assert fixed.status == Document.Status.PENDING
    assert fixed.error == ""
    assert fixed.chunks.count() == 2


def test_pasted_blank_text_is_refused(in_tenant_a: Tenant) -> None:
    from knowledge.services import document_create_from_text

    with pytest.raises(IngestError, match="The text is empty"):
        document_create_from_text(title="Nothing", text="  \n ")
    assert not Document.objects.exists()
