"""A write request as understood so far, shared by the flow (``understand.py``) and the
tool call it becomes (``arguments.py``). Pure: no Django."""

from __future__ import annotations

from dataclasses import dataclass

from chat.builtin_model.understanding.intent import Label
from chat.builtin_model.understanding.recipients import Found
from chat.builtin_model.understanding.when import When


@dataclass(frozen=True)
class Draft:
    """A write request as understood so far: what ``understand`` turns into a call or a question."""

    tool: Label  # the write tool asked for
    confidence: float
    ko: bool
    found: Found
    named: list[str]
    body: str | None
    subject: str | None = None
    title: str | None = None
    when: When | None = None
    missing_time: str | None = None
    passed_time: str | None = None  # a stated time that has already gone by: ask again
    channel: str | None = None  # a reminder's channel, if the request named one
