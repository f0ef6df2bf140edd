"""The case file format: parsing and validating a YAML or JSON case set (no Django).

A file is ``{"name": ..., "description": ..., "cases": [...]}``; each case is
``{"key", "language", "tags", "messages", "expect", "setup"}`` as documented in docs/agent.md.
A bad file raises ``CaseFileError`` naming the case and the field, so whoever wrote it can fix it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Route = Literal["help", "clarify", "withdrawn", "disabled", "refused", "unsupported"]


class CaseFileError(Exception):
    """The case file is missing, unreadable or does not follow the case format."""


class Due(BaseModel):
    """A reminder's time, relative to the day the run starts, in the tenant's time zone."""

    model_config = ConfigDict(extra="forbid")
    in_days: int = Field(ge=0, le=366)
    at: str = Field(pattern=r"^\d{2}:\d{2}$", description="Local time, HH:MM.")


class Expect(BaseModel):
    """What must come back. With no ``tool``, proposing any action fails the case."""

    model_config = ConfigDict(extra="forbid")
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    due: Due | None = None
    reply_contains: list[str] = []
    reply_contains_any: list[str] = []
    reply_avoids: list[str] = []
    cites: str | None = None
    cites_external_id: str | None = None
    decline: bool = False
    route: Route | None = None

    @model_validator(mode="after")
    def _coherent(self) -> Expect:
        if (self.arguments is not None or self.due is not None) and self.tool is None:
            raise ValueError("'arguments' and 'due' need a 'tool'")
        if self.tool is not None and (
            self.decline or self.route in ("help", "disabled", "refused", "unsupported")
        ):
            raise ValueError("a case cannot expect both a tool and a decline or route")
        if not self.model_dump(exclude_defaults=True):
            raise ValueError("expect at least one thing")
        return self


class Setup(BaseModel):
    """Changes made for this case only, inside its rolled-back transaction."""

    model_config = ConfigDict(extra="forbid")
    disable_tools: list[str] = []


class CaseSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str = Field(min_length=1, max_length=120)
    language: Literal["en", "ko"] = "en"
    tags: list[str] = []
    messages: list[str] = Field(min_length=1, max_length=5)
    expect: Expect
    setup: Setup = Setup()

    @model_validator(mode="before")
    @classmethod
    def _one_message(cls, data: Any) -> Any:
        # ``message: "..."`` is the common case; ``messages`` is for a short exchange.
        if isinstance(data, dict) and "message" in data:
            data = {**data, "messages": [data["message"]]}
            del data["message"]
        return data


class CaseSetSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    cases: list[CaseSpec] = Field(min_length=1)


def case_set_parse(data: Any, *, default_name: str) -> CaseSetSpec:
    """Validate already-loaded data; keys must be unique within the set."""
    if isinstance(data, list):
        data = {"name": default_name, "cases": data}
    if not isinstance(data, dict):
        raise CaseFileError("a case file holds a mapping with 'cases', or a list of cases")
    data = {"name": default_name, **data}
    try:
        spec = CaseSetSpec.model_validate(data)
    except ValidationError as error:
        raise CaseFileError(_describe(error, data)) from None
    seen: set[str] = set()
    for case in spec.cases:
        if case.key in seen:
            raise CaseFileError(f"case key {case.key!r} is used twice")
        seen.add(case.key)
    return spec


def case_set_load(path: Path) -> CaseSetSpec:
    """Read a ``.yaml``/``.yml``/``.json`` case file."""
    if not path.is_file():
        raise CaseFileError(f"{path}: no such file")
    try:
        content = path.read_bytes()
    except OSError as error:
        raise CaseFileError(f"{path}: cannot read it: {error}") from None
    return case_set_parse_text(content, name=str(path))


def case_set_parse_text(content: bytes, *, name: str) -> CaseSetSpec:
    """Parse the bytes of a case file called ``name`` (JSON when it ends in .json, else YAML)."""
    path = Path(name)
    try:
        text = content.decode("utf-8")
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (UnicodeDecodeError, ValueError, yaml.YAMLError) as error:
        raise CaseFileError(f"{path.name}: cannot read it: {error}") from None
    return case_set_parse(data, default_name=path.stem)


def case_set_dump(spec: CaseSetSpec, *, as_json: bool = False) -> str:
    """The file form of a case set (defaults left out, so it reads like a hand-written one)."""
    data = spec.model_dump(mode="json", exclude_defaults=True)
    data.setdefault("cases", [])
    if as_json:
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)


def _describe(error: ValidationError, data: dict[str, Any]) -> str:
    """'case 3 (sms-emma): expect.tool: ...' for the first problem of a validation error."""
    first = error.errors()[0]
    location = list(first["loc"])
    where = ".".join(str(part) for part in location) or "file"
    if len(location) >= 2 and location[0] == "cases" and isinstance(location[1], int):
        index = location[1]
        cases = data.get("cases") or []
        key = (
            cases[index].get("key")
            if index < len(cases) and isinstance(cases[index], dict)
            else None
        )
        rest = ".".join(str(part) for part in location[2:]) or "case"
        where = f"case {index + 1}" + (f" ({key})" if key else "") + f": {rest}"
    return f"{where}: {first['msg']}"
