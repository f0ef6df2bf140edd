"""Runs the assistant's graph for one run of a turn: the only module that drives LangGraph.

A run starts a turn, continues one a dead worker left half done, or resumes one after a
decision. It reads the checkpoint, lets the caller pick the input from it (``first_input``),
streams the graph to its end or its next interrupt, forwards the model's tokens and the stages
to a ``TurnEvents`` sink, and says how it ended (``RunResult``). What to store — the reply, its
citations, the usage — is the turn services' business (chat/services/turns.py).

Public LangGraph and LangChain APIs only: tokens come from the ``on_llm_new_token`` callback of
the agent node's ``model.stream`` (chat/agent/nodes.py), not from LangGraph's "messages" stream
mode, which runs every node on a pool thread where Django would open (and leak) a connection
per thread and lose the caller's tenant schema; with "updates" only, nodes run in this thread.
"""

from __future__ import annotations

import enum
import functools
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis
from django.conf import settings
from django.db import connection as db_connection
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot

from chat.agent.graph import build_graph, on_checkpointer_reset, thread_id
from chat.agent.llm import between_reads, build_chat_model, model_settings
from chat.locks import RunSuperseded
from chat.models import Conversation, Message, PendingAction
from chat.tools.registry import read_tool
from core.metrics import AGENT_ERRORS, TIME_TO_FIRST_TOKEN
from core.redis_clients import sync_redis
from core.schema import current_schema, current_tenant
from tenants.names import conversation_cancel_key

logger = logging.getLogger(__name__)

# How often a streaming run looks for a cancel request: a Redis round trip each time, so not per
# token; a quarter of a second is still "at once" to the person who pressed stop.
_CANCEL_CHECK_SECONDS = 0.25
# A cancel request older than this is stale: no run is that long.
_CANCEL_TTL_SECONDS = 600


class TurnEvents(Protocol):
    """Where a run's events go: published to watchers (chat/events/publishing.py) or collected."""

    def status(self, stage: str) -> None: ...
    def token(self, content: str) -> None: ...
    def flush(self) -> None: ...  # send on the tokens held back, if any
    def pending(self, action: PendingAction) -> None: ...
    def action(self, action: PendingAction) -> None: ...
    def done(self, message: Message) -> None: ...
    def error(self, code: str, message: str) -> None: ...


@dataclass
class CollectingEvents:
    """A sink that keeps every event in order (in-process runs: evaluations, benchmarks, tests)."""

    events: list[tuple[str, Any]] = field(default_factory=list)

    def status(self, stage: str) -> None:
        self.events.append(("status", stage))

    def token(self, content: str) -> None:
        self.events.append(("token", content))

    def flush(self) -> None:
        self.events.append(("flush", None))  # nothing is held back; kept in order like the rest

    def pending(self, action: PendingAction) -> None:
        self.events.append(("pending", action))

    def action(self, action: PendingAction) -> None:
        self.events.append(("action", action))

    def done(self, message: Message) -> None:
        self.events.append(("done", message))

    def error(self, code: str, message: str) -> None:
        self.events.append(("error", (code, message)))

    def of(self, kind: str) -> list[Any]:
        return [payload for event, payload in self.events if event == kind]


# -- the graph, once per process -----------------------------------------------------------------


def graph_for(model: BaseChatModel | None) -> CompiledStateGraph:
    """The compiled graph answering with ``model``; without one, the configured model's graph,
    built once per process (compiling it and the model client cost ~0.1 s per turn). Compiled
    graphs run any number of threads at once; the settings are part of the key, so tests that
    change the model get their own."""
    if model is not None:
        return build_graph(model)
    return _configured_graph(model_settings())


@functools.cache
def _configured_graph(settings_key: tuple[object, ...]) -> CompiledStateGraph:
    return build_graph(build_chat_model())


on_checkpointer_reset(
    _configured_graph.cache_clear
)  # a cached graph holds the old pool's checkpointer


def run_config(conversation: Conversation) -> RunnableConfig:
    """The run's ids, which reach nodes only through here (DESIGN.md §4)."""
    schema = current_schema()
    return {
        "configurable": {
            "thread_id": thread_id(schema, str(conversation.uuid)),
            "schema": schema,
            "user_id": conversation.user_id,
            "conversation_id": conversation.pk,
            "tenant_name": current_tenant().name,
        },
        "recursion_limit": settings.RECURSION_LIMIT,
    }


# -- cancelling ----------------------------------------------------------------------------------


def cancel_request(*, conversation: Conversation, run_id: uuid.UUID | str) -> None:
    """Ask run ``run_id`` of ``conversation`` (a turn's user message, or a resume's action) to
    stop: before it starts if it is still queued, else at its next model call, node or token.
    Keyed by the run, so a flag left behind (the run ended first) never stops the next one. The
    flag lives on the process's own Redis client, not Django's cache, whose Redis backend
    builds a client (and its table of some 170 response callbacks) on every call: the largest
    cost of a check."""
    sync_redis().set(_cancel_key(conversation, run_id), 1, ex=_CANCEL_TTL_SECONDS)


def cancel_requested(*, conversation: Conversation, run_id: uuid.UUID | str) -> bool:
    """Whether someone asked run ``run_id`` to stop."""
    asked = _cancel_asked(_cancel_key(conversation, run_id))
    if asked is None:
        logger.warning("could not check for a cancel request; going on")
    return bool(asked)


def _cancel_asked(key: str) -> bool | None:
    """Whether the cancel request ``key`` exists; None while Redis is away. Then nobody can
    ask, and a request made before is still there for the next check: the turn goes on
    rather than failing for a restart it could have streamed through."""
    try:
        return bool(sync_redis().exists(key))
    except redis.RedisError:
        return None


def _cancel_key(conversation: Conversation, run_id: uuid.UUID | str) -> str:
    return conversation_cancel_key(current_schema(), conversation.uuid, run_id)


class TurnCancelled(Exception):
    pass


# -- reading the checkpoint ----------------------------------------------------------------------


class Ending(enum.Enum):
    FINISHED = "finished"  # ran (or had run) to its end: the reply is the last AI message
    PAUSED = "paused"  # waits for a decision
    SUPERSEDED = "superseded"  # nothing to do: another run owns the rest
    NOTICE = "notice"  # not run: ``text`` is the reply to store
    CANCELLED = "cancelled"  # stopped by the user: ``text`` is what was streamed
    LOOPED = "looped"  # hit the recursion limit
    FAILED = "failed"  # raised (logged and counted here)


@dataclass(frozen=True)
class Skip:
    """What ``first_input`` returns to end the run without running the graph."""

    ending: Ending
    text: str = ""


FINISHED, PAUSED, SUPERSEDED = Skip(Ending.FINISHED), Skip(Ending.PAUSED), Skip(Ending.SUPERSEDED)


def notice(text: str) -> Skip:
    return Skip(Ending.NOTICE, text)


def holds_message(state: StateSnapshot, message_id: str) -> bool:
    return message_id in {m.id for m in state.values.get("messages", [])}


def waits_for_decision(state: StateSnapshot) -> bool:
    return any(task.interrupts for task in state.tasks)


def waits_on(state: StateSnapshot, action: PendingAction) -> bool:
    return str(action.id) in awaited_action_ids(state)


def awaited_action_ids(state: StateSnapshot) -> set[str]:
    """The ids of the actions whose decision the graph waits for."""
    return {
        str(pending.value.get("action_id")) for task in state.tasks for pending in task.interrupts
    }


def answered(state: StateSnapshot, action: PendingAction) -> bool:
    """Whether the graph recorded an outcome for the action's tool call."""
    return any(
        isinstance(message, ToolMessage) and message.tool_call_id == action.tool_call_id
        for message in state.values.get("messages", [])
    )


def in_turn_of(state: StateSnapshot, action: PendingAction) -> bool:
    """Whether the checkpoint's latest turn is the one that proposed ``action``: its tool call
    comes after the latest user message. False once a later message (answered by the graph or
    from the answer cache) or another action's proposal moved the conversation on."""
    for message in reversed(state.values.get("messages", [])):
        if isinstance(message, HumanMessage):
            return False
        if isinstance(message, AIMessage) and any(
            call["id"] == action.tool_call_id for call in message.tool_calls
        ):
            return True
    return False


def continuation(state: StateSnapshot) -> Skip | None:
    """What a redelivered run does: continue from the checkpoint, never start over.

    Finished means no task is left at all. A worker killed after a node's writes were saved but
    before the checkpoint that follows them leaves that node as a task with a result: LangGraph
    leaves it out of ``state.next``, yet the step is not committed. Taking that for the end
    stored the last AIMessage of the checkpoint (the tool call, empty) as the reply; continuing
    applies the saved writes without running the node again and goes on to the model."""
    if not state.tasks:
        return FINISHED
    if waits_for_decision(state):
        return PAUSED
    return None  # LangGraph continues from the last checkpoint when given no input


def resume_input(action: PendingAction) -> Command[Any]:
    return Command(resume={"action_id": str(action.id), "status": action.status})


def user_input(message: Message) -> dict[str, Any]:
    return {
        "messages": [HumanMessage(message.content, id=str(message.uuid))],
        "sources": [],
        "sql_failures": 0,
        "not_run": None,
    }


# -- running -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    ending: Ending
    values: dict[str, Any]  # the checkpoint's values when the run ended
    before: frozenset[str | None]  # ids of the checkpoint's messages when the run began
    text: str = ""  # NOTICE: the reply; CANCELLED: what was streamed; FAILED: the error's type
    ran: bool = False  # whether the graph ran (a PAUSED run that ran made model calls)
    # CANCELLED: the actions the graph had just proposed and parked on when the run saw the
    # cancel (the approval node committed them first); nobody has been told of them.
    parked: tuple[str, ...] = ()


def run_graph(
    *,
    conversation: Conversation,
    run_id: uuid.UUID | str,
    first_input: Callable[[StateSnapshot], Any],
    events: TurnEvents,
    model: BaseChatModel | None,
) -> RunResult:
    """Run the graph from the checkpoint of ``conversation`` with what ``first_input`` picks
    (a ``Skip`` ends the run at once); tokens and stages go to ``events`` as they happen.
    A cancel request for ``run_id`` stops it before each model call, after each node and every
    ``_CANCEL_CHECK_SECONDS`` of streamed tokens (``TurnCancelled``: nothing after it runs)."""
    try:
        # Before the graph runs, too: a checkpointer that cannot read (PostgreSQL restarting)
        # used to fail the task with nothing told to the conversation or counted.
        graph = graph_for(model)
        forwarder = _TokenForwarder(events, _cancel_key(conversation, run_id))
        config: RunnableConfig = {**run_config(conversation), "callbacks": [forwarder]}
        state = graph.get_state(config)
        before = frozenset(m.id for m in state.values.get("messages", []))
        graph_input = first_input(state)
        if isinstance(graph_input, Skip):
            if graph_input.ending is Ending.PAUSED:
                announce_pending(state, events)
            return RunResult(graph_input.ending, state.values, before, graph_input.text)
    except RunSuperseded:
        raise  # not a failure of this turn: another execution runs it (chat/locks.py)
    except Exception as error:
        drop_broken_connection()
        return _failed(error, conversation, before=frozenset(), values={}, ran=False)
    try:
        with between_reads(events.flush):  # one token frame per read of the model's stream
            _stream(graph, graph_input, config, events, forwarder.check_cancel)
    except TurnCancelled:
        state = graph.get_state(config)
        return RunResult(
            Ending.CANCELLED,
            state.values,
            before,
            "".join(forwarder.streamed),
            ran=True,
            parked=parked_action_ids(state),
        )
    except GraphRecursionError:
        logger.warning("recursion limit reached in %s", conversation.uuid)
        AGENT_ERRORS.labels(type="recursion_limit").inc()
        return RunResult(Ending.LOOPED, graph.get_state(config).values, before, ran=True)
    except RunSuperseded:
        raise
    except Exception as error:
        values = _values_after_failure(graph, config)
        return _failed(error, conversation, before=before, values=values, ran=True)
    finally:
        drop_broken_connection()  # whatever the ending, the turn stores it next
    state = graph.get_state(config)
    if state.next:
        announce_pending(state, events)
        return RunResult(Ending.PAUSED, state.values, before, ran=True)
    return RunResult(Ending.FINISHED, state.values, before, ran=True)


def close_out(*, action: PendingAction, model: BaseChatModel | None = None) -> None:
    """Move a graph that waits on ``action`` (withdrawn in a later message) past its interrupt
    to the end of its turn, announcing and storing nothing. A graph not waiting on it is left
    alone."""
    graph = graph_for(model)
    config = run_config(action.conversation)
    if waits_on(graph.get_state(config), action):
        graph.invoke(resume_input(action), config)


def record_exchange(
    *,
    message: Message,
    reply: str,
    sources: list[dict[str, Any]],
    model: BaseChatModel | None = None,
) -> None:
    """Write a question and a reply given without running the graph (a cached answer) into the
    checkpoint, so that a follow-up question is answered knowing them."""
    exchange = [HumanMessage(message.content, id=str(message.uuid)), AIMessage(reply)]
    graph_for(model).update_state(
        run_config(message.conversation),
        {"messages": exchange, "sources": sources, "sql_failures": 0},
        as_node="finalize",
    )


def _failed(
    error: Exception,
    conversation: Conversation,
    *,
    before: frozenset[str | None],
    values: dict[str, Any],
    ran: bool,
) -> RunResult:
    """A run that raised: logged and counted (the turn stores the error reply and tells the
    conversation)."""
    logger.exception("turn failed in conversation %s", conversation.uuid)
    AGENT_ERRORS.labels(type=error.__class__.__name__).inc()
    return RunResult(Ending.FAILED, values, before, error.__class__.__name__, ran=ran)


def drop_broken_connection() -> None:
    """Give back this thread's Django connection if it died (a PostgreSQL restart under a
    running turn): a task holds its connection for the whole turn, so without this every
    later query of the turn, storing its reply or the error reply included, failed on the dead
    one. The next query takes a tried one from the pool. Never inside a transaction, which
    the connection carries."""
    if db_connection.in_atomic_block or db_connection.connection is None:
        return
    if not db_connection.is_usable():
        logger.warning("the database connection died under a run; taking a fresh one")
        db_connection.close()


def _values_after_failure(graph: Any, config: RunnableConfig) -> dict[str, Any]:
    """The checkpoint after a failed run, for its usage; empty when it cannot be read either."""
    try:
        values: dict[str, Any] = graph.get_state(config).values
    except Exception:
        logger.warning("could not read the checkpoint after a failed run", exc_info=True)
        return {}
    return values


def announce_pending(state: StateSnapshot, events: TurnEvents) -> None:
    for action_id in parked_action_ids(state):
        action = PendingAction.objects.get(pk=action_id)
        events.status("awaiting_approval")
        events.pending(action)


def parked_action_ids(state: StateSnapshot) -> tuple[str, ...]:
    """The ids of the actions the graph waits on (its approval node's interrupts)."""
    return tuple(
        str(pending.value["action_id"]) for task in state.tasks for pending in task.interrupts
    )


class _TokenForwarder(BaseCallbackHandler):
    """Forwards the model's tokens as they arrive and notices a cancel request."""

    raise_error = True  # let TurnCancelled stop the run

    def __init__(self, events: TurnEvents, cancel_key: str) -> None:
        self.events = events
        self.cancel_key = cancel_key
        self.streamed: list[str] = []
        self._started = self._last_check = time.monotonic()
        self._unchecked = False  # the last cancel check could not reach Redis

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        if isinstance(token, str) and token:
            if not self.streamed:
                TIME_TO_FIRST_TOKEN.observe(time.monotonic() - self._started)
            self.streamed.append(token)
            self.events.token(token)
        if time.monotonic() - self._last_check > _CANCEL_CHECK_SECONDS:
            self.check_cancel()

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        # Before every model call: a turn cancelled while it was starting (or between two
        # calls) asks the model nothing more.
        self.check_cancel()

    def check_cancel(self) -> None:
        self._last_check = time.monotonic()
        asked = _cancel_asked(self.cancel_key)
        if asked is None and not self._unchecked:
            logger.warning("could not check for a cancel request; going on until Redis is back")
        self._unchecked = asked is None
        if asked:
            raise TurnCancelled()


def _stream(
    graph: Any,
    graph_input: Any,
    config: RunnableConfig,
    events: TurnEvents,
    check_cancel: Callable[[], None],
) -> None:
    """Run the graph to its end or its next interrupt, announcing stages as nodes finish.
    ``check_cancel`` runs after every node: the stream is lazy, so raising there runs no
    further node (a tool call the model made just before the cancel is never proposed)."""
    if not isinstance(graph_input, Command):  # a resume was announced as "executing"
        events.status("thinking")
    for update in graph.stream(graph_input, config, stream_mode="updates"):
        check_cancel()
        if update.get("agent"):
            for call in getattr(update["agent"]["messages"][-1], "tool_calls", []):
                tool = read_tool(call["name"])
                if tool is not None:  # write calls are announced with their pending action
                    events.status(tool.stage)
        elif update.get("approval"):
            _announce_decided_actions(config, events)


def _announce_decided_actions(config: RunnableConfig, events: TurnEvents) -> None:
    conversation_id = config.get("configurable", {})["conversation_id"]
    for action in PendingAction.objects.filter(
        conversation_id=conversation_id,
        status__in=PendingAction.FINISHED,
    ).order_by("-updated_at")[:1]:
        events.action(action)
