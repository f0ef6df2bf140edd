"""Tenant admin: the assistant's prompt (versioned) and read-only conversations and actions."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import HttpRequest

from chat.agent.prompts import DEFAULT_PROMPT
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
