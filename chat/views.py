"""The staff web pages: chat, approvals inbox, and the fragments the page script swaps in.

Server-rendered; the page script (static/chat.js) only talks the WebSocket protocol of
docs/protocol.md and fetches these fragments, so every piece of HTML — including whatever the
model wrote — is built and sanitised here, never in the browser.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from itertools import chain
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from chat.agent.llm import is_offline, model_label
from chat.events import replay_start
from chat.models import Conversation, Message
from chat.presenters import action_card, message_view
from chat.selectors import (
    conversation_list,
    decidable_tools,
    inbox_actions,
    inbox_count,
    waiting_for_others,
)
from chat.services.actions import ActionNotFound, action_get
from chat.services.realtime import conversation_for_viewer
from chat.services.turns import ConversationNotFound
from core.jsonapi import error_response
from core.schema import current_schema
from tenants.selectors import tenant_zone

# The second line of defence behind server-side sanitising: even if markup slipped through, the
# browser would run no inline script or handler and fetch nothing from another origin.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "frame-src 'none'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


def strict_csp(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response

    return wrapped


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)  # login_required ran first
    return request.user


def _viewable(user: User, conversation_uuid: str) -> Conversation:
    try:
        return conversation_for_viewer(user=user, conversation_uuid=conversation_uuid)
    except ConversationNotFound:
        raise Http404("no such conversation") from None


def _chrome(request: HttpRequest, *, tools: list[str]) -> dict[str, Any]:
    """What every page's header shows; ``tools`` are those the user may decide."""
    return {
        "tenant_name": request.tenant.name,  # type: ignore[attr-defined]
        "model_label": model_label(),
        "model_offline": is_offline(),
        "is_approver": bool(tools),
        "inbox_count": inbox_count(
            tools=tools, viewer=request.user if isinstance(request.user, User) else None
        ),
    }


@strict_csp
@login_required
@require_GET
def chat_page(request: HttpRequest, conversation: str | None = None) -> HttpResponse:
    user = _user(request)
    query = request.GET.get("q", "")[:200]
    context: dict[str, Any] = {
        **_chrome(request, tools=decidable_tools(user=user)),
        "conversations": conversation_list(user=user, query=query),
        "query": query,
        "conversation": None,
        "items": [],
        "after": 0,
        "is_owner": True,
    }
    if conversation is not None:
        current = _viewable(user, conversation)
        context.update(
            conversation=current,
            items=_thread(current, viewer=user),
            after=replay_start(schema=current_schema(), conversation_uuid=str(current.uuid)),
            is_owner=current.user_id == user.pk,
        )
    return render(request, "chat/page.html", context)


def _thread(conversation: Conversation, *, viewer: User) -> list[dict[str, Any]]:
    """Messages and action cards in the order they happened."""
    messages = conversation.messages.exclude(role=Message.Role.TOOL)
    actions = conversation.actions.select_related("requested_by", "decided_by", "conversation")
    items = chain(
        ({"kind": "message", "at": m.created_at, "message": message_view(m)} for m in messages),
        (
            {"kind": "action", "at": a.created_at, "card": action_card(a, viewer=viewer)}
            for a in actions
        ),
    )
    return sorted(items, key=lambda item: item["at"])


@login_required
@require_GET
def message_fragment(request: HttpRequest, conversation: str, message: str) -> HttpResponse:
    current = _viewable(_user(request), conversation)
    found = current.messages.filter(uuid=message).exclude(role=Message.Role.TOOL).first()
    if found is None:
        raise Http404("no such message")
    return render(request, "chat/_message.html", {"message": message_view(found)})


@login_required
@require_GET
def action_fragment(request: HttpRequest, action: str) -> HttpResponse:
    """One action card, for the conversation page and the inbox (``?inbox=1``: the inbox's
    one-line card with its context; ``&open=1``: unfolded, as the reader had it)."""
    user = _user(request)
    try:
        found = action_get(action_id=action)
    except ActionNotFound:
        raise Http404("no such action") from None
    _viewable(user, str(found.conversation.uuid))  # who may see the card: as for the thread
    zone = tenant_zone()
    context = {
        "card": action_card(found, viewer=user, zone=zone),
        "in_inbox": request.GET.get("inbox") == "1",
        "open": request.GET.get("open") == "1",
    }
    with timezone.override(zone):  # times on the card read in the tenant's zone
        return render(request, "chat/_action_card.html", context)


@strict_csp
@login_required
@require_GET
def approvals_inbox(request: HttpRequest) -> HttpResponse:
    """What the approver can decide (at most INBOX_LIMIT, saying how many more wait), and,
    apart, their own requests waiting for someone else."""
    user = _user(request)
    tools = decidable_tools(user=user)
    if not tools:
        raise PermissionDenied("only approvers have an approvals inbox")
    zone = tenant_zone()
    cards = [
        action_card(a, viewer=user, zone=zone) for a in inbox_actions(tools=tools, viewer=user)
    ]
    mine = [
        action_card(a, viewer=user, zone=zone) for a in waiting_for_others(viewer=user, tools=tools)
    ]
    chrome = _chrome(request, tools=tools)
    context = {
        **chrome,
        "cards": cards,
        "mine": mine,
        "not_listed": max(0, chrome["inbox_count"] - len(cards)),
        "zone": zone.key,
    }
    with timezone.override(zone):
        return render(request, "chat/inbox.html", context)


@login_required
@require_GET
def approvals_count(request: HttpRequest) -> JsonResponse:
    user = _user(request)
    return JsonResponse({"pending": inbox_count(tools=decidable_tools(user=user), viewer=user)})


# -- error pages (config.urls_tenant's handler403 / handler404) ---------------------------------


def _error_page(
    request: HttpRequest, *, status: int, code: str, heading: str, detail: str
) -> HttpResponse:
    """An error in the app's own layout for people, or the API's JSON error under /api/ (programs
    parse the body; a page there would break them)."""
    if request.path.startswith("/api/"):
        return error_response(status, code, detail)
    user = request.user
    chrome = _chrome(request, tools=decidable_tools(user=user)) if isinstance(user, User) else {}
    context = {**chrome, "status": status, "heading": heading, "detail": detail}
    response = render(request, "chat/error.html", context, status=status)
    response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    return response


def forbidden_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(
        request,
        status=403,
        code="forbidden",
        heading="You don't have access to this page",
        detail="Your role in this organisation does not include it. Ask a tenant admin if you "
        "think it should.",
    )


def not_found_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(
        request,
        status=404,
        code="not_found",
        heading="Page not found",
        detail="There is nothing at this address. It may have been moved or deleted.",
    )
