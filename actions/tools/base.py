"""The contract every tool meets; the agent, the approval flow and the admin rely on nothing else.

Every tool (``Tool``) declares what the model and the people around it see:

* ``name`` and a docstring (the model reads it as the tool's description);
* ``kind``: ``"read"`` (runs at once) or ``"write"`` (proposed, approved by a person, then
  executed by a worker);
* ``args_schema``: a pydantic model, the arguments' JSON schema for the model;
* ``label`` (the approval card's heading, "Send SMS") and ``stage`` (the ``status`` stage a
  client is shown while it works, DESIGN.md §6).

A read tool (``ReadTool``) implements ``run(arguments, ctx)`` and answers the model with text.
A write tool (``WriteTool``) implements

* ``validate(arguments)``: the schema, then the tenant (recipients resolve inside the tenant,
  limits of the tenant's ``ToolPolicy``);
* ``describe(args)``: the exact effect in one human sentence for the approval card;
* ``execute(args, ctx)``: the effect, idempotent under ``ctx.action_id`` (a retried or
  redelivered execution must not send twice);

and declares its ``words`` (``actions/tools/words.py``): how people ask for it, in English and
Korean, which is all the built-in model learns it from.

Tools never see chat objects: the pending action is known only by its uuid (DESIGN.md §2), a
read tool knows the user by id. The contract lives here, in ``actions``, the lowest app with
tools, so that ``chat``'s read tools can implement it without ``actions`` importing ``chat``.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from actions.tools.words import ToolWords

if TYPE_CHECKING:
    from actions.selectors import Problem

ArgsT = TypeVar("ArgsT", bound=BaseModel)
ToolKind = Literal["read", "write"]


class ToolError(Exception):
    """Base of the errors a tool reports to the person or the model, with a readable message.

    ``problems``: the recipients that could not be resolved, as data, when that is the error
    (so a reply in another language can say what the English message says)."""

    def __init__(self, message: str, *, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems: tuple[Problem, ...] = tuple(problems)


class ToolArgumentsError(ToolError):
    """Arguments that fail the schema or the tenant's rules (unknown group, over the limit, …)."""


class ToolDisabledError(ToolError):
    """The tenant's policy switched this tool off."""


class UnknownToolError(ToolError):
    pass


@dataclass(frozen=True)
class ToolContext:
    """Who asked, under which approval: all a tool may know about its caller."""

    action_id: uuid.UUID  # the pending action's uuid: the idempotency key of every effect
    requested_by_id: int | None  # user id in the current tenant schema
    approved_by_id: int | None = None


@dataclass(frozen=True)
class ToolResult:
    """What happened, for the audit log, the approval card and the model's confirmation."""

    summary: str
    data: dict[str, Any]


class Tool(Protocol):
    """What every tool, read or write, tells the model and the people around it."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> ToolKind: ...
    @property
    def args_schema(self) -> type[BaseModel]: ...
    @property
    def label(self) -> str: ...
    @property
    def stage(self) -> str: ...
    def description(self) -> str: ...


class _BaseTool(ABC, Generic[ArgsT]):
    name: ClassVar[str]
    kind: ClassVar[ToolKind]
    args_schema: ClassVar[type[BaseModel]]
    label: ClassVar[str]  # for people: "Send SMS", "Search the knowledge base"
    stage: ClassVar[str]  # the ``status`` stage shown while it works

    @classmethod
    def description(cls) -> str:
        """The docstring, which is what the model reads."""
        return (cls.__doc__ or "").strip()

    def parse(self, arguments: dict[str, Any]) -> ArgsT:
        """Schema validation only, with pydantic's messages joined into one readable error."""
        try:
            return self.args_schema.model_validate(arguments)  # type: ignore[return-value]
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in item['loc']) or 'arguments'}: {item['msg']}"
                for item in error.errors()
            )
            raise ToolArgumentsError(problems) from None


class WriteTool(_BaseTool[ArgsT]):
    kind: ClassVar[ToolKind] = "write"
    # Write calls are announced with their pending action, in this stage.
    stage: ClassVar[str] = "awaiting_approval"
    # The card's status once approved, until the effect is done (for people, like ``label``).
    progress_label: ClassVar[str] = "Approved — running…"
    # How people ask for it (exemplars, cues, names, outcome phrase). A tool without words is
    # offered to a configured LLM, but the built-in model never proposes it.
    words: ClassVar[ToolWords | None] = None

    @abstractmethod
    def validate(self, arguments: dict[str, Any]) -> ArgsT:
        """Parse and check against the current tenant (recipients, policy limits); raise
        ``ToolArgumentsError`` with a specific message. Runs in the tenant's schema."""

    @abstractmethod
    def describe(self, args: ArgsT) -> str:
        """The exact effect for the approval card, e.g. "SMS to 23 contacts in 'Parents': '…'"."""

    @abstractmethod
    def execute(self, args: ArgsT, ctx: ToolContext) -> ToolResult:
        """Carry out the effect, idempotently under ``ctx.action_id``."""


@dataclass(frozen=True)
class ReadContext:
    """What a read tool may know about the turn that calls it: ids and counters only."""

    user_id: int  # who asked, in the current tenant schema
    first_source: int  # the number the next citable passage gets ([n] in the answer)
    failed_attempts: int  # failed attempts so far this turn (the repair budget)


@dataclass(frozen=True)
class ReadResult:
    """The tool message the model reads, and what the turn keeps of it."""

    content: str  # JSON text for the model
    sources: list[dict[str, Any]] = field(default_factory=list)  # new citable passages
    failed: bool = False  # a failure the model should repair; counts against the budget


class ReadTool(_BaseTool[ArgsT]):
    kind: ClassVar[ToolKind] = "read"

    @abstractmethod
    def run(self, arguments: dict[str, Any], ctx: ReadContext) -> ReadResult:
        """Answer the model at once, in the current tenant's schema. Bad arguments come back
        as an error in ``content`` for the model to repair, never as an exception."""
