"""Tenant admin: each person's notification preference, and the digests sent (read only).

Served in the schema of the host (django-tenants), so a tenant's admin lists only its own."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html, linebreaks, urlize
from django.utils.safestring import SafeString, mark_safe

from notifications.models import ApprovalDigest, NotificationPreference
from notifications.services import digest_delivery


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "channel", "address", "quiet", "updated_at")
    list_filter = ("channel", "quiet")
    search_fields = ("user__username", "user__email", "address")
    autocomplete_fields = ("user",)


@admin.register(ApprovalDigest)
class ApprovalDigestAdmin(admin.ModelAdmin):
    list_display = ("created_at", "user", "channel", "address", "status", "attempts")
    list_filter = ("status", "channel", "created_at")
    search_fields = ("user__username", "address")
    readonly_fields = (
        "uuid",
        "user",
        "channel",
        "address",
        "status",
        "attempts",
        "error",
        "created_at",
        "attempted_at",
        "sent_at",
        "subject",
        "message",
    )

    # What the approver read: composed again from the actions the digest lists (nothing is
    # stored twice), with its links clickable.
    @admin.display(description="Subject")
    def subject(self, digest: ApprovalDigest) -> str:
        return digest_delivery(digest=digest).subject or ""

    @admin.display(description="Message")
    def message(self, digest: ApprovalDigest) -> SafeString:
        body = digest_delivery(digest=digest).body
        # urlize escapes all text but the links it makes; linebreaks only adds <p>/<br>.
        html = linebreaks(urlize(body, autoescape=True))
        return format_html('<div data-testid="digest-body">{}</div>', mark_safe(html))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
