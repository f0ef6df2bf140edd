"""The domain exceptions of chat's services and what each transport answers for them.

The one table: the HTTP API answers ``(status, code)`` through the edge (``core.jsonapi``), and
the WebSocket consumer answers an ``error`` frame with the same ``code`` (``core.jsonapi.translate``
on this table), so a refusal reads the same through every door. First match wins: list a
subclass before its base.
"""

from __future__ import annotations

from chat.audit.export import AuditExportForbidden, AuditExportInvalid
from chat.pending_actions import (
    ActionExpired,
    ActionInvalidArguments,
    ActionNotFound,
    ActionPermissionDenied,
    ActionStateError,
)
from chat.services.conversations import ConversationHasPendingAction, ConversationTitleInvalid
from chat.services.realtime import ConversationBusy, NothingToCancel, SendFailed
from chat.services.snoozes import SnoozeInvalid
from chat.services.turns import ConversationNotFound, TurnInvalid
from chat.services.usage import BudgetExhausted
from core.jsonapi import ErrorTable

ERRORS: ErrorTable = {
    ConversationNotFound: (404, "not_found"),
    ConversationTitleInvalid: (400, "invalid"),
    ConversationHasPendingAction: (409, "invalid_state"),
    TurnInvalid: (400, "invalid"),
    ConversationBusy: (409, "conversation_busy"),
    NothingToCancel: (409, "nothing_to_cancel"),
    SendFailed: (503, "send_failed"),
    BudgetExhausted: (429, "budget_exhausted"),
    ActionNotFound: (404, "not_found"),
    ActionPermissionDenied: (403, "forbidden"),
    ActionExpired: (409, "expired"),  # before its base class: first match wins
    ActionStateError: (409, "invalid_state"),
    SnoozeInvalid: (400, "invalid_snooze"),
    ActionInvalidArguments: (400, "invalid_arguments"),
    AuditExportForbidden: (403, "forbidden"),
    AuditExportInvalid: (400, "bad_request"),
}
