"""The OpenAPI document of the HTTP API, served at /api/openapi.json and copied to
docs/openapi.json (a test keeps the copy in step: `manage.py openapi > docs/openapi.json`).

Written by hand and checked by tests/chat/test_openapi_contract.py: the document is valid
OpenAPI 3.1, every ``/api/`` route is in it and every operation in it is called for real, with
each answer validated against the schema documented for its status (docs/api.md says why).
"""

from __future__ import annotations

from typing import Any

from chat.models import Conversation, Message, PendingAction
from chat.services.bulk_decisions import MAX_BULK_DECISIONS

_ERROR = {"$ref": "#/components/schemas/Error"}
_ACTION = {"$ref": "#/components/schemas/Action"}
_UUID = {"type": "string", "format": "uuid"}
_TIME = {"type": "string", "format": "date-time"}
_NULLABLE_NUMBER = {"type": ["number", "null"]}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    text = {
        400: (
            "bad input: code bad_request (malformed or over-nested JSON, a bad field), "
            "invalid_text (a NUL or an unpaired surrogate in a string), or the endpoint's own"
        ),
        401: "no valid token or session",
        403: "forbidden (or CSRF)",
        404: "not found in this tenant",
        409: "conflicting state",
        413: "the body is over DATA_UPLOAD_MAX_MEMORY_SIZE (code too_large)",
        429: "the tenant's monthly token budget is spent (code budget_exhausted)",
    }
    return {str(code): _json(_ERROR, text[code]) for code in codes}


def _path_uuid(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": _UUID}


_IDEMPOTENCY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "maxLength": 200},
    "description": "A repeated request with the same key returns the first answer.",
}
_SEND = {
    "type": "object",
    "required": ["text"],
    "properties": {
        "text": {"type": "string", "maxLength": 4000},
        "client_id": {
            **_UUID,
            "description": (
                "Unique per user: a client_id this user already sent (in any conversation, or "
                "in a first send retried) returns the original 202 and runs nothing."
            ),
        },
    },
}
_RENAME = {
    "type": "object",
    "required": ["title"],
    "properties": {
        "title": {
            "type": "string",
            "minLength": 1,
            "maxLength": Conversation.TITLE_MAX_CHARS,
            "description": "Not blank; whitespace is collapsed (code invalid otherwise).",
        }
    },
}
_ACCEPTED = {
    "type": "object",
    "required": ["conversation", "message"],
    "properties": {"conversation": _UUID, "message": _UUID},
}


def _decision(summary: str, body: dict[str, Any]) -> dict[str, Any]:
    """approve, reject and withdraw: the same shape, a different body."""
    schema = {"type": "object", "properties": body}
    return {
        "post": {
            "summary": summary,
            "parameters": [_path_uuid("action"), _IDEMPOTENCY],
            "requestBody": {"content": {"application/json": {"schema": schema}}},
            "responses": {
                "200": _json(_object(action=_ACTION), "the action as it is now"),
                **_errors(400, 401, 403, 404, 409, 413),
            },
        }
    }


def _object(**properties: Any) -> dict[str, Any]:
    """An object with these properties, all required (more may appear: clients ignore them)."""
    return {"type": "object", "required": list(properties), "properties": properties}


_ACTION_SCHEMA = {
    **_object(
        id=_UUID,
        tool={"type": "string"},
        status={"type": "string", "enum": PendingAction.Status.values},
        description={"type": "string"},
        arguments={"type": "object"},
        requested_by={"type": "string"},
        created_at=_TIME,
        version={"type": "integer", "minimum": 1},
        edited={
            "type": ["object", "null"],
            "description": "An approver's edit (`by`, `at`, `version`, `changes`, `before`, "
            "`after`), or null when the arguments are as proposed.",
        },
    ),
    "description": "A proposed write action; a conversation's actions also carry `result` "
    "and `error`, the list of actions `conversation`. `arguments` is the current version: "
    "after an approver's edit (status `edited` until confirmed) the edited one.",
}
_MESSAGE_SCHEMA = _object(
    id=_UUID,
    role={"type": "string", "enum": Message.Role.values},
    content={"type": "string"},
    citations={"type": "array", "items": {"type": "object"}},
    # the readings a clarifying question offers; sending one back answers it
    choices={"type": "array", "items": {"type": "string"}, "maxItems": Message.MAX_CHOICES},
    status={"type": "string", "enum": Message.Status.values},
    usage={"type": "object"},
    created_at=_TIME,
)
_CONVERSATION_SCHEMA = _object(
    conversation=_UUID,
    title={"type": "string"},
    created_at=_TIME,
    messages={"type": "array", "items": _MESSAGE_SCHEMA},
    actions={
        "type": "array",
        "items": {
            "allOf": [
                _ACTION,
                _object(result={"type": "object"}, error={"type": "string"}),
            ]
        },
    },
)
_SEARCH_RESULTS_SCHEMA = _object(
    query={"type": "string"},
    weak={"type": "boolean"},
    best_distance=_NULLABLE_NUMBER,
    results={
        "type": "array",
        "items": _object(
            chunk_id={"type": "integer"},
            document_id={"type": "integer"},
            document_title={"type": "string"},
            ordinal={"type": "integer"},
            text={"type": "string"},
            heading_path={"type": "array", "items": {"type": "string"}},
            vector_score=_NULLABLE_NUMBER,
            text_score=_NULLABLE_NUMBER,
            fused_score={"type": "number"},
            vector_rank={"type": ["integer", "null"]},
            text_rank={"type": ["integer", "null"]},
        ),
    },
)


def openapi_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Countersign API",
            "version": "1",
            "description": "Tenant-scoped: call it on the tenant's host. Events are the "
            "frames of docs/protocol.md.",
        },
        "security": [{"bearer": []}, {"session": []}],
        "paths": {
            "/api/conversations/": {
                "post": {
                    "summary": "Start a conversation with a message",
                    "parameters": [_IDEMPOTENCY],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _SEND}},
                    },
                    "responses": {
                        "202": _json(_ACCEPTED, "stored; the turn runs in a worker"),
                        **_errors(400, 401, 403, 409, 413, 429),
                    },
                }
            },
            "/api/conversations/{conversation}/": {
                "get": {
                    "summary": "A conversation with its messages and actions",
                    "parameters": [_path_uuid("conversation")],
                    "responses": {
                        "200": _json(
                            {"$ref": "#/components/schemas/Conversation"}, "the conversation"
                        ),
                        **_errors(401, 404),
                    },
                },
                "patch": {
                    "summary": "Rename a conversation (its owner only)",
                    "parameters": [_path_uuid("conversation")],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _RENAME}},
                    },
                    "responses": {
                        "200": _json(
                            _object(conversation=_UUID, title={"type": "string"}),
                            "renamed; the title as stored (trimmed, on one line)",
                        ),
                        **_errors(400, 401, 403, 404, 413),
                    },
                },
                "delete": {
                    "summary": "Delete a conversation (its owner only; soft: it is then not "
                    "found for them, and its actions' audit trail stays)",
                    "parameters": [_path_uuid("conversation")],
                    "responses": {
                        "200": _json(_object(conversation=_UUID, deleted_at=_TIME), "deleted"),
                        **_errors(401, 403, 404, 409),
                    },
                },
            },
            "/api/conversations/{conversation}/messages/": {
                "post": {
                    "summary": "Send a message",
                    "parameters": [_path_uuid("conversation"), _IDEMPOTENCY],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _SEND}},
                    },
                    "responses": {
                        "202": _json(_ACCEPTED, "stored; the turn runs in a worker"),
                        **_errors(400, 401, 404, 409, 413, 429),
                    },
                }
            },
            "/api/conversations/{conversation}/events/": {
                "get": {
                    "summary": "Server-Sent Events: events after a seq, then live ones",
                    "parameters": [
                        _path_uuid("conversation"),
                        {
                            "name": "after",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                        },
                        {
                            "name": "Last-Event-ID",
                            "in": "header",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "`event: <type>`, `id: <seq>`, `data: <frame JSON>`",
                            "content": {"text/event-stream": {}},
                        },
                        **_errors(400, 401, 404),
                    },
                }
            },
            "/api/conversations/{conversation}/cancel/": {
                "post": {
                    "summary": "Stop the caller's current turn, whatever it is doing: queued "
                    "(it never runs), starting or streaming (its partial reply is kept), or "
                    "waiting for a decision (the action is withdrawn); one `done` of status "
                    "`cancelled` follows",
                    "parameters": [_path_uuid("conversation")],
                    "responses": {
                        "202": _json(
                            {
                                "type": "object",
                                "required": ["conversation", "status"],
                                "properties": {
                                    "conversation": _UUID,
                                    "status": {"enum": ["cancelling", "withdrawn"]},
                                    "action": _UUID,  # with withdrawn
                                },
                            },
                            "cancelling: the queued or running turn stops; withdrawn: the "
                            "pending action it waited on (`action`) was withdrawn",
                        ),
                        **_errors(401, 404),
                        "409": _json(
                            _ERROR,
                            "nothing to cancel: no turn is queued, running or waiting for a "
                            "decision (code nothing_to_cancel); also invalid_state when the "
                            "awaited action was decided first",
                        ),
                    },
                }
            },
            "/api/actions/": {
                "get": {
                    "summary": "Actions the caller may decide or that were proposed in their own "
                    "conversations, newest first",
                    "parameters": [
                        {
                            "name": "status",
                            "in": "query",
                            "schema": {"type": "string", "enum": PendingAction.Status.values},
                        }
                    ],
                    "responses": {
                        "200": _json(
                            _object(
                                actions={
                                    "type": "array",
                                    "items": {
                                        "allOf": [_ACTION, _object(conversation=_UUID)],
                                    },
                                }
                            ),
                            "up to 200 actions",
                        ),
                        **_errors(400, 401),
                    },
                }
            },
            "/api/actions/decide": {
                "post": {
                    "summary": "Approve (as proposed) or reject several actions at once: each "
                    "is decided on its own, exactly as by its own approve/reject, and answers "
                    "its own result (an id of another tenant is not_found and decides nothing)",
                    "parameters": [_IDEMPOTENCY],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["decision", "actions"],
                                    "properties": {
                                        "decision": {
                                            "type": "string",
                                            "enum": ["approve", "reject"],
                                        },
                                        "actions": {
                                            "type": "array",
                                            "items": _UUID,
                                            "minItems": 1,
                                            "maxItems": MAX_BULK_DECISIONS,
                                            "uniqueItems": True,
                                        },
                                        "note": {"type": "string"},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "200": _json(
                            _object(
                                decision={"type": "string", "enum": ["approve", "reject"]},
                                results={
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["action", "ok"],
                                        "properties": {
                                            "action": _UUID,
                                            "ok": {"type": "boolean"},
                                            "status": {
                                                "type": "string",
                                                "enum": PendingAction.Status.values,
                                            },
                                            "error": _object(
                                                code={"type": "string"},
                                                message={"type": "string"},
                                            ),
                                        },
                                    },
                                },
                            ),
                            "one result per action, in the order asked: `ok` with the new "
                            "`status`, or an `error` whose code is the one the single-action "
                            "endpoint would answer (not_found, forbidden, expired, "
                            "invalid_state)",
                        ),
                        **_errors(400, 401, 413),
                    },
                }
            },
            "/api/actions/{action}/approve": _decision(
                "Approve (409 `expired` once it waited longer than its tool policy allows). "
                "With edited arguments it is not approved: the edit becomes a counter-proposal "
                "(status `edited`, the next `version`) that someone other than the editor "
                "confirms (`/confirm`) before anything runs",
                {
                    "arguments": {
                        "type": "object",
                        "description": "An edit (a counter-proposal); empty or absent approves "
                        "the proposal as is.",
                    },
                    "note": {"type": "string"},
                },
            ),
            "/api/actions/{action}/confirm": _decision(
                "Confirm an approver's edit (status `edited`): the action is approved and runs "
                "with the edited arguments. Only the requester, or per tool policy another "
                "approver, and never the editor (403); 409 when there is no edit waiting",
                {"note": {"type": "string"}},
            ),
            "/api/actions/{action}/decline": _decision(
                "Decline an approver's edit: the action is rejected and nothing runs (the same "
                "people as `/confirm`)",
                {"note": {"type": "string"}},
            ),
            "/api/actions/{action}/reject": _decision("Reject", {"note": {"type": "string"}}),
            "/api/actions/{action}/withdraw": _decision(
                "Withdraw a pending action you requested (only its requester may; 409 once it "
                "was decided)",
                {"note": {"type": "string"}},
            ),
            "/api/actions/{action}/snooze": {
                "post": {
                    "summary": "Put a pending action aside in your own inbox until later (only "
                    "someone who may decide it; never past its expiry)",
                    "parameters": [_path_uuid("action")],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["until"],
                                    "properties": {
                                        "until": {
                                            "type": "string",
                                            "description": '"1h", "tomorrow" (9:00 in the '
                                            "organisation's time zone), or an ISO 8601 time "
                                            "with a UTC offset, before the action expires",
                                        }
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "200": _json(
                            {
                                "type": "object",
                                "properties": {
                                    "action": {"type": "object"},
                                    "snoozed_until": {"type": "string", "format": "date-time"},
                                },
                            },
                            "snoozed; snoozing again moves the end",
                        ),
                        **_errors(400, 401, 403, 404, 409, 413),
                    },
                },
                "delete": {
                    "summary": "End your snooze of an action now (the inbox's Undo): it is back "
                    "in your inbox at once; nothing changes when it was not snoozed (only "
                    "someone who may decide it)",
                    "parameters": [_path_uuid("action")],
                    "responses": {
                        "200": _json(
                            {
                                "type": "object",
                                "properties": {
                                    "action": {"type": "object"},
                                    "snoozed_until": {"type": "null"},
                                },
                            },
                            "not snoozed (any more)",
                        ),
                        **_errors(401, 403, 404),
                    },
                },
            },
            "/api/audit/export": {
                "get": {
                    "summary": "The tenant's audit trail for a period, with the hash chain "
                    '(tenant admins only; docs/operations.md, "Audit trail")',
                    "parameters": [
                        {
                            "name": "from",
                            "in": "query",
                            "description": "ISO 8601 date or time (UTC without an offset); "
                            "inclusive. Absent: from the first event.",
                            "schema": {"type": "string"},
                        },
                        {
                            "name": "to",
                            "in": "query",
                            "description": "ISO 8601 date or time; exclusive, but a bare date "
                            "includes that day. Absent: up to now.",
                            "schema": {"type": "string"},
                        },
                        {
                            "name": "format",
                            "in": "query",
                            "schema": {"type": "string", "enum": ["jsonl", "csv"]},
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "one event per line (JSON Lines) or row (CSV): seq, "
                            "at, action, tool, kind, actor, actor_username, data, redacted, "
                            "redacted_at, data_hash, content_hash, prev_hash, hash; checked "
                            "offline by tools/audit_verify_export.py",
                            "content": {"application/jsonl": {}, "text/csv": {}},
                        },
                        **_errors(400, 401, 403),
                    },
                }
            },
            "/api/kb/search/": {
                "get": {
                    "summary": "Hybrid search of the knowledge base",
                    "parameters": [
                        {
                            "name": "q",
                            "in": "query",
                            "required": True,
                            "schema": {"type": "string"},
                        },
                        {
                            "name": "k",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 1, "maximum": 50},
                        },
                    ],
                    "responses": {
                        "200": _json(
                            {"$ref": "#/components/schemas/SearchResults"},
                            "ranked chunks with scores",
                        ),
                        **_errors(400, 401),
                    },
                }
            },
        },
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "`manage.py api_token_create --tenant T --user U`",
                },
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "sessionid",
                    "description": "Browsers; unsafe methods need the CSRF token.",
                },
            },
            "schemas": {
                "Error": _object(
                    error=_object(code={"type": "string"}, message={"type": "string"})
                ),
                "Action": _ACTION_SCHEMA,
                "Conversation": _CONVERSATION_SCHEMA,
                "SearchResults": _SEARCH_RESULTS_SCHEMA,
            },
        },
    }
