"""The assistant's graph and its Postgres checkpointer.

START → agent ─┬─ no tool calls ───────────────→ finalize → END
               ├─ read / unknown tool calls ───→ read_tools ─┬→ agent
               │                                             ├→ approval (write calls left)
               │                                             └→ sql_give_up → finalize
               └─ write tool call ─────────────→ approval ─┬→ agent (executed: confirm)
                                                           ├→ approval (next write call)
                                                           └→ cancelled → finalize
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.conf import settings
from langchain_core.language_models.chat_models import BaseChatModel
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from chat.agent import nodes
from chat.agent.state import AgentState
from chat.db import conninfo
from core import tracing
from tenants.names import checkpoint_thread_id

_pool: ConnectionPool | None = None
_pool_lock = threading.Lock()
_reset_callbacks: list[Callable[[], None]] = []


def checkpointer() -> PostgresSaver:
    """One pool and one set-up per process; the tables are created on first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            pool = ConnectionPool(
                conninfo(),  # checkpoints live in public; thread ids carry the schema
                min_size=1,
                max_size=20,
                open=True,
                kwargs={"autocommit": True, "prepare_threshold": None, "row_factory": dict_row},
                # Every connection is tried before it is handed out: after a PostgreSQL
                # restart the pool held only dead ones, and each turn failed at its first
                # checkpoint read (AdminShutdown) until the worker was restarted.
                check=ConnectionPool.check_connection,
                timeout=settings.DB_POOL_TIMEOUT_SECONDS,
            )
            PostgresSaver(pool).setup()  # type: ignore[arg-type]
            _pool = pool
    return PostgresSaver(_pool)  # type: ignore[arg-type]


def reset_checkpointer() -> None:
    """Close the pool (tests switch databases; worker processes fork)."""
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool.close()
            _pool = None
    for callback in _reset_callbacks:
        callback()


def on_checkpointer_reset(callback: Callable[[], None]) -> None:
    """Call ``callback`` when the pool is closed (whoever keeps a compiled graph drops it)."""
    _reset_callbacks.append(callback)


def thread_id(schema: str, conversation_uuid: str) -> str:
    """DESIGN.md §4: built on the server, prefixed by the tenant schema."""
    return checkpoint_thread_id(schema, conversation_uuid)


def build_graph(model: BaseChatModel) -> CompiledStateGraph:
    graph = StateGraph(AgentState)
    for name, function in (
        ("agent", nodes.make_agent_node(model)),
        ("read_tools", nodes.read_tools),
        ("approval", nodes.approval),
        ("cancelled", nodes.cancelled),
        ("sql_give_up", nodes.sql_give_up),
        ("finalize", nodes.finalize),
    ):
        graph.add_node(name, tracing.node(name, function))  # a span per node when tracing
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", nodes.route_after_agent)
    graph.add_conditional_edges("read_tools", nodes.route_after_read_tools)
    graph.add_conditional_edges("approval", nodes.route_after_approval)
    graph.add_edge("cancelled", "finalize")
    graph.add_edge("sql_give_up", "finalize")
    graph.add_edge("finalize", END)
    return graph.compile(checkpointer=checkpointer())
