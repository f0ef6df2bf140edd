"""kb_import, kb_reindex and kb_eval from the command line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django_tenants.utils import tenant_context

from knowledge.models import Chunk, Document
from tenants.models import Tenant
from tests.knowledge.conftest import FakeEmbedder
from tests.knowledge.factories import EXPENSES, LEAVE_POLICY

pytestmark = pytest.mark.usefixtures("fake_embedder")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "hr").mkdir()
    (tmp_path / "hr" / "leave.md").write_text(LEAVE_POLICY)
    (tmp_path / "expenses.txt").write_text(EXPENSES)
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-nope")
    (tmp_path / "notes.xyz").write_text("ignored: not a supported type")
    return tmp_path


def test_kb_import_of_a_folder_imports_every_supported_file_and_embeds_it(
    tenant_a: Tenant, folder: Path
) -> None:
    out, err = io.StringIO(), io.StringIO()

    call_command("kb_import", str(folder), tenant="alpha", tag=["hr"], stdout=out, stderr=err)

    assert "2 imported, 1 failed" in out.getvalue()
    assert "broken.pdf: This PDF is damaged or is not a valid PDF file." in err.getvalue()
    with tenant_context(tenant_a):
        statuses = dict(Document.objects.values_list("original_filename", "status"))
        assert statuses == {"leave.md": "ready", "expenses.txt": "ready", "broken.pdf": "failed"}
        assert not Chunk.objects.filter(embedding__isnull=True).exists()


def test_importing_the_same_folder_twice_changes_nothing(tenant_a: Tenant, folder: Path) -> None:
    call_command("kb_import", str(folder), tenant="alpha", stdout=io.StringIO())
    with tenant_context(tenant_a):
        before = sorted(Chunk.objects.values_list("id", "embedded_at"))

    call_command("kb_import", str(folder), tenant="alpha", stdout=io.StringIO())

    with tenant_context(tenant_a):
        assert Document.objects.count() == 3
        assert sorted(Chunk.objects.values_list("id", "embedded_at")) == before


def test_kb_import_of_a_squad_file_makes_one_document_per_paragraph_titled_by_article(
    tenant_a: Tenant, tmp_path: Path
) -> None:
    squad = tmp_path / "tiny.json"
    squad.write_text(
        json.dumps(
            {
                "data": [
                    {
                        "title": "Super_Bowl_50",
                        "paragraphs": [
                            {"context": "Super Bowl 50 was an American football game.", "qas": []},
                            {"context": "The Broncos defeated the Panthers.", "qas": []},
                        ],
                    }
                ]
            }
        )
    )

    call_command("kb_import", str(squad), tenant="alpha", stdout=io.StringIO())

    with tenant_context(tenant_a):
        assert sorted(Document.objects.values_list("external_id", "title")) == [
            ("squad:Super Bowl 50#0", "Super Bowl 50"),
            ("squad:Super Bowl 50#1", "Super Bowl 50"),
        ]


def test_kb_reindex_embeds_the_stale_chunks_of_every_tenant(
    tenant_a: Tenant, tenant_b: Tenant, folder: Path
) -> None:
    call_command("kb_import", str(folder), tenant="alpha", no_embed=True, stdout=io.StringIO())
    call_command("kb_import", str(folder), tenant="beta", no_embed=True, stdout=io.StringIO())
    out = io.StringIO()

    call_command("kb_reindex", all=True, stdout=out, stderr=io.StringIO())

    assert "alpha: 3 chunks embedded" in out.getvalue()
    assert "beta: 3 chunks embedded" in out.getvalue()


def test_kb_reindex_after_a_model_change_redoes_every_chunk(tenant_a: Tenant, folder: Path) -> None:
    from knowledge.embedder import use_embedder

    call_command("kb_import", str(folder), tenant="alpha", stdout=io.StringIO())
    out = io.StringIO()

    with use_embedder(FakeEmbedder(model_name="fake/other-model")):
        call_command("kb_reindex", tenant="alpha", stdout=out, stderr=io.StringIO())

    assert "alpha: 3 chunks embedded" in out.getvalue()


def test_kb_commands_refuse_an_unknown_tenant(folder: Path, db: None) -> None:
    with pytest.raises(CommandError, match="no tenant with schema 'nowhere'"):
        call_command("kb_import", str(folder), tenant="nowhere")
    with pytest.raises(CommandError, match="no tenant with schema 'nowhere'"):
        call_command("kb_reindex", tenant="nowhere")


def test_kb_eval_refuses_a_file_that_was_not_imported(tenant_a: Tenant) -> None:
    subset = Path(__file__).parent / "data" / "squad2-dev-subset.json"

    with pytest.raises(CommandError, match="paragraphs are not imported"):
        call_command("kb_eval", str(subset), tenant="alpha")
