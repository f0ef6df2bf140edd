"""The graph's state: what one conversation's checkpoint holds between steps."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class AgentState(TypedDict):
    # The conversation as the model sees it (system prompt excluded: rebuilt every call).
    messages: Annotated[list[AnyMessage], add_messages]
    # Passages retrieved in the current turn, numbered from 1: {"n", "chunk", "document",
    # "title", "text"}. Only these may be cited; reset when a turn starts.
    sources: list[dict[str, Any]]
    # Failed query_data attempts in the current turn (repair budget: SQL_MAX_RETRIES).
    sql_failures: int
