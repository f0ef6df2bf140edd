"""The contract every write tool meets; the agent and the approval flow rely on nothing else.

A tool is proposed by the model, shown to a person as an approval card, and executed by a worker
only after approval. So each tool declares:

* ``name`` and a docstring (the model reads it as the tool's description);
* ``args_schema``: a pydantic model; the model's arguments and any human edit are validated
  against it, then against the tenant (``validate``: recipients resolve inside the tenant,
  limits of the tenant's ``ToolPolicy``);
* ``describe(args)``: the exact effect in one human sentence for the approval card;
* ``execute(args, ctx)``: the effect, idempotent under ``ctx.action_id`` (a retried or
  redelivered execution must not send twice).

Tools never see chat objects: the pending action is known only by its uuid (DESIGN.md §2).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

ArgsT = TypeVar("ArgsT", bound=BaseModel)


class ToolError(Exception):
    """Base of the errors a tool reports to the person or the model, with a readable message."""


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


class WriteTool(ABC, Generic[ArgsT]):
    name: ClassVar[str]
    kind: ClassVar[Literal["write"]] = "write"
    args_schema: ClassVar[type[BaseModel]]

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
