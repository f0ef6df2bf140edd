"""What the web pages show, built from models: messages with safe HTML, action cards whose
form comes from the tool's argument schema. Templates only lay these out."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from itertools import pairwise
from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from actions.tools.base import UnknownToolError
from actions.tools.registry import get_tool
from chat.models import Conversation, Message, PendingAction
from chat.rendering import citation_chips, render_markdown
from chat.services.actions import decide_refusal

# The words a card uses for each status, from the reader's side.
STATUS_LABELS = {
    PendingAction.Status.PENDING: "Waiting for approval",
    PendingAction.Status.APPROVED: "Approved, running…",
    PendingAction.Status.REJECTED: "Rejected",
    PendingAction.Status.EXECUTING: "Running…",
    PendingAction.Status.EXECUTED: "Executed",
    PendingAction.Status.FAILED: "Failed",
    PendingAction.Status.EXPIRED: "Expired",
    PendingAction.Status.WITHDRAWN: "Withdrawn",
}


@dataclass(frozen=True)
class ConversationGroup:
    label: str
    conversations: list[Conversation]


# The sidebar's date groups, by how many calendar days ago (in the tenant's time zone) a
# conversation was last active: at most this many days ago → this label.
DATE_GROUPS = [(0, "Today"), (1, "Yesterday"), (7, "Previous 7 days")]
OLDER = "Older"


def conversation_groups(
    conversations: Iterable[Conversation], *, now: datetime, zone: tzinfo
) -> list[ConversationGroup]:
    """``conversations`` (most recent first) under date headings; empty groups left out."""
    today = now.astimezone(zone).date()
    groups: dict[str, list[Conversation]] = {}
    for conversation in conversations:
        days = (today - conversation.updated_at.astimezone(zone).date()).days
        label = next((name for most, name in DATE_GROUPS if days <= most), OLDER)
        groups.setdefault(label, []).append(conversation)
    order = [name for _, name in DATE_GROUPS] + [OLDER]
    return [ConversationGroup(name, groups[name]) for name in order if name in groups]


@dataclass(frozen=True)
class TextPiece:
    text: str
    cited: bool
    # The first cited piece carries the passage's anchor (``#chunk-<id>`` scrolls to it).
    anchor: bool = False


@dataclass(frozen=True)
class TextLine:
    """One line of a document: ``level`` 1 to 6 for a markdown heading (its ``#`` marks dropped),
    0 for body text, and an empty ``pieces`` for a blank line."""

    level: int
    pieces: list[TextPiece]

    @property
    def aria_level(self) -> int:
        return min(self.level + 1, 6)  # the page's own h1 is the document's title


_HEADING = re.compile(r"(#{1,6})[ \t]+")


def document_lines(text: str, *, span: tuple[int, int] | None) -> list[TextLine]:
    """A document's text as lines to lay out, each cut where it enters or leaves ``span`` (the
    cited passage), so the passage can be marked across headings and paragraphs."""
    lines = []
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        heading = _HEADING.match(line)
        body = start + (heading.end() if heading else 0)
        cuts = sorted({body, end, *(min(max(edge, body), end) for edge in span or ())})
        pieces = [
            TextPiece(text[a:b], cited=span is not None and span[0] <= a and b <= span[1])
            for a, b in pairwise(cuts)
            if a < b
        ]
        lines.append(TextLine(len(heading.group(1)) if heading else 0, pieces))
        start = end + 1
    return _anchored(lines)


def _anchored(lines: list[TextLine]) -> list[TextLine]:
    for number, line in enumerate(lines):
        for index, piece in enumerate(line.pieces):
            if piece.cited:
                pieces = [*line.pieces]
                pieces[index] = TextPiece(piece.text, cited=True, anchor=True)
                lines[number] = TextLine(line.level, pieces)
                return lines
    return lines


@dataclass(frozen=True)
class MessageView:
    uuid: str
    role: str
    status: str
    html: SafeString
    citations: list[dict[str, Any]]
    created_at: Any


def message_view(message: Message) -> MessageView:
    # User text is markdown too (lists, code), and goes through the same sanitiser.
    return MessageView(
        uuid=str(message.uuid),
        role=message.role,
        status=message.status,
        html=mark_safe(render_markdown(message.content)),
        citations=[_with_link(chip) for chip in citation_chips(message.citations)],
        created_at=message.created_at,
    )


def _with_link(chip: dict[str, Any]) -> dict[str, Any]:
    """A chip with the address of its document, opened at the cited passage when known."""
    if chip["document"] is None:
        return {**chip, "url": ""}
    url = reverse("document", args=[chip["document"]])
    if chip["chunk"] is not None:
        url += f"?chunk={chip['chunk']}#chunk-{chip['chunk']}"
    return {**chip, "url": url}


@dataclass(frozen=True)
class Field:
    """One argument as a form control. ``kind`` tells the page how to read it back:
    text, textarea, lines (a list of strings, one per line), choice, nullable, json."""

    name: str
    label: str
    help: str
    kind: str
    value: str
    required: bool
    choices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ActionCard:
    id: str
    conversation: str
    tool: str
    tool_label: str
    description: str
    status: str
    status_label: str
    requested_by: str
    created_at: Any
    fields: list[Field]
    can_decide: bool
    can_withdraw: bool  # the viewer asked for it and nobody has decided yet
    refusal: str | None
    outcome: str
    note: str
    decided_by: str


def _tool_label(tool_name: str) -> str:
    try:
        return get_tool(tool_name).label
    except UnknownToolError:  # an action of a tool this code no longer ships
        return tool_name


def _fields(tool_name: str, arguments: dict[str, Any]) -> list[Field]:
    try:
        schema = get_tool(tool_name).args_schema.model_json_schema()
    except UnknownToolError:
        schema = {"properties": {name: {} for name in arguments}}
    required = set(schema.get("required", []))
    fields = []
    for name, spec in schema.get("properties", {}).items():
        fields.append(_field(name, spec, arguments.get(name), required=name in required))
    return fields


def _field(name: str, spec: dict[str, Any], value: Any, *, required: bool) -> Field:
    label = str(spec.get("title") or name.replace("_", " ").capitalize())
    help_text = str(spec.get("description") or "")
    kind, shown, choices = "json", json.dumps(value, ensure_ascii=False, indent=2), []
    types = {option.get("type") for option in spec.get("anyOf", [])} or {spec.get("type")}
    if spec.get("enum"):
        kind, shown, choices = "choice", str(value or ""), [str(c) for c in spec["enum"]]
    elif spec.get("type") == "array" and spec.get("items", {}).get("type") == "string":
        kind, shown = "lines", "\n".join(str(item) for item in value or [])
    elif types == {"string", "null"}:
        kind, shown = "nullable", "" if value is None else str(value)
    elif spec.get("type") == "string":
        text = "" if value is None else str(value)
        long_text = name in {"body", "text", "message"} or len(text) > 60 or "\n" in text
        kind, shown = ("textarea" if long_text else "text"), text
    return Field(name, label, help_text, kind, shown, required, choices)


def action_card(action: PendingAction, *, viewer: User) -> ActionCard:
    refusal = decide_refusal(action=action, user=viewer)
    pending = action.is_decidable
    outcome = ""
    if action.status == PendingAction.Status.FAILED:
        outcome = action.error or str(action.result.get("error", "")) or "the action failed"
    elif action.status == PendingAction.Status.EXECUTED:
        outcome = str(action.result.get("summary") or action.result.get("detail") or "")
    return ActionCard(
        id=str(action.id),
        conversation=str(action.conversation.uuid),
        tool=action.tool,
        tool_label=_tool_label(action.tool),
        description=action.description,
        status=action.status,
        status_label=STATUS_LABELS.get(PendingAction.Status(action.status), action.status),
        requested_by=action.requested_by.get_username(),
        created_at=action.created_at,
        fields=_fields(action.tool, action.arguments),
        can_decide=pending and refusal is None,
        can_withdraw=pending and action.requested_by_id == viewer.pk,
        refusal=refusal,
        outcome=outcome,
        note=action.note,
        decided_by=action.decided_by.get_username() if action.decided_by else "",
    )
