"""The fixed replies that end a turn whose action was not run: rejected, withdrawn, expired;
and those that report an approved action's outcome when the conversation has moved on since it
was proposed (chat/services/turns.py, ``turn_resume``).

Deterministic for every model (the model is not asked), and built from the database row, so a
redelivered resume writes the same words. They name the request the way a person would
("send an SMS to Emma Wilson"), not by tool name: each tool declares the phrase in its words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the graph package imports no models at import time
    from chat.models import PendingAction

NOTHING_DONE = "Nothing was sent or changed."
WITHDRAWN = f"Okay — I withdrew that request. {NOTHING_DONE}"
_MAX_NAMED = 3


class _Blank(dict[str, Any]):
    """Arguments for a phrase: an argument the call lacks reads as empty."""

    def __missing__(self, key: str) -> str:
        return ""


def _names(entries: list[Any]) -> str:
    names = [str(entry) for entry in entries if str(entry).strip()]
    if len(names) > _MAX_NAMED:
        return f"{', '.join(names[:_MAX_NAMED])} and {len(names) - _MAX_NAMED} more"
    if len(names) > 1:
        return f"{', '.join(names[:-1])} and {names[-1]}"
    return names[0] if names else ""


def request_phrase(action: PendingAction) -> str:
    """ "send an SMS to Emma Wilson", "publish the announcement 'Bus late'", …"""
    from actions.tools.registry import write_tools

    arguments = action.arguments if isinstance(action.arguments, dict) else {}
    words = next((t.words for t in write_tools() if t.name == action.tool), None)
    # The tool's own phrase (``ToolWords.request``), which may name an argument.
    what = words.request.format_map(_Blank(arguments)) if words else f"run {action.tool}"
    recipients = arguments.get("to")
    if isinstance(recipients, list) and recipients:
        return f"{what} to {_names(recipients)}"
    return what


def not_run_reply(action: PendingAction) -> str:
    """The reply for an action that ended ``rejected``, ``withdrawn`` or ``expired``."""
    if action.status == "expired":
        from chat.pending_actions import waited_hours

        return (
            f"The request to {request_phrase(action)} expired after {waited_hours(action)} h "
            f"without a decision. {NOTHING_DONE}"
        )
    if action.status == "rejected":
        from chat.pending_actions import NOBODY_ELSE_MAY_APPROVE, refused_for_want_of_approvers

        if refused_for_want_of_approvers(action):
            return f"{NOBODY_ELSE_MAY_APPROVE} {NOTHING_DONE}"
        who = action.decided_by.get_username() if action.decided_by else "an approver"
        note = action.note.strip()
        because = f": “{note}”" if note else ""
        if action.edited_by_id is not None:  # a declined counter-proposal (docs/web.md)
            return (
                f"{action.edited_by.get_username() if action.edited_by else 'An approver'} "
                f"edited the request, and {who} declined the edit{because}. {NOTHING_DONE}"
            )
        return (
            f"The request to {request_phrase(action)} was rejected by {who}{because}. "
            f"{NOTHING_DONE}"
        )
    return WITHDRAWN


def _approver(action: PendingAction) -> str:
    return action.decided_by.get_username() if action.decided_by else "an approver"


def ran_reply(action: PendingAction) -> str:
    """The reply for an approved action that ran: ``executed`` with its tool's summary, or
    ``failed`` with the reason; anything else (still ``executing``) says it cannot be told."""
    approved = f"The request to {request_phrase(action)} was approved by {_approver(action)}"
    if action.status == "executed":
        summary = str((action.result or {}).get("summary", "")).strip() or "done"
        return f"{approved} and carried out: {summary}."
    if action.status == "failed":
        return f"{approved} but failed: {action.error.strip() or 'no reason was recorded'}."
    return (
        f"{approved}, but it was interrupted while running; check its outcome in the "
        "approvals history before asking again."
    )


def outcome_reply(action: PendingAction) -> str:
    """The reply for any decided action: not run, or run (``ran_reply``)."""
    if action.status in ("rejected", "withdrawn", "expired"):
        return not_run_reply(action)
    return ran_reply(action)
