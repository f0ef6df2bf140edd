"""The HTTP API of DESIGN.md §7 (docs/openapi.json). Thin: parse, call a service, shape JSON."""

from __future__ import annotations

import functools
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET

from chat.audit.export import audit_export
from chat.errors import ERRORS
from chat.events.log import MAX_SEQ, follow_events
from chat.events.payloads import action_payload, action_payload_for
from chat.events.viewers import ACTION_EVENTS, Shown, action_event_for, withheld
from chat.models import Conversation, PendingAction
from chat.openapi import openapi_document
from chat.pending_actions import Confirmation, Decision, action_get
from chat.selectors import actions_visible
from chat.services.bulk_decisions import MAX_BULK_DECISIONS, ItemDecision, actions_decide_each
from chat.services.conversations import conversation_delete, conversation_rename
from chat.services.realtime import (
    action_confirm,
    action_decide,
    action_withdraw,
    conversation_cancel,
    conversation_for_viewer,
    message_send,
)
from chat.services.sessions import credential_of, session_still_valid
from chat.services.snoozes import (
    PRESETS,
    pending_action_snooze,
    pending_action_unsnooze,
    snooze_preset_until,
)
from core.jsonapi import (
    ApiError,
    api_caller,
    api_view,
    api_view_async,
    in_tenant,
    json_body,
    translate,
)
from tenants.asgi import tenant_database_sync_to_async

IDEMPOTENCY_SECONDS = 24 * 3600
SSE_KEEPALIVE_SECONDS = 15.0


def idempotent(view: Callable[..., JsonResponse]) -> Callable[..., JsonResponse]:
    """Replay the first response to a request carrying the same ``Idempotency-Key`` (per user
    and path; the cache key is tenant-prefixed by the cache itself)."""

    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
        key = request.headers.get("Idempotency-Key", "").strip()
        if not key:
            return view(request, *args, **kwargs)
        if len(key) > 200:
            raise ApiError(400, "bad_request", "Idempotency-Key is longer than 200 characters")
        cache_key = f"idem:{api_caller(request).pk}:{request.path}:{key}"
        stored = cache.get(cache_key)
        if stored is not None:
            return JsonResponse(stored["body"], status=stored["status"])
        response = view(request, *args, **kwargs)
        if response.status_code < 500:
            cache.set(
                cache_key,
                {"status": response.status_code, "body": json.loads(response.content)},
                IDEMPOTENCY_SECONDS,
            )
        return response

    return wrapped


def _text(body: dict[str, Any]) -> str:
    text = body.get("text")
    if not isinstance(text, str):
        raise ApiError(400, "bad_request", "'text' must be a string")
    return text


def _client_id(request: HttpRequest, body: dict[str, Any]) -> str | None:
    """The body's ``client_id`` (a uuid, or 400), else an ``Idempotency-Key`` that is one."""
    if body.get("client_id") is not None:
        try:
            return str(uuid.UUID(str(body["client_id"])))
        except ValueError:
            raise ApiError(400, "bad_request", "'client_id' must be a uuid") from None
    try:
        return str(uuid.UUID(request.headers.get("Idempotency-Key", "")))
    except ValueError:
        return None  # a free-form Idempotency-Key is honoured by @idempotent instead


@api_view(ERRORS, methods=["POST"])
@idempotent
def conversations_create(request: HttpRequest) -> JsonResponse:
    return _accept(request, conversation_uuid=None)


@api_view(ERRORS, methods=["POST"])
@idempotent
def messages_create(request: HttpRequest, conversation: str) -> JsonResponse:
    return _accept(request, conversation_uuid=str(conversation))


def _accept(request: HttpRequest, *, conversation_uuid: str | None) -> JsonResponse:
    body = json_body(request)
    accepted = message_send(
        user=api_caller(request),
        text=_text(body),
        conversation_uuid=conversation_uuid,
        client_id=_client_id(request, body),
    )
    return JsonResponse(
        {"conversation": str(accepted.conversation.uuid), "message": str(accepted.message.uuid)},
        status=202,
    )


@api_view(ERRORS, methods=["GET", "PATCH", "DELETE"])
def conversation_detail(request: HttpRequest, conversation: str) -> JsonResponse:
    """GET: the conversation; PATCH ``{"title"}``: rename it; DELETE: delete it (soft). Only
    its owner renames or deletes; after a delete it is not found for them."""
    user = api_caller(request)
    if request.method == "PATCH":
        body = json_body(request)
        if "title" not in body:
            raise ApiError(400, "bad_request", "'title' is required")
        renamed = conversation_rename(
            user=user, conversation_uuid=str(conversation), title=body["title"]
        )
        return JsonResponse({"conversation": str(renamed.uuid), "title": renamed.title})
    if request.method == "DELETE":
        deleted = conversation_delete(user=user, conversation_uuid=str(conversation))
        assert deleted.deleted_at is not None  # the service just set it
        return JsonResponse(
            {"conversation": str(deleted.uuid), "deleted_at": deleted.deleted_at.isoformat()}
        )
    found = conversation_for_viewer(user=user, conversation_uuid=str(conversation))
    return JsonResponse(_conversation_json(found, viewer=user))


def _action_json(action: PendingAction, *, viewer: User) -> dict[str, Any]:
    """A conversation's action with its outcome, or its placeholder for a viewer who may not
    read it (``chat.selectors.action_visible_to``)."""
    payload = action_payload_for(action, viewer=viewer, full=True)
    if payload.get("redacted"):
        return payload | {"result": {}, "error": ""}
    return payload | {"result": action.result, "error": action.error}


def _conversation_json(conversation: Conversation, *, viewer: User) -> dict[str, Any]:
    return {
        "conversation": str(conversation.uuid),
        "title": conversation.title,
        "created_at": conversation.created_at.isoformat(),
        "messages": [
            {
                "id": str(m.uuid),
                "role": m.role,
                "content": m.content,
                "citations": m.citations,
                "choices": m.choices,
                "status": m.status,
                "usage": m.usage,
                "created_at": m.created_at.isoformat(),
            }
            for m in conversation.messages.all()
        ],
        "actions": [
            _action_json(a, viewer=viewer)
            for a in conversation.actions.select_related("requested_by")
        ],
    }


@api_view(ERRORS, methods=["POST"])
def conversation_cancel_view(request: HttpRequest, conversation: str) -> JsonResponse:
    outcome = conversation_cancel(user=api_caller(request), conversation_uuid=str(conversation))
    body = {"conversation": str(conversation), "status": outcome.status}
    if outcome.action is not None:
        body["action"] = str(outcome.action.id)
    return JsonResponse(body, status=202)


@api_view(ERRORS, methods=["GET"])
def actions_list(request: HttpRequest) -> JsonResponse:
    status = request.GET.get("status")
    if status is not None and status not in PendingAction.Status.values:
        raise ApiError(
            400, "bad_request", f"status must be one of {', '.join(PendingAction.Status.values)}"
        )
    actions = actions_visible(user=api_caller(request))
    if status:
        actions = actions.filter(status=status)
    return JsonResponse(
        {
            "actions": [
                action_payload(a, full=True) | {"conversation": str(a.conversation.uuid)}
                for a in actions[:200]
            ]
        }
    )


def _decision_note(body: dict[str, Any], action: str) -> str:
    """The decision's ``note``, checked; then a 404 for an unknown action, before any work."""
    note = body.get("note", "")
    if not isinstance(note, str):
        raise ApiError(400, "bad_request", "'note' must be a string")
    action_get(action_id=str(action))
    return note


def _decide(request: HttpRequest, action: str, decision: Decision) -> JsonResponse:
    body = json_body(request)
    arguments = body.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise ApiError(400, "bad_request", "'arguments' must be an object")
    note = _decision_note(body, action)
    decided = action_decide(
        user=api_caller(request),
        action_id=str(action),
        decision=decision,
        arguments=arguments if decision == "approve" else None,
        note=note,
    )
    return JsonResponse({"action": action_payload(decided, full=True)})


@api_view(ERRORS, methods=["POST"])
@idempotent
def action_approve(request: HttpRequest, action: str) -> JsonResponse:
    return _decide(request, action, "approve")


@api_view(ERRORS, methods=["POST"])
@idempotent
def action_reject(request: HttpRequest, action: str) -> JsonResponse:
    return _decide(request, action, "reject")


def _confirm(request: HttpRequest, action: str, decision: Confirmation) -> JsonResponse:
    note = _decision_note(json_body(request), action)
    confirmed = action_confirm(
        user=api_caller(request), action_id=str(action), decision=decision, note=note
    )
    return JsonResponse({"action": action_payload(confirmed, full=True)})


@api_view(ERRORS, methods=["POST"])
@idempotent
def action_confirm_view(request: HttpRequest, action: str) -> JsonResponse:
    """Confirm an approver's edit: four eyes on the final text (docs/web.md)."""
    return _confirm(request, action, "confirm")


@api_view(ERRORS, methods=["POST"])
@idempotent
def action_decline_view(request: HttpRequest, action: str) -> JsonResponse:
    return _confirm(request, action, "decline")


def _action_ids(body: dict[str, Any]) -> list[str]:
    """``actions``: 1 to MAX_BULK_DECISIONS distinct action uuids, each named once."""
    ids = body.get("actions")
    if not isinstance(ids, list) or not ids:
        raise ApiError(400, "bad_request", "'actions' must be a non-empty list of action ids")
    if len(ids) > MAX_BULK_DECISIONS:
        raise ApiError(
            400, "bad_request", f"'actions' lists {len(ids)} ids; at most {MAX_BULK_DECISIONS}"
        )
    parsed = [_action_id(item) for item in ids]
    repeated = next((i for n, i in enumerate(parsed) if i in parsed[:n]), None)
    if repeated is not None:
        raise ApiError(400, "bad_request", f"'actions' names {repeated} twice")
    return parsed


def _action_id(item: Any) -> str:
    try:
        return str(uuid.UUID(item))
    except (TypeError, ValueError, AttributeError):  # not a string, or not a uuid
        raise ApiError(
            400, "bad_request", f"'actions': {str(item)[:60]!r} is not an action id"
        ) from None


def _item_json(item: ItemDecision) -> dict[str, Any]:
    if item.action is not None:
        return {"action": item.action_id, "ok": True, "status": item.action.status}
    assert item.refusal is not None
    _status, code = translate(item.refusal, ERRORS) or (409, "invalid_state")
    return {
        "action": item.action_id,
        "ok": False,
        "error": {"code": code, "message": str(item.refusal)},
    }


@api_view(ERRORS, methods=["POST"])
@idempotent
def actions_decide(request: HttpRequest) -> JsonResponse:
    """Approve (as proposed) or reject several actions; one result per action, in order."""
    body = json_body(request)
    decision, note = body.get("decision"), body.get("note", "")
    if decision not in ("approve", "reject"):
        raise ApiError(400, "bad_request", "'decision' must be approve or reject")
    if not isinstance(note, str):
        raise ApiError(400, "bad_request", "'note' must be a string")
    results = actions_decide_each(
        user=api_caller(request), action_ids=_action_ids(body), decision=decision, note=note
    )
    return JsonResponse({"decision": decision, "results": [_item_json(r) for r in results]})


@api_view(ERRORS, methods=["POST"])
@idempotent
def action_withdraw_view(request: HttpRequest, action: str) -> JsonResponse:
    note = json_body(request).get("note", "")
    if not isinstance(note, str):
        raise ApiError(400, "bad_request", "'note' must be a string")
    withdrawn = action_withdraw(user=api_caller(request), action_id=str(action), note=note)
    return JsonResponse({"action": action_payload(withdrawn, full=True)})


def _snooze_until(body: dict[str, Any]) -> datetime:
    """``until``: a named snooze ("1h", "tomorrow" at 9:00 in the tenant's zone) or an ISO 8601
    moment with its UTC offset (a moment without one would mean a different time per reader)."""
    until = body.get("until")
    if not isinstance(until, str) or not until.strip():
        raise ApiError(
            400, "bad_request", f"'until' must be one of {', '.join(PRESETS)} or an ISO 8601 time"
        )
    if until in PRESETS:
        return snooze_preset_until(until)
    try:
        moment = datetime.fromisoformat(until)
    except ValueError:
        raise ApiError(
            400, "bad_request", f"'until' is neither {' nor '.join(PRESETS)} nor an ISO 8601 time"
        ) from None
    if moment.tzinfo is None:
        raise ApiError(400, "bad_request", "'until' needs a UTC offset, e.g. +09:00 or Z")
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # year 1 or 9999 shifted by its offset leaves the calendar
        raise ApiError(400, "bad_request", "'until' is out of range") from None


@api_view(ERRORS, methods=["POST", "DELETE"])
@idempotent
def action_snooze_view(request: HttpRequest, action: str) -> JsonResponse:
    """POST snoozes (or moves the snooze's end); DELETE ends the caller's snooze now (Undo)."""
    if request.method == "DELETE":
        back = pending_action_unsnooze(action_id=str(action), user=api_caller(request))
        return JsonResponse({"action": action_payload(back, full=True), "snoozed_until": None})
    until = _snooze_until(json_body(request))
    snooze = pending_action_snooze(action_id=str(action), user=api_caller(request), until=until)
    return JsonResponse(
        {
            "action": action_payload(snooze.action, full=True),
            "snoozed_until": snooze.until.isoformat(),
        }
    )


@api_view(ERRORS, methods=["GET"])
def audit_export_view(request: HttpRequest) -> HttpResponse:
    export = audit_export(
        user=api_caller(request),
        since=request.GET.get("from"),
        until=request.GET.get("to"),
        fmt=request.GET.get("format"),
    )
    response = HttpResponse(export.content, content_type=f"{export.content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


@require_GET
def openapi(request: HttpRequest) -> JsonResponse:
    return JsonResponse(openapi_document())


# -- Server-Sent Events -------------------------------------------------------------------------


def _sse(event: dict[str, Any]) -> bytes:
    data = json.dumps(event, ensure_ascii=False)
    return f"id: {event['seq']}\nevent: {event['type']}\ndata: {data}\n\n".encode()


@api_view_async(ERRORS, methods=["GET"])
async def conversation_events(request: HttpRequest, conversation: str) -> StreamingHttpResponse:
    """``text/event-stream`` of the conversation's events after ``?after=N`` or the
    ``Last-Event-ID`` header, then live ones, read straight from the event log."""
    after = _after(request.headers.get("Last-Event-ID") or request.GET.get("after", "0"))
    if after is None:
        raise ApiError(400, "bad_request", f"'after' must be an integer from 0 to {MAX_SEQ - 1}")
    user = api_caller(request)
    watched = await in_tenant(
        request, lambda: conversation_for_viewer(user=user, conversation_uuid=str(conversation))
    )
    owner = watched.user_id == user.pk
    # The stream may last hours and reads only Redis: give this request's pooled database
    # connection back now rather than when the stream ends (docs/operations.md, budget).
    await sync_to_async(close_old_connections)()
    tenant = request.tenant  # type: ignore[attr-defined]  # set by django-tenants
    credential = credential_of(request.headers.get("Authorization", ""))

    async def still_valid() -> bool:
        return await session_still_valid(tenant=tenant, user_id=user.pk, credential=credential)

    stream = _viewer_stream(
        _event_stream(tenant.schema_name, str(conversation), after, still_valid),
        db=tenant_database_sync_to_async(tenant),
        user_id=user.pk,
        owner=owner,
    )
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _after(raw: str) -> int | None:
    """``after`` as an int in [0, MAX_SEQ), or None (ASCII digits only: ``"²".isdigit()``)."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        return None
    after = int(raw)
    return after if after < MAX_SEQ else None


async def _event_stream(
    schema: str, conversation: str, after: int, still_valid: Callable[[], Awaitable[bool]]
) -> AsyncIterator[bytes | dict[str, Any]]:
    """The events (each viewer's share is taken by ``_viewer_stream``), and keep-alives as SSE
    comments; the stream ends within ``SESSION_RECHECK_SECONDS`` of its token being revoked or
    its user deactivated (chat/services/sessions.py)."""
    recheck = settings.SESSION_RECHECK_SECONDS
    events = follow_events(
        schema=schema,
        conversation_uuid=conversation,
        after=after,
        block_seconds=min(SSE_KEEPALIVE_SECONDS, recheck),
    )
    checked_at = time.monotonic()
    async for event in events:
        if time.monotonic() - checked_at >= recheck:
            if not await still_valid():
                return
            checked_at = time.monotonic()
        yield event if event is not None else b": keep-alive\n\n"


async def _viewer_stream(
    events: AsyncIterator[bytes | dict[str, Any]],
    *,
    db: Callable[[Callable[[], Shown]], Callable[[], Awaitable[Shown]]],
    user_id: int,
    owner: bool,
) -> AsyncIterator[bytes]:
    """The events this viewer may read (chat.events.viewers), as SSE; a watcher who is not the
    owner is sent an action they may not read as its placeholder, and the stream ends."""
    async for event in events:
        if isinstance(event, bytes):
            yield event
            continue
        if withheld(kind=event["type"], owner=owner):
            continue
        if event["type"] not in ACTION_EVENTS:
            yield _sse(event)
            continue
        shown = await db(functools.partial(action_event_for, event=event, user_id=user_id))()
        yield _sse(shown.event)
        if not shown.readable and not owner:
            return
