"""Which dev-half messages the built-in model learns from, and under which label
(``chat/builtin_model/understanding/learned.py`` says why it learns from them at all).

A case teaches the label its writer expected: the tool it should propose; ``help`` for help and
small talk; ``cancel`` for the last message of a withdrawal; ``knowledge`` for a question
answered from the documents or declined as not covered; ``data`` for a question about the
tenant's own rows. Nothing is learned from a refusal, a missing tool or a clarifying question
(the boundary reader and the slots decide those, not the intent vote), nor from the earlier
messages of an exchange.
"""

from __future__ import annotations

from typing import Any

from chat.evals.cases import CaseSpec, case_set_load
from chat.evals.regression import BLIND_DEV, HELD_OUT, blind_half_files


def learned_label(case: CaseSpec) -> tuple[str, str] | None:
    """(label, message) that ``case`` teaches, or None."""
    expect, message = case.expect, case.messages[-1]
    if len(case.messages) > 1:
        return ("cancel", message) if expect.route == "withdrawn" else None
    if expect.tool is not None:
        return _scheduled_as_itself(expect.tool, expect.arguments), message
    if expect.route == "help":
        return "help", message
    if expect.route is not None:
        return None
    if expect.decline or expect.cites or expect.cites_external_id:
        return "knowledge", message
    if "data" in case.tags:
        return "data", message
    return None


def _scheduled_as_itself(tool: str, arguments: dict[str, Any] | None) -> str:
    """A reminder that posts an announcement or sends a Telegram or an e-mail later teaches
    that tool: the built-in model reads what is asked for by meaning and when by the time in the
    request (a timed announcement becomes a reminder that posts it), so "in 4 days at 8:30 put a
    notice on the board …" is an announcement to it. A reminder that texts (the reminder's own
    channel) teaches the reminder."""
    inner = (arguments or {}).get("tool")
    if tool == "schedule_reminder" and isinstance(inner, str) and inner != "send_sms":
        return inner
    return tool


def dev_half_examples() -> list[tuple[str, str]]:
    """Every (label, message) of the blind set's dev half, in file order, without repeats and
    without a message that is also held out: a short message ("cancel it, thanks") can be
    written word for word by writers of both halves, and learning it would teach the test."""
    seen = _held_out_messages()
    examples: list[tuple[str, str]] = []
    for path in blind_half_files(BLIND_DEV):
        for case in case_set_load(path).cases:
            learned = learned_label(case)
            if learned is not None and learned[1] not in seen:
                seen.add(learned[1])
                examples.append(learned)
    return examples


def _held_out_messages() -> set[str]:
    return {
        message
        for folder in HELD_OUT
        for path in blind_half_files(folder)
        for case in case_set_load(path).cases
        for message in case.messages
    }
