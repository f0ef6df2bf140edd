"""Every tool the agent may call, read and write: the one list the graph, the turn's status
stages and the model's tool list are built from.

Read tools are listed here: they live in ``chat`` because they read the knowledge base and
chat's own rows. Write tools are listed in ``actions.tools.registry`` (``actions`` never
imports ``chat``) and join this list from there, so adding a tool is one module plus one line
in one of the two ``_TOOLS``/``READ_TOOLS`` lists.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel

from actions.tools.base import ReadTool, Tool
from actions.tools.registry import policies, write_tools
from chat.tools.query_data import QueryData
from chat.tools.search_knowledge import SearchKnowledge

READ_TOOLS: tuple[ReadTool[Any], ...] = (SearchKnowledge(), QueryData())


def all_tools() -> list[Tool]:
    """Read tools first, then write tools, in the order the model is shown them."""
    return [*READ_TOOLS, *write_tools()]


def find_tool(name: str) -> Tool | None:
    return next((tool for tool in all_tools() if tool.name == name), None)


def read_tool(name: str) -> ReadTool[Any] | None:
    return next((tool for tool in READ_TOOLS if tool.name == name), None)


def is_write_tool(name: str) -> bool:
    tool = find_tool(name)
    return tool is not None and tool.kind == "write"


def model_tools() -> list[Tool]:
    """The tools the model may call this step: every read tool and the write tools the
    tenant's policy leaves switched on (one read of the policies, never a write)."""
    enabled = {name for name, policy in policies().items() if policy.enabled}
    return [tool for tool in all_tools() if tool.kind == "read" or tool.name in enabled]


def tool_spec(tool: Tool) -> dict[str, Any]:
    """The OpenAI function-calling format every tool is described to the model in."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description(),  # may read the tenant (query_data's tables)
            "parameters": _parameters(tool.args_schema),
        },
    }


@functools.cache
def _parameters(args_schema: type[BaseModel]) -> dict[str, Any]:
    """A tool's JSON schema, built once per process: pydantic builds it anew on every call
    (about a millisecond a tool, every model call of every turn). Read-only to callers."""
    return args_schema.model_json_schema()
