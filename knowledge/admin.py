"""Tenant admins curate the knowledge base here: upload, inspect chunks, reindex, search.

The admin is a thin edge: every write goes through knowledge.services, every search through
knowledge.selectors.kb_search.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import UploadedFile
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from knowledge.ingest.parsers import SUPPORTED_EXTENSIONS, IngestError
from knowledge.models import Chunk, Document, KnowledgeSettings
from knowledge.selectors import MAX_K, SearchInputError, kb_search
from knowledge.services import (
    Upload,
    document_create_from_text,
    document_create_from_upload,
    document_update,
    documents_deactivate,
    documents_rechunk,
    upload_check_size,
)


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Any number of files; each is checked by the ingestion service, not here, so an empty
    or unreadable file gets its own message instead of failing the whole form."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "widget", MultipleFileInput(attrs={"accept": ",".join(SUPPORTED_EXTENSIONS)})
        )
        super().__init__(**kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[UploadedFile]:
        files = [item for item in (data if isinstance(data, list | tuple) else [data]) if item]
        return files


class UploadForm(forms.Form):
    files = MultipleFileField(  # type: ignore[assignment]  # a field named like BaseForm.files
        required=False, help_text=f"One or more files: {', '.join(SUPPORTED_EXTENSIONS)}."
    )
    title = forms.CharField(
        required=False, max_length=300, help_text="Title of the pasted text (files use their own)."
    )
    text = forms.CharField(required=False, widget=forms.Textarea, label="Or paste text")
    tags = forms.CharField(required=False, help_text="Comma-separated, e.g. hr, policy.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("files") and not (data.get("text") or "").strip():
            raise forms.ValidationError("Choose at least one file or paste some text.")
        if (data.get("text") or "").strip() and not (data.get("title") or "").strip():
            self.add_error("title", "Pasted text needs a title.")
        return data

    def tag_list(self) -> list[str]:
        return [tag for tag in self.cleaned_data.get("tags", "").split(",") if tag.strip()]


class PlaygroundForm(forms.Form):
    q = forms.CharField(label="Query", max_length=1000)
    k = forms.IntegerField(min_value=1, max_value=MAX_K, initial=10)
    tags = forms.CharField(required=False, help_text="Only documents with one of these tags.")


class ChunkInline(admin.TabularInline):
    model = Chunk
    extra = 0
    can_delete = False
    show_change_link = False
    fields = (
        "ordinal",
        "heading_path",
        "text",
        "char_start",
        "char_end",
        "token_estimate",
        "embedding_model",
        "fresh",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(boolean=True, description="embedding up to date")
    def fresh(self, chunk: Chunk) -> bool:
        return chunk.is_fresh


class DocumentChangeForm(forms.ModelForm):
    tags_text = forms.CharField(required=False, label="Tags", help_text="Comma-separated.")

    class Meta:
        model = Document
        fields = ("title", "text", "is_active")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tags_text"].initial = ", ".join(self.instance.tags or [])


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    form = DocumentChangeForm
    list_display = ("title", "status", "chunk_count", "language", "is_active", "updated_at")
    list_filter = ("status", "is_active", "language", "source")
    search_fields = ("title", "original_filename")
    readonly_fields = (
        "status",
        "error",
        "source",
        "file",
        "original_filename",
        "language",
        "content_hash",
        "created_by",
        "created_at",
        "updated_at",
    )
    inlines = [ChunkInline]
    actions = ["reindex_now", "deactivate"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return super().get_queryset(request).annotate(chunk_total=Count("chunks"))

    @admin.display(description="chunks", ordering="chunk_total")
    def chunk_count(self, document: Document) -> int:
        return int(getattr(document, "chunk_total", 0))

    def save_model(self, request: HttpRequest, obj: Document, form: Any, change: bool) -> None:
        tags = [tag for tag in form.cleaned_data.get("tags_text", "").split(",") if tag.strip()]
        Document.objects.filter(pk=obj.pk).update(is_active=obj.is_active)
        if not {"title", "text", "tags_text"} & set(form.changed_data):
            return
        try:
            document_update(document=obj, title=obj.title, text=obj.text, tags=tags)
        except IngestError as error:
            messages.error(request, error.message)

    @admin.action(description="Reindex now", permissions=["change"])
    def reindex_now(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        count = documents_rechunk(documents=queryset)
        messages.success(
            request, f"{count} document(s) rechunked; their stale chunks are being embedded."
        )

    @admin.action(description="Deactivate (hide from search)", permissions=["change"])
    def deactivate(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        count = documents_deactivate(documents=queryset)
        messages.success(request, f"{count} document(s) deactivated.")

    # --- upload (replaces the add form) ---------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            path("playground/", wrap(self.playground_view), name="knowledge_playground"),
            *super().get_urls(),
        ]

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = UploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            self._ingest(request, form)
            return HttpResponseRedirect(reverse("admin:knowledge_document_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Add documents",
            "form": form,
            "opts": self.model._meta,
            "max_upload_bytes": _limit(),
        }
        return TemplateResponse(request, "admin/knowledge/document/upload.html", context)

    def _ingest(self, request: HttpRequest, form: UploadForm) -> None:
        tags = form.tag_list()
        user = request.user if request.user.is_authenticated else None
        for uploaded in form.cleaned_data["files"]:
            name = uploaded.name or "upload"
            try:
                upload_check_size(name=name, size=uploaded.size or 0)
                document = document_create_from_upload(
                    upload=Upload(
                        name=name, data=uploaded.read(), content_type=uploaded.content_type
                    ),
                    tags=tags,
                    created_by=user,
                )
            except IngestError as error:
                messages.error(request, f"{name}: {error.message}")
                continue
            if document.status == Document.Status.FAILED:
                messages.error(request, f"{name}: {document.error}")
            else:
                messages.success(request, f"{name}: added, {document.chunks.count()} chunks.")
        text = (form.cleaned_data.get("text") or "").strip()
        if text:
            document = document_create_from_text(
                title=form.cleaned_data["title"], text=text, tags=tags, created_by=user
            )
            messages.success(request, f"{document.title}: added, {document.chunks.count()} chunks.")

    # --- search playground ----------------------------------------------------------------

    def playground_view(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("knowledge.search_playground"):
            raise PermissionDenied
        form = PlaygroundForm(request.GET or None)
        result = error = None
        if form.is_valid():
            tags = [
                tag.strip().lower() for tag in form.cleaned_data["tags"].split(",") if tag.strip()
            ]
            try:
                result = kb_search(
                    query=form.cleaned_data["q"], k=form.cleaned_data["k"], tags=tags or None
                )
            except SearchInputError as exc:
                error = str(exc)
        context = {
            **self.admin_site.each_context(request),
            "title": "Search playground",
            "form": form,
            "result": result,
            "error": error,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/knowledge/document/playground.html", context)


def _limit() -> int:
    from django.conf import settings

    return int(settings.KB_MAX_UPLOAD_BYTES)


@admin.register(KnowledgeSettings)
class KnowledgeSettingsAdmin(admin.ModelAdmin):
    """One row of switches: it can be added once and never deleted (absent means defaults)."""

    list_display = ("__str__", "answer_cache_enabled")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and not KnowledgeSettings.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
