"""The graph's nodes. Each is short; database work runs in the run's tenant schema.

Tenant, user and conversation reach nodes only through the run's config
(``config["configurable"]``: ``schema``, ``user_id``, ``conversation_id``, ``tenant_name``),
never through globals, and the schema is entered explicitly because LangGraph may run a node
on a thread other than the caller's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, Literal, cast

from django.conf import settings
from django.db import transaction
from django_tenants.utils import schema_context
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    message_chunk_to_message,
)
from langchain_core.runnables import RunnableConfig
from langgraph.types import interrupt

from actions.tools.base import ReadContext, ReadTool, ToolError
from chat.agent.outcome_replies import WITHDRAWN, not_run_reply
from chat.agent.prompts import active_prompt_template, render_prompt
from chat.agent.state import AgentState, NotRun
from chat.builtin_model.model import OfflineChatModel
from chat.tools.registry import is_write_tool, model_tools, read_tool, tool_spec
from core import tracing
from core.metrics import AGENT_ERRORS

SQL_GIVE_UP = (
    "Sorry — I couldn't get a working query for that after several tries. Could you rephrase "
    "the question, or ask an administrator to look at the data directly?"
)
# The reply that ends the turn after a decision that never runs the tool, when the action itself
# is not at hand (outcome_replies.not_run_reply words it from the action otherwise).
NOT_RUN_REPLIES: dict[NotRun, str] = {
    "rejected": "Okay — that request was rejected. Nothing was sent or changed.",
    "withdrawn": WITHDRAWN,
    "expired": "That request expired without a decision. Nothing was sent or changed.",
}
_CITATION = re.compile(r"\s?\[(\d+)\]")


@contextmanager
def run_schema(config: RunnableConfig) -> Iterator[dict[str, Any]]:
    configurable = config.get("configurable", {})
    with schema_context(configurable["schema"]):
        yield configurable


def _last_ai(state: AgentState) -> AIMessage | None:
    for message in reversed(state["messages"]):
        if isinstance(message, AIMessage):
            return message
    return None


def unanswered_calls(state: AgentState) -> list[ToolCall]:
    """Tool calls of the latest AI message that have no ToolMessage answer yet."""
    ai = _last_ai(state)
    if ai is None:
        return []
    answered = {m.tool_call_id for m in state["messages"] if isinstance(m, ToolMessage)}
    return [call for call in ai.tool_calls if call["id"] not in answered]


def make_agent_node(model: BaseChatModel) -> Any:
    def agent(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        with run_schema(config) as run:
            tools = model_tools()
            system = render_prompt(
                active_prompt_template(),
                tenant_name=run["tenant_name"],
                tools=[tool.name for tool in tools if tool.kind == "write"],
            )
            specs = [tool_spec(tool) for tool in tools]
        bound = model.bind_tools(specs)
        with tracing.span("llm.chat", **{"gen_ai.system": type(model).__name__}) as call:
            reply = _whole(bound.stream([SystemMessage(system), *state["messages"]], config))
            if call is not None:
                usage = getattr(reply, "usage_metadata", None)
                tracing.record_model_usage(
                    call, usage=dict(usage or {}), counted=isinstance(model, OfflineChatModel)
                )
        return {"messages": [reply]}

    return agent


def _whole(stream: Iterator[BaseMessage]) -> BaseMessage:
    """The model's reply, streamed: each chunk reaches the run's callbacks as it arrives
    (``on_llm_new_token``: the runner forwards it), and the chunks are joined once at the end
    (joining them pairwise would copy the text so far at every chunk)."""
    chunks = list(stream)
    if not chunks:
        return AIMessage("")
    first, rest = chunks[0], chunks[1:]
    if isinstance(first, AIMessageChunk) and all(isinstance(c, AIMessageChunk) for c in rest):
        return message_chunk_to_message(first + rest if rest else first)
    return first  # a model that cannot stream answers in one message


def _read_tool_message(
    tool: ReadTool[Any], call: ToolCall, state: AgentState, *, user_id: int
) -> tuple[ToolMessage, dict[str, Any]]:
    ctx = ReadContext(
        user_id=user_id,
        first_source=len(state["sources"]) + 1,
        failed_attempts=state["sql_failures"],
    )
    with tracing.span(f"tool {tool.name}", **{"gen_ai.tool.name": tool.name}):
        result = tool.run(call["args"], ctx)
    changes: dict[str, Any] = {}
    if result.sources:
        changes["sources"] = state["sources"] + result.sources
    if result.failed:  # the model gets the error back to repair its call, within a budget
        changes["sql_failures"] = state["sql_failures"] + 1
    status = "error" if result.failed else "success"
    message = ToolMessage(result.content, tool_call_id=call["id"], name=tool.name, status=status)
    return message, changes


def _unknown_tool_message(call: ToolCall) -> ToolMessage:
    AGENT_ERRORS.labels(type="unknown_tool").inc()
    text = json.dumps({"error": f"unknown tool {call['name']!r}; nothing was run"})
    return ToolMessage(text, tool_call_id=call["id"], name=call["name"], status="error")


def read_tools(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Run every unanswered read-tool call; answer unknown tools without running anything."""
    messages: list[ToolMessage] = []
    update: dict[str, Any] = {}
    with run_schema(config) as run:
        for call in unanswered_calls(state):
            if is_write_tool(call["name"]):
                continue
            tool = read_tool(call["name"])
            if tool is None:
                messages.append(_unknown_tool_message(call))
                continue
            message, changes = _read_tool_message(
                tool,
                call,
                {**state, **update},  # type: ignore[typeddict-item]
                user_id=run["user_id"],
            )
            messages.append(message)
            update.update(changes)
    return {"messages": messages, **update}


def approval(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Persist the next write call as a pending action, pause, then act on the decision.

    LangGraph re-runs this node from its start on resume, so everything before ``interrupt()``
    is idempotent: the pending action is keyed by conversation + tool call id.
    """
    from chat.locks import fence_check
    from chat.models import Conversation, PendingAction
    from chat.pending_actions import pending_action_execute, pending_action_propose

    call = next(c for c in unanswered_calls(state) if read_tool(c["name"]) is None)
    with run_schema(config) as run:
        try:
            # Fenced before it commits: an execution that was taken over while it ran (stopped
            # past its lease) proposes nothing; the one that took over proposes the card.
            with transaction.atomic():
                action = pending_action_propose(
                    conversation=Conversation.objects.get(pk=run["conversation_id"]),
                    tool_call_id=str(call["id"]),
                    tool=call["name"],
                    arguments=call["args"],
                    requested_by_id=run["user_id"],
                )
                fence_check()
        except ToolError as error:
            text = json.dumps(
                {
                    "status": "invalid",
                    "message": str(error),
                    "problems": [asdict(problem) for problem in error.problems],
                }
            )
            return {
                "messages": [
                    ToolMessage(text, tool_call_id=call["id"], name=call["name"], status="error")
                ],
                "not_run": None,
            }
    # A request refused when proposed (nobody else may approve it, and the tenant says reject)
    # waits for no decision: the turn answers at once. Deterministic on a re-run, since a
    # refused action stays refused.
    if action.status not in PendingAction.NOT_RUN:
        interrupt({"action_id": str(action.id)})
    with run_schema(config):
        action.refresh_from_db()  # the database, not the resume value, says what was decided
        not_run: NotRun | None = None
        reply = None
        if action.status in PendingAction.NOT_RUN:
            not_run = cast(NotRun, action.status)
            outcome = {"status": action.status, "summary": action.description}
            reply = not_run_reply(action)
        else:
            # Only a resumed turn gets here, and it holds the conversation lock: an action it
            # finds in ``executing`` belongs to a dead worker, so it is finished here.
            result = pending_action_execute(action_id=action.id, resume_interrupted=True)
            outcome = {"status": result.status, "summary": result.summary}
    return {
        "messages": [
            ToolMessage(
                json.dumps(outcome, ensure_ascii=False),
                tool_call_id=call["id"],
                name=call["name"],
                artifact={"reply": reply},  # the words a turn that ends here gives
            )
        ],
        "not_run": not_run,  # what routing reads, never the message's text
    }


def cancelled(state: AgentState) -> dict[str, Any]:
    """A rejection, a withdrawal or an expiry ends the turn with a fixed reply; the tool is never
    called, and later write calls are not run either."""
    status = state.get("not_run")
    assert status is not None  # routing sends only a decision that did not run here
    decided = state["messages"][-1]
    answers = [
        ToolMessage(
            json.dumps({"status": "not_run", "message": f"an earlier action was {status}"}),
            tool_call_id=call["id"],
            name=call["name"],
        )
        for call in unanswered_calls(state)
    ]
    artifact = decided.artifact if isinstance(decided, ToolMessage) else None
    reply = (artifact if isinstance(artifact, dict) else {}).get("reply") or NOT_RUN_REPLIES[status]
    return {"messages": [*answers, AIMessage(reply)]}


def sql_give_up(state: AgentState) -> dict[str, Any]:
    return {"messages": [AIMessage(SQL_GIVE_UP)]}


def finalize(state: AgentState) -> dict[str, Any]:
    """Keep only ``[n]`` markers that name a passage retrieved in this turn."""
    ai = _last_ai(state)
    if ai is None or not isinstance(ai.content, str):
        return {}
    known = {source["n"] for source in state["sources"]}
    repaired = _CITATION.sub(lambda m: m.group(0) if int(m.group(1)) in known else "", ai.content)
    if repaired == ai.content:
        return {}
    return {"messages": [AIMessage(repaired, id=ai.id, usage_metadata=ai.usage_metadata)]}


# -- routing ----------------------------------------------------------------------------------


def route_after_agent(state: AgentState) -> Literal["read_tools", "approval", "finalize"]:
    calls = unanswered_calls(state)
    if not calls:
        return "finalize"
    if any(not is_write_tool(call["name"]) for call in calls):
        return "read_tools"
    return "approval"


def route_after_read_tools(state: AgentState) -> Literal["approval", "agent", "sql_give_up"]:
    if state["sql_failures"] > settings.SQL_MAX_RETRIES:
        return "sql_give_up"
    if unanswered_calls(state):
        return "approval"
    return "agent"


def route_after_approval(state: AgentState) -> Literal["approval", "agent", "cancelled"]:
    if state.get("not_run") is not None:
        return "cancelled"
    if unanswered_calls(state):
        return "approval"
    return "agent"
