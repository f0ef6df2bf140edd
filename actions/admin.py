"""Tenant admin for the actions app: contacts (with CSV import), groups, the effect rows
(read-mostly: approved actions make them) and the tool policies.

Every page runs in the schema of the host it is served on (django-tenants), so a tenant's
admin lists only that tenant's rows.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from actions.models import (
    Announcement,
    Contact,
    ContactGroup,
    OutboundMessage,
    Reminder,
    ToolPolicy,
)
from actions.services.contacts import COLUMNS, ContactImportError, contacts_import_csv
from actions.tools.base import UnknownToolError
from actions.tools.registry import get_tool, policies_create

MAX_UPLOAD_BYTES = 5 * 1024 * 1024


class ContactImportForm(forms.Form):
    file = forms.FileField(
        label="CSV file",
        help_text=f"UTF-8, first row: {', '.join(COLUMNS)} (only 'name' is required).",
    )


@admin.register(ContactGroup)
class ContactGroupAdmin(admin.ModelAdmin):
    list_display = ("name", "member_count", "created_at")
    search_fields = ("name", "description")
    list_filter = ("created_at",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ContactGroup]:
        return super().get_queryset(request).annotate(member_count=Count("contacts"))

    @admin.display(description="members", ordering="member_count")
    def member_count(self, group: ContactGroup) -> int:
        return int(getattr(group, "member_count", 0))


@admin.register(Contact)
class ContactAdmin(admin.ModelAdmin):
    list_display = ("name", "phone", "email", "telegram_chat_id", "opted_out", "updated_at")
    list_filter = ("opted_out", "groups", "created_at")
    search_fields = ("name", "phone", "email", "telegram_chat_id")
    filter_horizontal = ("groups",)
    change_list_template = "admin/actions/contact/change_list.html"

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "import/",
                self.admin_site.admin_view(self.import_view),
                name="actions_contact_import",
            )
        ]
        return own + super().get_urls()

    def import_view(self, request: HttpRequest) -> HttpResponse:
        """Upload a CSV: all rows are checked first; any bad row and nothing is imported."""
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied
        errors: list[str] = []
        form = ContactImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            if upload.size > MAX_UPLOAD_BYTES:
                errors = [f"the file is larger than {MAX_UPLOAD_BYTES // 1024 // 1024} MB"]
            else:
                try:
                    report = contacts_import_csv(data=upload.read())
                except ContactImportError as error:
                    errors = error.errors
                else:
                    created_groups = (
                        f"; new groups: {', '.join(report.groups_created)}"
                        if report.groups_created
                        else ""
                    )
                    self.message_user(
                        request,
                        f"Imported contacts: {report.created} created, "
                        f"{report.updated} updated{created_groups}.",
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(reverse("admin:actions_contact_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Import contacts from CSV",
            "form": form,
            "errors": errors,
            "columns": COLUMNS,
        }
        status = 400 if errors else 200
        return TemplateResponse(
            request, "admin/actions/contact/import.html", context, status=status
        )


@admin.register(Announcement)
class AnnouncementAdmin(admin.ModelAdmin):
    list_display = ("title", "audience", "published_at", "created_by")
    list_filter = ("published_at", "audience")
    search_fields = ("title", "body", "action_id")
    date_hierarchy = "published_at"
    readonly_fields = ("action_id", "created_by", "created_at")


class _ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written only by approved actions and the worker: shown, never edited here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(OutboundMessage)
class OutboundMessageAdmin(_ReadOnlyAdmin):
    list_display = ("to_address", "channel", "status", "attempts", "created_at", "sent_at")
    list_filter = ("status", "channel", "created_at", "sent_at")
    search_fields = ("to_address", "contact__name", "subject", "body", "action_id", "error")
    date_hierarchy = "created_at"
    list_select_related = ("contact",)


@admin.register(Reminder)
class ReminderAdmin(admin.ModelAdmin):
    list_display = ("tool", "due_at", "status", "fired_at", "created_by")
    list_filter = ("status", "tool", "due_at")
    search_fields = ("description", "action_id", "error")
    date_hierarchy = "due_at"
    readonly_fields = (
        "action_id",
        "tool",
        "arguments",
        "description",
        "status",
        "result",
        "error",
        "fired_at",
        "created_by",
        "created_at",
    )
    actions = ("cancel",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # Only a reminder that has not fired may be moved; status changes go through "cancel".
        fixed = super().get_readonly_fields(request, obj)
        if obj is not None and obj.status != Reminder.Status.SCHEDULED:
            return (*fixed, "due_at")
        return fixed

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # reminders come from approved schedule_reminder actions

    @admin.action(description="Cancel the selected scheduled reminders")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Reminder]) -> None:
        cancelled = queryset.filter(status=Reminder.Status.SCHEDULED).update(
            status=Reminder.Status.CANCELLED
        )
        self.message_user(request, f"Cancelled {cancelled} reminder(s).")


@admin.register(ToolPolicy)
class ToolPolicyAdmin(admin.ModelAdmin):
    list_display = (
        "tool_name",
        "tool_label",
        "enabled",
        "approver_group",
        "allow_self_approval",
        "max_recipients",
        "expires_after_hours",
        "edit_confirmed_by",
    )
    list_editable = (
        "enabled",
        "allow_self_approval",
        "max_recipients",
        "expires_after_hours",
        "edit_confirmed_by",
    )
    list_filter = ("enabled", "allow_self_approval")
    search_fields = ("tool_name",)
    readonly_fields = ("tool_name", "updated_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # one row per tool, made below

    @admin.display(description="tool")
    def tool_label(self, obj: ToolPolicy) -> str:
        try:
            return get_tool(obj.tool_name).label
        except UnknownToolError:  # a row left by a tool this code no longer ships
            return obj.tool_name

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # Every tool has a row to edit, including tools added since the tenant was created.
        policies_create()
        return super().changelist_view(request, extra_context)
