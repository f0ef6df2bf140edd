"""The registry of write tools: the only way the agent finds a tool or its tenant policy.

``get_tool(name)`` / ``write_tools()`` know the tools this code ships; ``tool_policy(name)``
reads the current tenant's rules for one of them (created with defaults when missing).
Names resolve against this fixed table, never against anything a client sends beyond the
name, and every tool queries only the current tenant's schema.
"""

from __future__ import annotations

from typing import Any

from actions.models import ToolPolicy
from actions.selectors import approval_refusal
from actions.services.policies import tool_policy_get_or_create
from actions.tools.announcements import CreateAnnouncement
from actions.tools.base import UnknownToolError, WriteTool
from actions.tools.messages import SendEmail, SendSms, SendTelegram
from actions.tools.reminders import ScheduleReminder

_TOOLS: dict[str, WriteTool[Any]] = {
    tool.name: tool
    for tool in (SendSms(), SendTelegram(), SendEmail(), CreateAnnouncement(), ScheduleReminder())
}


def get_tool(name: str) -> WriteTool[Any]:
    """The write tool called ``name``; UnknownToolError (naming the known ones) otherwise."""
    try:
        return _TOOLS[name]
    except (KeyError, TypeError):
        raise UnknownToolError(
            f"unknown tool {name!r}; the write tools are {', '.join(_TOOLS)}"
        ) from None


def write_tools() -> list[WriteTool[Any]]:
    """Every write tool, in a stable order (the order the model is shown them)."""
    return list(_TOOLS.values())


def tool_names() -> list[str]:
    return list(_TOOLS)


def tool_policy(name: str) -> ToolPolicy:
    """The current tenant's policy for tool ``name`` (created with defaults if missing)."""
    get_tool(name)
    return tool_policy_get_or_create(tool_name=name)


def enabled_write_tools() -> list[WriteTool[Any]]:
    """The write tools the current tenant has not switched off (what the model should see)."""
    disabled = set(ToolPolicy.objects.filter(enabled=False).values_list("tool_name", flat=True))
    return [tool for tool in _TOOLS.values() if tool.name not in disabled]


__all__ = [
    "approval_refusal",
    "enabled_write_tools",
    "get_tool",
    "tool_names",
    "tool_policy",
    "write_tools",
]
