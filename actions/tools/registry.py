"""The registry of write tools: the only way the agent finds a write tool or its tenant policy.

``get_tool(name)`` / ``write_tools()`` know the tools this code ships (add one: its module, and
a line in ``_TOOLS``; chat's read tools are listed in ``chat/tools/registry.py``, which
takes these too). ``policies()`` / ``tool_policy(name)`` read the current tenant's rules (one
query, never a write: a tool without a row has the defaults); ``policies_create()`` is the one
writer, used by the policy admin and the demo seed so every tool has a row to edit. Names
resolve against this fixed table, never against anything a client sends beyond the name, and
every tool queries only the current tenant's schema.
"""

from __future__ import annotations

from typing import Any

from actions.models import ToolPolicy
from actions.selectors import approval_refusal, tool_policies
from actions.services.policies import tool_policies_create
from actions.tools.announcements import CreateAnnouncement
from actions.tools.base import UnknownToolError, WriteTool
from actions.tools.messages import SendEmail, SendSms, SendTelegram
from actions.tools.reminders import ScheduleReminder

_SCHEDULABLE: tuple[WriteTool[Any], ...] = (
    SendSms(),
    SendTelegram(),
    SendEmail(),
    CreateAnnouncement(),
)
_TOOLS: dict[str, WriteTool[Any]] = {
    tool.name: tool for tool in (*_SCHEDULABLE, ScheduleReminder(schedulable=_SCHEDULABLE))
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


def policies() -> dict[str, ToolPolicy]:
    """Every write tool's policy for the current tenant, in one query (defaults where no row)."""
    return tool_policies(tool_names=_TOOLS)


def tool_policy(name: str) -> ToolPolicy:
    """The current tenant's policy for write tool ``name``; UnknownToolError for other names."""
    get_tool(name)
    return tool_policies(tool_names=[name])[name]


def policies_create() -> None:
    """Give every write tool a policy row with the defaults where it has none (admin, demo)."""
    tool_policies_create(tool_names=_TOOLS)


__all__ = [
    "approval_refusal",
    "get_tool",
    "policies",
    "policies_create",
    "tool_names",
    "tool_policy",
    "write_tools",
]
