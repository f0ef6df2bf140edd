"""The approver's own pages: notification settings (``/settings/notifications/``) and the
confirmation page of an e-mail's signed link (``/approvals/decide/<token>/``).

Each person edits only their own preference: the page takes no user id, so there is nothing to
point at someone else's, and it runs in the schema of the host it is served on. A link's page
decides only on POST, and only for the person the link was written for
(notifications/decision_links.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from actions.delivery import TRANSPORTS
from chat.models import PendingAction
from chat.presenters import action_card
from chat.selectors import decidable_tools, inbox_count, is_tenant_admin
from chat.views import strict_csp
from notifications.decision_links import (
    LinkExpired,
    LinkGone,
    LinkInvalid,
    LinkNotAllowed,
    LinkOtherPerson,
    LinkOtherTenant,
    LinkOutdated,
    LinkRefused,
    LinkSpent,
    decision_link_open,
    decision_link_read,
    decision_link_use,
)
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
        "channels": [(name, kind.label) for name, kind in TRANSPORTS.items()],
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


# -- the e-mail's signed links ---------------------------------------------------------------------

# Each refusal of a link, once: its status and the page's heading (the message says the rest).
LINK_REFUSALS: dict[type[LinkRefused], tuple[int, str]] = {
    LinkInvalid: (400, "This link is not valid"),
    LinkOtherTenant: (403, "This link belongs to another organisation"),
    LinkOtherPerson: (403, "This link was sent to another person"),
    LinkNotAllowed: (403, "You may not decide this request"),
    LinkGone: (404, "This request no longer exists"),
    LinkOutdated: (409, "This request was edited"),
    LinkSpent: (409, "Nothing more to decide"),
    LinkExpired: (410, "This link has expired"),
}


def _done_words(action: PendingAction) -> str:
    """What the page says once the button did its work."""
    if action.status in PendingAction.APPROVED_SINCE:
        return "Approved. It is carried out now; the request's card shows how it goes."
    if action.status == PendingAction.Status.REJECTED:
        return "Rejected. Nothing is sent or changed; the person who asked is told."
    return f"Recorded: the request is now {action.status}."


def _link_page(request: HttpRequest, context: dict[str, Any], *, status: int = 200) -> HttpResponse:
    user = request.user
    tools = decidable_tools(user=user) if isinstance(user, User) else []
    chrome = {
        "tenant_name": request.tenant.name,  # type: ignore[attr-defined]
        "is_approver": bool(tools),
        "inbox_count": inbox_count(tools=tools, viewer=user) if isinstance(user, User) else 0,
    }
    return render(request, "notifications/decision_link.html", chrome | context, status=status)


@strict_csp
@require_http_methods(["GET", "POST"])
def decision_link(request: HttpRequest, token: str) -> HttpResponse:
    """Show the request a link names, with its button; decide on POST. The link is checked
    before sign-in (a forged or foreign one is refused at once), then the person."""
    try:
        link = decision_link_read(token=token)
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        user = request.user
        assert isinstance(user, User)
        if request.method == "POST":
            action = decision_link_use(
                link=link, user=user, decision=request.POST.get("decision", "")
            )
            card = action_card(action, viewer=user)
            return _link_page(
                request, {"card": card, "done": _done_words(action), "heading": "Done"}
            )
        action = decision_link_open(link=link, user=user)
    except LinkRefused as refusal:
        status, heading = LINK_REFUSALS.get(type(refusal), (400, "This link cannot be used"))
        return _link_page(
            request, {"heading": heading, "detail": str(refusal), "refused": True}, status=status
        )
    decisions = ["approve", "reject"] if link.purpose == "open" else [link.purpose]
    confirms = action.awaits_confirmation
    question = {"approve": "Approve this request?", "reject": "Reject this request?"}.get(
        link.purpose, "Approve or reject this request?"
    )
    if confirms:  # an approver's edit, waiting for this person: confirmed or declined
        question = "Confirm this edit?"
    return _link_page(
        request,
        {
            "card": action_card(action, viewer=user),
            "decisions": decisions,
            "confirms": confirms,
            "heading": question,
        },
    )


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
