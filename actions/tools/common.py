"""Pieces the write tools share: policy checks and argument types with readable errors."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from actions.models import ToolPolicy
from actions.selectors import tool_policies
from actions.tools.base import ToolDisabledError


def enabled_policy(tool_name: str) -> ToolPolicy:
    """The tenant's policy for ``tool_name``; ToolDisabledError if it is switched off."""
    policy = tool_policies(tool_names=[tool_name])[tool_name]
    if not policy.enabled:
        raise ToolDisabledError(f"{tool_name} is switched off for this organisation")
    return policy


def _non_blank(what: str, max_length: int) -> AfterValidator:
    def check(value: str) -> str:
        text = value.strip()
        if not text:
            raise PydanticCustomError("blank", f"the {what} is empty")
        if len(text) > max_length:
            raise PydanticCustomError(
                "too_long",
                f"the {what} is {len(text)} characters long; the most is {max_length}",
            )
        return text

    return AfterValidator(check)


def _single_line(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise PydanticCustomError("multiline", "the subject must be a single line")
    return value


def _recipients(value: list[str]) -> list[str]:
    entries = [entry.strip() for entry in value if entry.strip()]
    if not entries:
        raise PydanticCustomError("no_recipients", "name at least one recipient")
    return entries


Recipients = Annotated[list[str], AfterValidator(_recipients)]
SmsBody = Annotated[str, _non_blank("message", 1600)]
TelegramBody = Annotated[str, _non_blank("message", 4096)]
EmailBody = Annotated[str, _non_blank("message", 100_000)]
Subject = Annotated[str, _non_blank("subject", 200), AfterValidator(_single_line)]
Title = Annotated[str, _non_blank("title", 200)]
AnnouncementBody = Annotated[str, _non_blank("announcement", 20_000)]


def quoted(text: str, limit: int = 0) -> str:
    """Text as shown on an approval card: in quotes, whole unless ``limit`` is given."""
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return f'"{text}"'
