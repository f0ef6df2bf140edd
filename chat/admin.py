"""Tenant admin: the assistant's prompt (versioned) and read-only conversations and actions."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from chat.agent.prompts import DEFAULT_PROMPT
from chat.audit.export import FORMATS, AuditExportForbidden, audit_export
from chat.models import (
    ActionEvent,
    ApiToken,
    AssistantPrompt,
    Conversation,
    Message,
    PendingAction,
    RunUsage,
    UsageDay,
)
from chat.services.prompts import assistant_prompt_activate, assistant_prompt_publish
from chat.tokens import api_token_create, api_token_revoke


@admin.register(AssistantPrompt)
class AssistantPromptAdmin(admin.ModelAdmin):
    list_display = ("version", "is_active", "created_by", "created_at", "first_line")
    list_filter = ("is_active",)
    readonly_fields = ("version", "is_active", "created_by", "created_at")
    fields = ("text", "version", "is_active", "created_by", "created_at")
    actions = ["activate"]

    @admin.display(description="starts with")
    def first_line(self, obj: AssistantPrompt) -> str:
        return obj.text.strip().splitlines()[0][:80] if obj.text.strip() else ""

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        active = AssistantPrompt.objects.filter(is_active=True).first()
        return {"text": active.text if active else DEFAULT_PROMPT}

    def save_model(
        self, request: HttpRequest, obj: AssistantPrompt, form: Any, change: bool
    ) -> None:
        # Saving never overwrites a version: it publishes a new one, so history stays intact.
        author = request.user if isinstance(request.user, User) else None
        published = assistant_prompt_publish(text=obj.text, user=author)
        obj.pk, obj.version = published.pk, published.version
        self.message_user(
            request, f"Published version {published.version}; it is used from the next turn."
        )

    @admin.action(description="Make the selected version the active one")
    def activate(self, request: HttpRequest, queryset: QuerySet[AssistantPrompt]) -> None:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one version.", level=messages.ERROR)
            return
        assistant_prompt_activate(prompt=queryset.get())
        self.message_user(request, "Activated.")


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records of what happened: visible to tenant admins, never edited by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("role", "status", "content", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = ("title", "user", "created_at", "updated_at")
    search_fields = ("title", "user__username", "uuid")
    list_filter = ("created_at",)
    inlines = [MessageInline]


class ActionEventInline(admin.TabularInline):
    model = ActionEvent
    fields = ("kind", "actor", "at", "data")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(PendingAction)
class PendingActionAdmin(ReadOnlyAdmin):
    list_display = ("tool", "status", "requested_by", "decided_by", "created_at")
    list_filter = ("status", "tool", "created_at")
    search_fields = ("description", "requested_by__username", "id")
    inlines = [ActionEventInline]


class AuditExportForm(forms.Form):
    start = forms.DateField(label="From (inclusive)", required=False, help_text="YYYY-MM-DD")
    end = forms.DateField(label="To (inclusive)", required=False, help_text="YYYY-MM-DD")
    format = forms.ChoiceField(choices=[(f, f.upper()) for f in FORMATS], initial="jsonl")


@admin.register(ActionEvent)
class ActionEventAdmin(ReadOnlyAdmin):
    """The audit trail, read-only (the database refuses edits anyway), with its export."""

    list_display = ("seq", "at", "kind", "tool", "actor_username", "action_id", "redacted_at")
    list_filter = ("kind", "tool", "at")
    search_fields = ("actor_username", "action__id")
    change_list_template = "admin/chat/actionevent/change_list.html"

    def get_urls(self) -> list[URLPattern]:
        export = self.admin_site.admin_view(self.export_view)
        return [path("export/", export, name="chat_actionevent_export"), *super().get_urls()]

    def export_view(self, request: HttpRequest) -> HttpResponse:
        """A period of the trail as JSON Lines or CSV (tenant admins; docs/operations.md)."""
        form = AuditExportForm(request.GET or None)
        if not form.is_valid():
            context = {
                **self.admin_site.each_context(request),
                "title": "Export the audit trail",
                "intro": "Each row carries the hash chain: tools/audit_verify_export.py "
                "checks a download offline.",
                "form": form,
            }
            return TemplateResponse(request, "admin/chat/actionevent/export.html", context)
        start, end = form.cleaned_data["start"], form.cleaned_data["end"]
        try:
            export = audit_export(
                user=request.user,  # type: ignore[arg-type]
                since=start.isoformat() if start else None,
                until=end.isoformat() if end else None,
                fmt=form.cleaned_data["format"],
            )
        except AuditExportForbidden:
            raise PermissionDenied from None
        response = HttpResponse(
            export.content, content_type=f"{export.content_type}; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
        return response


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at", "created_at")
    search_fields = ("name", "user__username", "prefix")
    fields = ("user", "name", "expires_at", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        row, token = api_token_create(user=obj.user, name=obj.name, expires_at=obj.expires_at)
        obj.pk = row.pk
        self.message_user(
            request,
            f"Token for {row.user}: {token} — copy it now, it will not be shown again.",
            level=messages.WARNING,
        )

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        for token in queryset:
            api_token_revoke(token=token)
        self.message_user(request, f"Revoked {queryset.count()} token(s).")


@admin.register(UsageDay)
class UsageDayAdmin(ReadOnlyAdmin):
    """This tenant's model tokens and estimated cost per day (chat/services/usage.py)."""

    list_display = ("date", "turns", "input_tokens", "output_tokens", "cost")
    date_hierarchy = "date"


@admin.register(RunUsage)
class RunUsageAdmin(ReadOnlyAdmin):
    """Each run of the assistant: the tokens of the model calls it made and their cost."""

    list_display = (
        "created_at",
        "conversation",
        "model",
        "input_tokens",
        "output_tokens",
        "cost",
        "finished_turn",
    )
    list_filter = ("model", "finished_turn", "created_at")
    search_fields = ("conversation__uuid", "run_id")


# Agent evaluations register their own admin pages (case sets, runs, results).
import chat.evals.admin  # noqa: E402, F401
