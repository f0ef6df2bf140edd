"""The agent's tools: read tools run at once, write tools go through approval."""

from __future__ import annotations

from typing import Any

from actions.tools.registry import enabled_write_tools, write_tools
from chat.agent.tools.query_data import QUERY_DATA_TOOL_NAME, query_data_spec
from chat.agent.tools.search_knowledge import SEARCH_TOOL_NAME, search_knowledge_spec
from chat.agent.tools.spec import function_spec

READ_TOOLS = (SEARCH_TOOL_NAME, QUERY_DATA_TOOL_NAME)


def tool_specs(enabled_write_tools: list[str]) -> list[dict[str, Any]]:
    """OpenAI-format specs of every tool the model may call this turn."""
    specs = [search_knowledge_spec(), query_data_spec()]
    for tool in write_tools():
        if tool.name in enabled_write_tools:
            specs.append(function_spec(tool.name, tool.description(), tool.args_schema))
    return specs


def write_tool_names() -> set[str]:
    return {tool.name for tool in write_tools()}


def enabled_write_tool_names() -> list[str]:
    """Write tools the current tenant's policy leaves switched on (one read, no writes)."""
    return [tool.name for tool in enabled_write_tools()]
