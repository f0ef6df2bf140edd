"""Tenant admin: each person's notification preference, and the digests sent (read only).

Served in the schema of the host (django-tenants), so a tenant's admin lists only its own."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from notifications.models import ApprovalDigest, NotificationPreference


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
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
