"""`manage.py kb_import --tenant X PATH`: a folder of files or a SQuAD JSON file → documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context
from tqdm import tqdm

from knowledge.imports import folder_files, is_squad_file, squad_paragraphs
from knowledge.indexing import kb_reindex, kb_stale_chunk_count
from knowledge.ingest.parsers import IngestError
from knowledge.models import Document
from knowledge.services import Upload, document_create_from_upload, document_upsert
from tenants.models import Tenant


class Command(BaseCommand):
    help = (
        "Import a folder of files (txt, md, html, pdf, docx) or a SQuAD-format JSON file "
        "(each paragraph a document titled by its article) into a tenant, then embed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--tenant", required=True, help="schema name of the tenant")
        parser.add_argument("--tag", action="append", default=[], help="tag (repeatable)")
        parser.add_argument("--no-embed", action="store_true", help="leave embedding to the worker")

    def handle(self, *args: Any, **options: Any) -> None:
        tenant = tenant_by_schema(options["tenant"])
        path: Path = options["path"]
        if not path.exists():
            raise CommandError(f"{path} does not exist")
        with tenant_context(tenant):
            if path.is_dir():
                self._import_folder(path, options["tag"])
            elif is_squad_file(path):
                self._import_squad(path, options["tag"])
            else:
                self._import_files([path], options["tag"])
            if not options["no_embed"]:
                embed_with_progress(self.stderr)

    def _import_squad(self, path: Path, tags: list[str]) -> None:
        changed = total = 0
        for paragraph in tqdm(list(squad_paragraphs(path)), desc="documents", unit="doc"):
            _, was_changed = document_upsert(
                external_id=paragraph.external_id,
                title=paragraph.title,
                text=paragraph.text,
                tags=tags,
                enqueue=False,
            )
            changed += was_changed
            total += 1
        self.stdout.write(f"{total} paragraphs, {changed} new or changed")

    def _import_folder(self, path: Path, tags: list[str]) -> None:
        files = folder_files(path)
        if not files:
            raise CommandError(f"no supported files under {path}")
        self._import_files(files, tags)

    def _import_files(self, files: list[Path], tags: list[str]) -> None:
        failed = 0
        for file in tqdm(files, desc="files", unit="file"):
            try:
                document = document_create_from_upload(
                    upload=Upload(name=file.name, data=file.read_bytes()),
                    tags=tags,
                    external_id=f"file:{file.resolve()}",
                )
            except IngestError as error:
                failed += 1
                self.stderr.write(f"{file}: {error.message}")
                continue
            if document.status == Document.Status.FAILED:
                failed += 1
                self.stderr.write(f"{file}: {document.error}")
        self.stdout.write(f"{len(files) - failed} imported, {failed} failed")


def tenant_by_schema(schema: str) -> Tenant:
    tenant = Tenant.objects.filter(schema_name=schema).exclude(schema_name="public").first()
    if tenant is None:
        raise CommandError(f"no tenant with schema {schema!r}")
    return tenant


def embed_with_progress(stream: Any) -> int:
    """Run ``kb_reindex`` in the current tenant with a progress bar; returns chunks embedded."""
    with tqdm(total=kb_stale_chunk_count(), desc="embedding", unit="chunk", file=stream) as bar:
        return kb_reindex(progress=bar.update).embedded
