"""The words of an approval digest. Plain Python, no Django: easy to read and to test.

A digest says no more than the approval card does: the tool's label, the card's one-line
description, who asked, and a link to the card. The e-mail also carries the text itself as the
card's form shows it (recipients, subject, body: what an approval sends) with the signed
approve / reject / open links (notifications/decision_links.py). Never the raw arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

# An SMS is paid per 160-character segment: the compact form names the count, the first
# request and the inbox link, and stops there.
SMS_DESCRIPTION_CHARS = 80


@dataclass(frozen=True)
class WaitingItem:
    """One waiting action as the card shows it."""

    tool_label: str
    description: str
    requested_by: str
    link: str
    # The e-mail's: the card's fields as (label, text), and the signed links ("" elsewhere).
    fields: tuple[tuple[str, str], ...] = ()
    approve_link: str = ""
    reject_link: str = ""
    reply_code: str = ""  # SMS and Telegram: "reply YES 4821 or NO 4821" decides it
    # Why a tenant admin, who may not decide it, is told (then no decision link is given).
    note: str = ""


NOBODY_ELSE_CAN_APPROVE = (
    "Nobody else can approve this: add an approver or change the tool's policy, "
    "or it expires unanswered."
)


def reply_hint(code: str) -> str:
    return f"Reply YES {code} to approve or NO {code} to reject."


def digest_subject(*, tenant_name: str, count: int) -> str:
    waits = "1 request waits" if count == 1 else f"{count} requests wait"
    return f"{tenant_name}: {waits} for your approval"


def digest_body(
    *, tenant_name: str, items: list[WaitingItem], inbox_link: str, settings_link: str
) -> str:
    """The e-mail and Telegram text: every waiting request with its own link."""
    lines = [digest_subject(tenant_name=tenant_name, count=len(items)) + ".", ""]
    for item in items:
        lines += [
            f"{item.tool_label} — asked by {item.requested_by}",
            item.description,
            *([item.note] if item.note else []),
            *([reply_hint(item.reply_code)] if item.reply_code else []),
            f"Open: {item.link}",
            "",
        ]
    lines += [
        f"Everything that waits: {inbox_link}",
        "",
        "You get this because you may approve these requests. "
        f"Change how you are told: {settings_link}",
    ]
    return "\n".join(lines)


def digest_email(
    *, tenant_name: str, items: list[WaitingItem], inbox_link: str, settings_link: str
) -> str:
    """The e-mail: every waiting request with its full text and its three signed links. Each
    link opens a page that shows the text again and decides only when its button is pressed."""
    lines = [digest_subject(tenant_name=tenant_name, count=len(items)) + ".", ""]
    for item in items:
        lines += [f"{item.tool_label} — asked by {item.requested_by}", item.description]
        lines += [item.note] if item.note else []
        for label, text in item.fields:
            lines += [f"  {label}: " + text.replace("\n", "\n    ")]
        if item.approve_link:
            lines += [f"Approve: {item.approve_link}", f"Reject: {item.reject_link}"]
        lines += [f"Open: {item.link}", ""]
    lines += [
        "Each link asks you to confirm on a page of its own, works once, and only for you. "
        "It stops working when the request expires or is edited.",
        f"Everything that waits: {inbox_link}",
        "",
        "You get this because you may approve these requests. "
        f"Change how you are told: {settings_link}",
    ]
    return "\n".join(lines)


def digest_sms(*, tenant_name: str, items: list[WaitingItem], inbox_link: str) -> str:
    """The SMS text: short, one link (the card's when there is one request, else the inbox)."""
    first = items[0]
    description = first.description
    if len(description) > SMS_DESCRIPTION_CHARS:
        description = description[: SMS_DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] + "…"
    head = digest_subject(tenant_name=tenant_name, count=len(items))
    more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
    link = first.link if len(items) == 1 else inbox_link
    # The code decides the request the text shows (the first); the others wait in the inbox.
    hint = f" {reply_hint(first.reply_code)}" if first.reply_code else ""
    hint += f" {first.note}" if first.note else ""
    return f"{head}: {first.tool_label} by {first.requested_by}: {description}{more}{hint} {link}"
