"""The approver's own notification settings page (``/settings/notifications/``).

Each person edits only their own preference: the page takes no user id, so there is nothing to
point at someone else's, and it runs in the schema of the host it is served on."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from chat.selectors import decidable_tools, inbox_count, is_tenant_admin
from chat.views import strict_csp
from notifications.dev_outbox import dev_outbox_enabled, dev_outbox_entries
from notifications.models import Channel, NotificationPreference, PreferenceInvalid
from notifications.services import preference_save


def _page(
    request: HttpRequest, user: User, form: dict[str, Any], *, error: str = "", status: int = 200
) -> HttpResponse:
    tools = decidable_tools(user=user)
    context = {
        "tenant_name": request.tenant.name,  # type: ignore[attr-defined]
        "is_approver": bool(tools),
        "inbox_count": inbox_count(tools=tools, viewer=user),
        "channels": Channel.choices,
        "form": form,
        "error": error,
        "saved": request.GET.get("saved") == "1" and not error,
        "account_email": user.email,
        "interval": _duration(settings.APPROVAL_NOTIFY_INTERVAL_SECONDS),
    }
    return render(request, "notifications/preferences.html", context, status=status)


def _duration(seconds: int) -> str:
    if seconds % 60:
        return f"{seconds} seconds"
    minutes = seconds // 60
    return "minute" if minutes == 1 else f"{minutes} minutes"


@strict_csp
@login_required
@require_http_methods(["GET", "POST"])
def notification_settings(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)  # login_required ran first
    if request.method == "POST":
        channel = request.POST.get("channel", "")
        address = request.POST.get("address", "")
        quiet = request.POST.get("quiet") == "on"
        form = {"channel": channel, "address": address, "quiet": quiet}
        try:
            preference_save(user=user, channel=channel, address=address, quiet=quiet)
        except PreferenceInvalid as error:
            return _page(request, user, form, error=str(error), status=400)
        return redirect(f"{request.path}?saved=1")
    current = NotificationPreference.objects.filter(user=user).first()
    form = {
        "channel": current.channel if current else Channel.EMAIL,
        "address": current.address if current else "",
        "quiet": current.quiet if current else False,
    }
    return _page(request, user, form)


@strict_csp
@login_required
@require_http_methods(["GET"])
def dev_outbox(request: HttpRequest) -> HttpResponse:
    """Development only, tenant admins only: what the dev backends "sent" in this tenant.
    Anyone else, and everyone with production settings, gets a 404 (the page does not exist)."""
    user = request.user
    assert isinstance(user, User)  # login_required ran first
    if not dev_outbox_enabled() or not is_tenant_admin(user=user):
        raise Http404("no such page")
    tools = decidable_tools(user=user)
    context = {
        "tenant_name": request.tenant.name,  # type: ignore[attr-defined]
        "is_approver": bool(tools),
        "inbox_count": inbox_count(tools=tools, viewer=user),
        "entries": dev_outbox_entries(),
    }
    return render(request, "notifications/dev_outbox.html", context)
