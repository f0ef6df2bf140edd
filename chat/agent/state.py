"""The graph's state: what one conversation's checkpoint holds between steps."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

# How a proposed write action ended without its tool running (``PendingAction.NOT_RUN``).
NotRun = Literal["rejected", "withdrawn", "expired"]


class AgentState(TypedDict):
    # The conversation as the model sees it (system prompt excluded: rebuilt every call).
    messages: Annotated[list[AnyMessage], add_messages]
    # Passages retrieved in the current turn, numbered from 1: {"n", "chunk", "document",
    # "title", "text"}. Only these may be cited; reset when a turn starts.
    sources: list[dict[str, Any]]
    # Failed read-tool attempts (query_data) in the current turn (repair budget:
    # SQL_MAX_RETRIES).
    sql_failures: int
    # Set by the approval node when the latest action was rejected or withdrawn (routing then
    # ends the turn with a fixed reply), None once an action ran; reset when a turn starts.
    # Checkpoints from before this field existed lack it: read it with ``.get``.
    not_run: NotRun | None
