"""The staff web pages: chat, approvals inbox, and the fragments the page script swaps in.

Server-rendered; the page script (static/chat.js) only talks the WebSocket protocol of
docs/protocol.md and fetches these fragments, so every piece of HTML — including whatever the
model wrote — is built and sanitised here, never in the browser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import wraps
from itertools import chain
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from chat.agent.llm import is_offline, model_label
from chat.events.log import replay_start
from chat.models import Conversation, Message
from chat.pending_actions import ActionNotFound, action_get
from chat.presenters import action_card, conversation_groups, document_lines, message_view
from chat.selectors import (
    conversation_list,
    decidable_tools,
    inbox_actions,
    inbox_count,
    is_tenant_admin,
    snooze_ends,
    snoozed_actions,
    unapprovable_actions,
    waiting_for_others,
)
from chat.services.realtime import conversation_for_viewer
from chat.services.turns import ConversationNotFound
from core.jsonapi import error_response
from core.schema import current_schema
from knowledge.selectors import DocumentNotFound, document_for_reading
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
    """What every page's header shows; ``tools`` are those the user may decide. A tenant admin
    also sees the requests nobody but their requester could approve (they alone can fix it)."""
    user = request.user if isinstance(request.user, User) else None
    return {
        "unapprovable": unapprovable_actions()
        if user is not None and is_tenant_admin(user=user)
        else [],
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
        "groups": conversation_groups(
            conversation_list(user=user, query=query), now=timezone.now(), zone=tenant_zone()
        ),
        "query": query,
        "max_chars": settings.CHAT_MAX_MESSAGE_CHARS,
        "title_max": Conversation.TITLE_MAX_CHARS,
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


@strict_csp
@login_required
@require_GET
def document_page(request: HttpRequest, document: int) -> HttpResponse:
    """A knowledge-base document, read-only, with the passage ``?chunk=<id>`` highlighted (the
    link of a citation). Any signed-in member of the tenant may read its active documents: the
    assistant quotes them to everyone."""
    user = _user(request)
    raw_chunk = request.GET.get("chunk")
    if raw_chunk is not None and not (raw_chunk.isascii() and raw_chunk.isdigit()):
        return _error_page(
            request,
            status=400,
            code="bad_request",
            heading="This link is not right",
            detail="The passage in this address is not a number. Open the source again from "
            "the conversation.",
        )
    # Past 20 digits it is no id of ours (and Python refuses to parse thousands of digits).
    chunk = None if raw_chunk is None else int(raw_chunk) if len(raw_chunk) <= 20 else 0
    try:
        reading = document_for_reading(document_id=document, chunk_id=chunk)
    except DocumentNotFound:
        raise Http404("no such document") from None
    return render(
        request,
        "chat/document.html",
        {
            **_chrome(request, tools=decidable_tools(user=user)),
            "reading": reading,
            "lines": document_lines(
                reading.document.text, span=reading.span, title=reading.document.title
            ),
        },
    )


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
    card = action_card(found, viewer=user, zone=zone)
    ends = snooze_ends(viewer=user, action_ids=[found.pk])
    context = {
        "card": replace(card, snoozed_until=ends.get(found.pk)),
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
    snoozed = list(snoozed_actions(viewer=user, tools=tools))
    ends = snooze_ends(viewer=user, action_ids=[a.pk for a in snoozed])
    chrome = _chrome(request, tools=tools)
    context = {
        **chrome,
        "cards": cards,
        "snoozed": [
            replace(action_card(a, viewer=user, zone=zone), snoozed_until=ends.get(a.pk))
            for a in snoozed
        ],
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
    # No user when a middleware refused the request before authentication (an unknown host).
    user = getattr(request, "user", None)
    chrome = _chrome(request, tools=decidable_tools(user=user)) if isinstance(user, User) else {}
    context = {**chrome, "status": status, "heading": heading, "detail": detail}
    response = render(request, "chat/error.html", context, status=status)
    response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    return response


# What a refused page says, by the view that refused: the generic words otherwise.
FORBIDDEN_WORDS = {
    "approvals": (
        "Only approvers can open the approvals inbox",
        "Your role here is to ask; approvers decide the actions the assistant proposes. You "
        "can follow your own requests in their conversations.",
    ),
}


def forbidden_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    match = getattr(request, "resolver_match", None)
    heading, detail = FORBIDDEN_WORDS.get(
        getattr(match, "url_name", "") or "",
        (
            "You don't have access to this page",
            "Your role in this organisation does not include it. Ask a tenant admin if you "
            "think it should.",
        ),
    )
    return _error_page(request, status=403, code="forbidden", heading=heading, detail=detail)


def not_found_page(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(
        request,
        status=404,
        code="not_found",
        heading="Page not found",
        detail="There is nothing at this address. It may have been moved or deleted.",
    )


def too_large_page(request: HttpRequest) -> HttpResponse:
    """``handler413`` (core.bodylimit): the person stays signed in and may send less."""
    limit_mb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / (1024 * 1024)
    return _error_page(
        request,
        status=413,
        code="too_large",
        heading="What you sent is too large",
        detail=f"A form may carry at most {limit_mb:.1f} MB, and nothing was saved. Go back, "
        "shorten it and send it again; you are still signed in.",
    )
