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
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from actions.models import OutboundMessage
from actions.selectors import action_deliveries
from actions.tools.base import UnknownToolError, WriteTool
from actions.tools.registry import get_tool
from chat.argument_changes import argument_changes
from chat.events.payloads import placeholder_description
from chat.models import Conversation, Message, PendingAction
from chat.pending_actions import (
    NOBODY_ELSE_MAY_APPROVE,
    confirm_refusal,
    confirmed_by_requester,
    decide_refusal,
    is_overdue,
    refused_for_want_of_approvers,
    waited_hours,
)
from chat.rendering import citation_chips, render_markdown
from chat.selectors import action_approvers, action_edit, action_visible_to
from tenants.selectors import tenant_zone

# The words a card uses for each status, from the reader's side. Approved and executing say
# what the tool is doing (its ``progress_label``); executed messages say how many were sent.
STATUS_LABELS = {
    PendingAction.Status.PENDING: "Waiting for approval",
    PendingAction.Status.EDITED: "Edited — waiting for confirmation",
    PendingAction.Status.REJECTED: "Rejected",
    PendingAction.Status.EXECUTED: "Done",
    PendingAction.Status.FAILED: "Failed",
    PendingAction.Status.EXPIRED: "Expired",
    PendingAction.Status.WITHDRAWN: "Withdrawn",
}
DELIVERY_LABELS = {
    OutboundMessage.Status.QUEUED: "Queued",
    OutboundMessage.Status.SENDING: "Sending…",
    OutboundMessage.Status.SENT: "Sent",
    OutboundMessage.Status.FAILED: "Failed",
}
_UNSETTLED = frozenset({OutboundMessage.Status.QUEUED, OutboundMessage.Status.SENDING})


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


def document_lines(
    text: str, *, span: tuple[int, int] | None, title: str | None = None
) -> list[TextLine]:
    """A document's text as lines to lay out, each cut where it enters or leaves ``span`` (the
    cited passage), so the passage can be marked across headings and paragraphs. With
    ``title``, as the document view shows them (``document_blocks``)."""
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
    lines = _anchored(lines)
    return lines if title is None else document_blocks(lines, title=title)


def document_blocks(lines: list[TextLine], *, title: str) -> list[TextLine]:
    """``lines`` as the document view shows them: consecutive body lines (a paragraph the
    source wrapped by hand) joined into one with a space, and a first heading that only repeats
    ``title`` (the page's h1 already says it) left out. Blank lines and headings stay."""
    blocks: list[TextLine] = []
    for line in lines:
        if not blocks and line.level and _words(line) == " ".join(title.split()).casefold():
            continue
        previous = blocks[-1] if blocks else None
        if line.level == 0 and line.pieces and previous and not previous.level and previous.pieces:
            # The space is marked when the passage runs on across it, so one <mark> stays one.
            joint = previous.pieces[-1].cited and line.pieces[0].cited
            pieces = [*previous.pieces, TextPiece(" ", cited=joint), *line.pieces]
            blocks[-1] = TextLine(0, pieces)
        else:
            blocks.append(line)
    return blocks


def _words(line: TextLine) -> str:
    return " ".join("".join(piece.text for piece in line.pieces).split()).casefold()


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
    choices: list[str]


def message_view(message: Message) -> MessageView:
    # User text is markdown too (lists, code), and goes through the same sanitiser.
    return MessageView(
        uuid=str(message.uuid),
        role=message.role,
        status=message.status,
        html=mark_safe(render_markdown(message.content)),
        citations=[_with_link(chip) for chip in citation_chips(message.citations)],
        created_at=message.created_at,
        choices=list(message.choices),
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
    choices: list[tuple[str, str]] = field(default_factory=list)  # (value, words for people)
    # For a moment: the same moment in the tenant's time zone, as people read it.
    reads_as: str = ""


@dataclass(frozen=True)
class ChangeView:
    """One argument an approver changed: old → new text, or the names added and removed."""

    field: str
    label: str
    before: str | None
    after: str | None
    added: list[str]
    removed: list[str]


@dataclass(frozen=True)
class EditView:
    by: str
    version: int  # the edit is this version of the arguments (the proposal is 1)
    changes: list[ChangeView]


@dataclass(frozen=True)
class DeliveryView:
    """One recipient of a message action and what became of their message."""

    to: str  # the address
    name: str  # the contact's name, or "" for a bare address
    status: str  # queued | sending | sent | failed
    status_label: str
    error: str  # the provider's reason (failed), or the last transient error (queued again)


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
    # For the requester of a pending action: "Approvers group (2 people)".
    approvers: str = ""
    # For the requester of a pending action nobody else may approve (the group is empty, or
    # holds only them): said at once on their card, and tenant admins are shown it.
    no_approver: bool = False
    expires_at: Any = None  # while pending: when it stops being approvable
    edit: EditView | None = None  # the approver changed the arguments before approving
    # An approver's edit waiting for confirmation (docs/web.md, "Four eyes on the final text"):
    # may the viewer confirm or decline it, and if not, who it waits for, in words.
    can_confirm: bool = False
    confirmation_wait: str = ""
    deliveries: list[DeliveryView] = field(default_factory=list)  # message actions, once run
    # The inbox's one-line summary and filters.
    recipients: str = ""  # "to Kim Minji, Lee Jun +3 more"
    preview: str = ""  # the start of the text it sends or publishes: "Bus times — The bus…"
    recipient_count: int | None = None  # how many people it reaches, as its description says
    age: str = ""  # "12 min ago"
    mine: bool = False  # the viewer asked for it
    snoozed_until: datetime | None = None  # the viewer snoozed it until then (inbox pages only)
    search_text: str = ""  # lower-case words the inbox's search matches

    @property
    def partly_failed(self) -> bool:
        """Carried out, yet a recipient's message failed: the card must not look like a plain
        success (its colour says "look at this", its status line says who and why)."""
        return self.status == PendingAction.Status.EXECUTED and any(
            d.status == OutboundMessage.Status.FAILED for d in self.deliveries
        )


def _tool(tool_name: str) -> WriteTool[Any] | None:
    try:
        return get_tool(tool_name)
    except UnknownToolError:  # an action of a tool this code no longer ships
        return None


def _tool_label(tool_name: str) -> str:
    tool = _tool(tool_name)
    return tool.label if tool is not None else tool_name


def _schema(tool_name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    tool = _tool(tool_name)
    if tool is None:
        return {"properties": {name: {} for name in arguments}}
    return tool.args_schema.model_json_schema()


def _label(name: str, spec: dict[str, Any]) -> str:
    return str(spec.get("title") or name.replace("_", " ").capitalize())


def _fields(tool_name: str, arguments: dict[str, Any], zone: ZoneInfo) -> list[Field]:
    schema = _schema(tool_name, arguments)
    required = set(schema.get("required", []))
    fields = []
    for name, spec in schema.get("properties", {}).items():
        fields.append(_field(name, spec, arguments.get(name), required=name in required, zone=zone))
    return fields


def _field(name: str, spec: dict[str, Any], value: Any, *, required: bool, zone: ZoneInfo) -> Field:
    label = _label(name, spec)
    help_text = str(spec.get("description") or "")
    kind, shown, choices, reads_as = "json", json.dumps(value, ensure_ascii=False, indent=2), [], ""
    types = {option.get("type") for option in spec.get("anyOf", [])} or {spec.get("type")}
    if spec.get("enum"):
        # A tool name as a choice (a reminder's action) reads as the tool's label.
        kind, shown = "choice", str(value or "")
        choices = [(str(c), _tool_label(str(c))) for c in spec["enum"]]
    elif spec.get("type") == "array" and spec.get("items", {}).get("type") == "string":
        kind, shown = "lines", "\n".join(str(item) for item in value or [])
    elif types == {"string", "null"}:
        kind, shown = "nullable", "" if value is None else str(value)
    elif spec.get("type") == "string":
        text = "" if value is None else str(value)
        long_text = name in {"body", "text", "message"} or len(text) > 60 or "\n" in text
        kind, shown = ("textarea" if long_text else "text"), text
        if spec.get("format") == "date-time":
            reads_as = _local_time(text, zone)
    return Field(name, label, help_text, kind, shown, required, choices, reads_as)


def edit_view(action: PendingAction) -> EditView | None:
    """What the approver changed before approving, field by field, or None (no edit)."""
    edited = action_edit(action=action)
    if edited is None:
        return None
    before, after = edited.data.get("before") or {}, edited.data.get("after") or {}
    properties = _schema(action.tool, after).get("properties", {})
    changes = [
        ChangeView(
            field=change.field,
            label=_label(change.field, properties.get(change.field, {})),
            before=change.before,
            after=change.after,
            added=change.added,
            removed=change.removed,
        )
        for change in argument_changes(before, after)
    ]
    if not changes:  # an "edit" the tool normalised back to the proposal changed nothing
        return None
    return EditView(
        by=edited.actor.get_username() if edited.actor else "",
        version=int(edited.data.get("version") or action.version),
        changes=changes,
    )


def delivery_views(action: PendingAction) -> list[DeliveryView]:
    """Each recipient's message and its status; empty for actions that send nothing (and
    before an approved action ran: nothing is queued until then)."""
    if action.status not in PendingAction.APPROVED_SINCE:
        return []
    return [
        DeliveryView(
            to=message.to_address,
            name=message.contact.name if message.contact else "",
            status=message.status,
            status_label=DELIVERY_LABELS.get(
                OutboundMessage.Status(message.status), message.status
            ),
            error=message.error,
        )
        for message in action_deliveries(action_id=action.id)
    ]


def status_label(action: PendingAction, deliveries: list[DeliveryView]) -> str:
    """The card's status in words: "Approved — sending…", "Sent to 3 of 3", "Sent to 2 of 3,
    1 failed: <the provider's reason>"."""
    Status = PendingAction.Status
    tool = _tool(action.tool)
    progress = tool.progress_label if tool is not None else WriteTool.progress_label
    if action.status in (Status.APPROVED, Status.EXECUTING):
        return progress
    if action.status == Status.EXECUTED and deliveries:
        total = len(deliveries)
        sent = sum(1 for d in deliveries if d.status == OutboundMessage.Status.SENT)
        failed = [d for d in deliveries if d.status == OutboundMessage.Status.FAILED]
        if any(d.status in _UNSETTLED for d in deliveries):
            return f"{progress} ({sent} of {total} sent)"
        if not failed:
            return f"Sent to {sent} of {total}"
        if len(failed) == 1:
            return f"Sent to {sent} of {total}, 1 failed: {failed[0].error}"
        return f"Sent to {sent} of {total}, {len(failed)} failed"
    return STATUS_LABELS.get(Status(action.status), action.status)


def _outcome(action: PendingAction, deliveries: list[DeliveryView]) -> str:
    if action.status == PendingAction.Status.FAILED:
        return action.error or str(action.result.get("error", "")) or "the action failed"
    if action.status == PendingAction.Status.EXECUTED and deliveries:
        # The summary says "queued for 3": the status and the list say more. Only who was
        # left out is news.
        skipped = action.result.get("skipped") or []
        names = ", ".join(f"{s.get('name')} ({s.get('reason')})" for s in skipped)
        return f"Skipped {len(skipped)}: {names}" if skipped else ""
    if action.status == PendingAction.Status.EXECUTED:
        return str(action.result.get("summary") or action.result.get("detail") or "")
    return ""


def _local_time(text: str, zone: ZoneInfo) -> str:
    """``2026-11-24T00:00:00Z`` → "Tue 24 Nov 2026, 09:00 (Asia/Seoul)"; "" if not a moment."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return ""
    if moment.tzinfo is None:
        return ""
    return f"{moment.astimezone(zone):%a %d %b %Y, %H:%M} ({zone.key})"


def _recipients(tool_name: str, arguments: dict[str, Any], zone: ZoneInfo) -> str:
    """Who an action reaches, in a few words: "to Kim Minji, Lee Jun +3 more", "for Parents",
    and for a reminder, its own action's recipients and when."""
    to = arguments.get("to")
    if isinstance(to, list) and to:
        names = [str(name) for name in to]
        more = f" +{len(names) - 2} more" if len(names) > 2 else ""
        return f"to {', '.join(names[:2])}{more}"
    if "audience" in arguments:
        return f"for {arguments['audience'] or 'everyone'}"
    inner = arguments.get("arguments")
    if isinstance(inner, dict) and isinstance(arguments.get("tool"), str):
        when = _local_time(str(arguments.get("due_at", "")), zone)
        words = [_tool_label(arguments["tool"]), _recipients(arguments["tool"], inner, zone)]
        return " ".join(word for word in [*words, f"on {when}" if when else ""] if word)
    return ""


PREVIEW_CHARS = 90
# The count a message or announcement tool put in its description when it was proposed ("SMS to
# 3 recipients (…)", "… for group 'Parents' (12 contacts)"): the number the approver approves.
_COUNT = re.compile(r"\b(\d+) (?:recipient|contact)s?\b")


def _preview(arguments: dict[str, Any]) -> str:
    """The start of what an action sends or publishes, on one line: its subject or title, then
    its body; a reminder's, that of the action it will run."""
    inner = arguments.get("arguments")
    if isinstance(inner, dict) and isinstance(arguments.get("tool"), str):
        return _preview(inner)
    parts = [arguments.get("subject") or arguments.get("title"), arguments.get("body")]
    text = " — ".join(" ".join(part.split()) for part in parts if isinstance(part, str) and part)
    if len(text) <= PREVIEW_CHARS:
        return text
    return text[:PREVIEW_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:—") + "…"


def _recipient_count(description: str) -> int | None:
    found = _COUNT.search(description)
    return int(found.group(1)) if found else None


def _age(moment: datetime, now: datetime) -> str:
    """How long ago, the way people say it in a list: "just now", "12 min ago", "3 h ago"."""
    minutes = max(0, int((now - moment).total_seconds() // 60))
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} min ago"
    if minutes < 48 * 60:
        return f"{minutes // 60} h ago"
    return f"{minutes // (24 * 60)} days ago"


def _search_text(action: PendingAction, label: str, arguments: dict[str, Any]) -> str:
    """What the inbox's search looks in: the description, who asked, and every argument's
    words (recipients, subject, body)."""
    words = [label, action.description, action.requested_by.get_username()]
    words.append(json.dumps(arguments, ensure_ascii=False))
    return " ".join(words).lower()


def placeholder_card(action: PendingAction, *, viewer: User) -> ActionCard:
    """The card of an action ``viewer`` may not read (``chat.selectors.action_visible_to``): its
    tool and status, none of its description, arguments, note, edit, outcome or deliveries."""
    label = _tool_label(action.tool)
    return ActionCard(
        id=str(action.id),
        conversation=str(action.conversation.uuid),
        tool=action.tool,
        tool_label=label,
        description=placeholder_description(action.tool),
        status=action.status,
        status_label=STATUS_LABELS.get(PendingAction.Status(action.status), action.status),
        requested_by=action.requested_by.get_username(),
        created_at=action.created_at,
        fields=[],
        can_decide=False,
        can_withdraw=False,
        refusal="only its requester and approvers read this request",
        outcome="",
        note="",
        decided_by="",
        age=_age(action.created_at, timezone.now()),
        search_text=label.lower(),
    )


def action_card(action: PendingAction, *, viewer: User, zone: ZoneInfo | None = None) -> ActionCard:
    """``zone``: the tenant's time zone, when the caller already has it (a list of cards). A
    viewer who may not read the action gets its ``placeholder_card``."""
    if not action_visible_to(user=viewer, action=action):
        return placeholder_card(action, viewer=viewer)
    refusal = decide_refusal(action=action, user=viewer)
    pending = action.is_decidable
    undecided = action.status in PendingAction.UNDECIDED
    can_confirm, confirmation_wait = _confirmation(action, viewer)
    deliveries = delivery_views(action)
    outcome = _outcome(action, deliveries)
    if refused_for_want_of_approvers(action):
        outcome = NOBODY_ELSE_MAY_APPROVE
    if action.status == PendingAction.Status.EXPIRED or is_overdue(action):
        outcome = (
            f"Expired after {waited_hours(action)} h without a decision; it can no longer be "
            "approved. Nothing was sent or changed."
        )
    mine = action.requested_by_id == viewer.pk
    approvers = action_approvers(action=action) if pending and mine else None
    zone = zone or tenant_zone()
    label = _tool_label(action.tool)
    return ActionCard(
        id=str(action.id),
        conversation=str(action.conversation.uuid),
        tool=action.tool,
        tool_label=label,
        description=action.description,
        status=action.status,
        status_label=status_label(action, deliveries),
        requested_by=action.requested_by.get_username(),
        created_at=action.created_at,
        fields=_fields(action.tool, action.arguments, zone),
        can_decide=pending and refusal is None and not is_overdue(action),
        can_withdraw=undecided and mine,
        refusal=refusal,
        outcome=outcome,
        note=action.note,
        decided_by=action.decided_by.get_username() if action.decided_by else "",
        approvers=str(approvers) if approvers else "",
        no_approver=approvers is not None and approvers.people == 0,
        expires_at=action.expires_at if undecided else None,
        edit=edit_view(action),
        can_confirm=can_confirm,
        confirmation_wait=confirmation_wait,
        deliveries=deliveries,
        recipients=_recipients(action.tool, action.arguments, zone),
        preview=_preview(action.arguments),
        recipient_count=_recipient_count(action.description),
        age=_age(action.created_at, timezone.now()),
        mine=mine,
        search_text=_search_text(action, label, action.arguments),
    )


def _confirmation(action: PendingAction, viewer: User) -> tuple[bool, str]:
    """Whether ``viewer`` may confirm or decline the approver's edit of ``action``, and else
    what the edit waits for ("" when it waits for nothing)."""
    if not action.awaits_confirmation or is_overdue(action):
        return False, ""
    if confirm_refusal(action=action, user=viewer) is None:
        return True, ""
    who = (
        f"the requester ({action.requested_by.get_username()})"
        if confirmed_by_requester(action)
        else "another approver"
    )
    whose = "your edit" if viewer.pk == action.edited_by_id else "this edit"
    return False, f"Waiting for {who} to confirm {whose}."
