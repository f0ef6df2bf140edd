"""Recognise clear action requests in plain text (pure; used by the offline model).

Each pattern keeps the person's own words for the recipient and the text: the approval card must
show exactly what was asked, never a paraphrase.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class Intent:
    tool: str
    arguments: dict[str, Any]


_FLAGS = re.IGNORECASE | re.DOTALL
_SAYING = r"(?:saying|that says|with the text|with text|:)"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "send_sms",
        re.compile(
            rf"^(?:please\s+)?(?:send|text)\s+(?:an?\s+)?(?:sms|text(?:\s+message)?)\s+to\s+"
            rf"(?P<to>.+?)\s*{_SAYING}\s*(?P<text>.+)$",
            _FLAGS,
        ),
    ),
    (
        "send_sms",
        re.compile(rf"^(?:please\s+)?text\s+(?P<to>.+?)\s+{_SAYING}\s*(?P<text>.+)$", _FLAGS),
    ),
    (
        "send_telegram",
        re.compile(
            rf"^(?:please\s+)?send\s+(?:an?\s+)?telegram(?:\s+message)?\s+to\s+(?P<to>.+?)\s*"
            rf"{_SAYING}\s*(?P<text>.+)$",
            _FLAGS,
        ),
    ),
    (
        "send_email",
        re.compile(
            r"^(?:please\s+)?(?:send\s+an?\s+)?e-?mail(?:\s+to)?\s+(?P<to>.+?)\s+(?:with\s+)?subject\s+"
            r"(?P<subject>.+?)\s+(?:saying|with the text|with text|body)\s*:?\s*(?P<text>.+)$",
            _FLAGS,
        ),
    ),
    (
        "create_announcement",
        re.compile(
            r"^(?:please\s+)?(?:announce|post\s+an?\s+announcement|publish\s+an?\s+announcement)\s*"
            r"(?P<title>[^:\n]+?)\s*:\s*(?P<body>.+)$",
            _FLAGS,
        ),
    ),
    # Korean: "<그룹>에게 <내용> 문자 보내줘", "<제목> 공지 올려줘: <내용>"
    (
        "send_sms",
        re.compile(
            r"^(?P<to>.+?)(?:에게|한테)\s+(?P<text>.+?)\s*(?:라고\s*)?문자(?:를)?\s*보내\s*(?:줘|주세요|줄래|요)?[.!?]?$",
            _FLAGS,
        ),
    ),
    (
        "create_announcement",
        re.compile(
            r"^(?P<title>.+?)\s*공지(?:를)?\s*(?:올려|게시해|등록해)\s*(?:줘|주세요)?\s*[:：]\s*(?P<body>.+)$",  # noqa: RUF001
            _FLAGS,
        ),
    ),
]
_REMIND = re.compile(
    r"^(?:please\s+)?remind\s+(?P<to>.+?)\s+(?P<when>(?:on|at|in|tomorrow)\b.+?)\s+to\s+(?P<text>.+)$",
    _FLAGS,
)


def _clean(value: str) -> str:
    return value.strip().strip("\"'“”‘’").strip()  # noqa: RUF001


def parse_when(phrase: str, *, now: datetime) -> datetime | None:
    """ "at 2026-12-01 09:00", "on 2026-12-01 at 9:30", "tomorrow at 9am", "in 2 hours"."""
    phrase = phrase.strip().lower()
    relative = re.fullmatch(r"in\s+(\d+)\s+(minute|hour|day)s?", phrase)
    if relative:
        amount, unit = int(relative.group(1)), relative.group(2)
        return now + timedelta(**{f"{unit}s": amount})
    match = re.fullmatch(
        r"(?:(?P<tomorrow>tomorrow)|(?:on\s+)?(?P<date>\d{4}-\d{2}-\d{2}))?\s*(?:at\s+)?"
        r"(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>am|pm)?",
        phrase.removeprefix("at ").strip(),
    )
    if not match or not (match.group("tomorrow") or match.group("date") or phrase.startswith("at")):
        return None
    hour, minute = int(match.group("h")), int(match.group("m") or 0)
    if match.group("ampm") == "pm" and hour < 12:
        hour += 12
    if match.group("ampm") == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    if match.group("date"):
        day = datetime.fromisoformat(match.group("date")).date()
    elif match.group("tomorrow"):
        day = (now + timedelta(days=1)).date()
    else:
        day = now.date()
    return now.replace(
        year=day.year,
        month=day.month,
        day=day.day,
        hour=hour,
        minute=minute,
        second=0,
        microsecond=0,
    )


def _recipients(raw: str) -> list[str]:
    """ "Alice, Bob and +15550100" → ["Alice", "Bob", "+15550100"] (group names stay whole)."""
    parts = re.split(r"\s*,\s*|\s+and\s+|\s*및\s*", raw)
    return [_clean(part) for part in parts if _clean(part)]


def _arguments(tool: str, found: dict[str, str]) -> dict[str, Any]:
    """Map the words found onto the tool's argument schema (actions/tools/*)."""
    if tool == "create_announcement":
        return {"title": _clean(found["title"]), "body": _clean(found["body"])}
    arguments: dict[str, Any] = {"to": _recipients(found["to"]), "body": _clean(found["text"])}
    if tool == "send_email":
        arguments["subject"] = _clean(found["subject"])
    return arguments


def parse_intent(text: str, *, now: datetime | None = None) -> Intent | None:
    """The write-tool call a clear request asks for, or None (then: search the knowledge base)."""
    text = text.strip()
    for tool, pattern in _PATTERNS:
        match = pattern.match(text)
        if match:
            return Intent(tool, _arguments(tool, match.groupdict()))
    remind = _REMIND.match(text)
    if remind:
        from django.utils import timezone

        when = parse_when(remind.group("when"), now=now or timezone.localtime())
        if when is not None:
            message = _arguments(
                "send_sms", {"to": remind.group("to"), "text": remind.group("text")}
            )
            return Intent(
                "schedule_reminder",
                {
                    "due_at": when.isoformat(),
                    "tool": "send_sms",
                    "arguments": message,
                },
            )
    return None
