"""Judging what a case produced against what it expects (no Django: unit-tested alone).

Every check has a ``kind`` so reports can split "did it pick the right tool or route" from "did
it fill in the right recipients and text": ``route`` (tool, decline, route, no error),
``arguments`` (one per expected argument), ``reply`` and ``citation``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from chat.evals.cases import Due, Expect

Kind = Literal["route", "arguments", "reply", "citation"]

# How replies that decline, or that say a tool is switched off, usually read (en, ko).
DECLINE_MARKERS = (
    "does not cover",
    "doesn't cover",
    "not covered",
    "don't know",
    "do not know",
    "can't answer",
    "cannot answer",
    "couldn't find",
    "could not find",
    "no information",
    "not able to",
    "다루지 않",
    "찾을 수 없",
    "모르",
    "답변드릴 수 없",
    "답할 수 없",
    "정보가 없",
)
DISABLED_MARKERS = (
    "turned off",
    "switched off",
    "disabled",
    "not enabled",
    "꺼져",
    "비활성",
    "사용할 수 없",
    "사용 중지",
)
_RECIPIENT_KEYS = ("to", "audience")
# The ASCII and the full-width question mark (Korean and CJK replies use either).
QUESTION_MARKS = ("?", "\uff1f")


@dataclass(frozen=True)
class Proposal:
    """The write action the turn proposed; recipients already resolved to names."""

    tool: str
    arguments: dict[str, Any]
    status: str
    # Argument path ("to", "arguments.to", "audience") → canonical contact/group names.
    recipients: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Observation:
    reply: str
    # [{"title": ..., "external_id": ...}] of the passages the reply cites.
    citations: list[dict[str, str]]
    proposal: Proposal | None
    stages: list[str]
    action_statuses: list[str]
    error: str
    now: datetime  # aware, in the tenant's time zone: what relative due times mean


@dataclass(frozen=True)
class Check:
    check: str
    kind: Kind
    passed: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def normalised(text: str) -> str:
    """Casefolded letters and digits only: spacing, punctuation and quotes never matter."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(char for char in folded if char.isalnum())


def contains(haystack: str, needle: str) -> bool:
    return normalised(needle) in normalised(haystack)


def judge(expect: Expect, seen: Observation) -> list[Check]:
    """Every check the expectation implies, in a stable order."""
    checks = [_no_error(seen), *_route_checks(expect, seen)]
    if expect.tool is not None and seen.proposal is not None and seen.proposal.tool == expect.tool:
        checks += _argument_checks(expect.arguments or {}, seen.proposal)
        if expect.due is not None:
            checks.append(_due_check(expect.due, seen))
    elif expect.arguments or expect.due:
        checks.append(Check("arguments", "arguments", False, "no matching action to compare"))
    checks += _reply_checks(expect, seen)
    checks += _citation_checks(expect, seen)
    return checks


def asked_instead(
    expect: Expect, *, reply: str, proposed: bool, cited: bool, error: str = ""
) -> bool:
    """Whether a case that wanted a write action got a question back instead of an action.

    Issue 27's "right or asks" measure counts this with the cases that passed: nothing was
    proposed, nothing quoted, nothing broke, and the reply asks. A wrong action costs the
    approver an edit or a reject (or, approved by mistake, a wrong message); a question costs the
    user one more line. It does not judge whether the question was the best one to ask; a
    proposal of the wrong tool or to the wrong people is never counted.
    """
    wanted_action = expect.tool is not None or expect.route == "clarify"
    asks = any(mark in reply for mark in QUESTION_MARKS)
    return wanted_action and asks and not proposed and not cited and not error


def _no_error(seen: Observation) -> Check:
    return Check("no error", "route", not seen.error, seen.error or "ok")


def _route_checks(expect: Expect, seen: Observation) -> list[Check]:
    checks = [_tool_check(expect, seen)]
    if expect.decline:
        declined = _has_marker(seen.reply, DECLINE_MARKERS) and not seen.citations
        checks.append(Check("decline", "route", declined, _short(seen.reply)))
    if expect.route is not None:
        checks.append(_route_check(expect.route, seen))
    return checks


def _tool_check(expect: Expect, seen: Observation) -> Check:
    proposed = seen.proposal.tool if seen.proposal else None
    if expect.tool is None:
        return Check("no action", "route", proposed is None, f"proposed {proposed or 'nothing'}")
    # What it said instead is what one needs to see to tell a fair refusal from a miss.
    detail = (
        f"proposed {proposed}" if proposed else f"proposed nothing, replied {seen.reply[:160]!r}"
    )
    return Check("tool", "route", proposed == expect.tool, detail)


def _route_check(route: str, seen: Observation) -> Check:
    no_action = seen.proposal is None or route == "withdrawn"
    passed = {
        "help": no_action and not {"searching", "querying"} & set(seen.stages) and bool(seen.reply),
        "clarify": no_action and any(mark in seen.reply for mark in QUESTION_MARKS),
        "disabled": no_action and _has_marker(seen.reply, DISABLED_MARKERS),
        "withdrawn": "withdrawn" in seen.action_statuses,
        # Harmful and impossible requests: nothing proposed, nothing quoted from the knowledge
        # base as if it answered them, and some words back (what is refused, or what it can do).
        "refused": no_action and not seen.citations and bool(seen.reply),
        "unsupported": no_action and not seen.citations and bool(seen.reply),
    }[route]
    detail = f"actions {seen.action_statuses}" if route == "withdrawn" else _short(seen.reply)
    return Check(f"route {route}", "route", passed, detail)


def _argument_checks(expected: dict[str, Any], proposal: Proposal, prefix: str = "") -> list[Check]:
    checks: list[Check] = []
    for key, want in expected.items():
        path = f"{prefix}{key}"
        got = _lookup(proposal.arguments, path)
        if isinstance(want, dict):
            checks += _argument_checks(want, proposal, prefix=f"{path}.")
        elif key in _RECIPIENT_KEYS:
            checks.append(_recipients_check(path, want, proposal.recipients.get(path, [])))
        elif isinstance(want, str):
            ok = isinstance(got, str) and contains(got, want)
            checks.append(Check(path, "arguments", ok, f"got {got!r}"))
        else:
            checks.append(Check(path, "arguments", got == want, f"got {got!r}"))
    return checks


def _recipients_check(path: str, want: Any, resolved: list[str]) -> Check:
    wanted = [want] if isinstance(want, str) else list(want or [])
    ok = sorted(map(normalised, wanted)) == sorted(map(normalised, resolved))
    return Check(path, "arguments", ok, f"got {resolved}")


def _due_check(due: Due, seen: Observation) -> Check:
    raw = _lookup(seen.proposal.arguments if seen.proposal else {}, "due_at")
    try:
        local = datetime.fromisoformat(str(raw)).astimezone(seen.now.tzinfo)
    except ValueError:
        return Check("due_at", "arguments", False, f"got {raw!r}")
    day = (seen.now + timedelta(days=due.in_days)).date()
    ok = local.date() == day and local.strftime("%H:%M") == due.at
    return Check("due_at", "arguments", ok, f"got {local.isoformat()}")


def _reply_checks(expect: Expect, seen: Observation) -> list[Check]:
    checks = [
        Check(f"reply contains {text!r}", "reply", contains(seen.reply, text), _short(seen.reply))
        for text in expect.reply_contains
    ]
    if expect.reply_contains_any:
        ok = any(contains(seen.reply, text) for text in expect.reply_contains_any)
        checks.append(Check("reply contains an answer", "reply", ok, _short(seen.reply)))
    checks += [
        Check(f"reply avoids {text!r}", "reply", not contains(seen.reply, text), _short(seen.reply))
        for text in expect.reply_avoids
    ]
    return checks


def _citation_checks(expect: Expect, seen: Observation) -> list[Check]:
    checks: list[Check] = []
    titles = [c.get("title", "") for c in seen.citations]
    if expect.cites is not None:
        ok = any(normalised(title) == normalised(expect.cites) for title in titles)
        checks.append(Check(f"cites {expect.cites!r}", "citation", ok, f"cited {titles}"))
    if expect.cites_external_id is not None:
        ids = [c.get("external_id", "") for c in seen.citations]
        ok = expect.cites_external_id in ids
        checks.append(Check("cites the gold passage", "citation", ok, f"cited {ids}"))
    return checks


def _lookup(arguments: dict[str, Any], path: str) -> Any:
    value: Any = arguments
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _has_marker(reply: str, markers: tuple[str, ...]) -> bool:
    folded = reply.casefold()
    return any(marker in folded for marker in markers)


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
