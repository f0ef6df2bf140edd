"""Parsing untrusted JSON (HTTP bodies, WebSocket frames) into values every layer can store.

Pure: no Django. ``json.loads`` accepts things the rest of the stack cannot take: a NUL
(PostgreSQL text and jsonb refuse it: a DataError deep inside a service), a lone surrogate
such as ``"\\ud800"`` (not encodable as UTF-8: it fails wherever the value is written out
again), nesting deep enough to exhaust the recursion limit, integers too long to convert, and
``NaN`` / ``Infinity`` / ``1e400`` (not JSON by the standard, refused by PostgreSQL's jsonb).
Each becomes a named error here, at the edge, so the transport answers 4xx / an ``error`` frame
instead of a 500 or a dead socket. Strings are rejected rather than cleaned: a message silently
changed on its way in is worse than a clear refusal the client can act on.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_JSON_DEPTH = 32
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class MalformedJson(ValueError):
    """Not JSON, or JSON nested deeper than ``MAX_JSON_DEPTH``."""


class InvalidText(ValueError):
    """A string holds a NUL character or a lone surrogate."""


def loads_checked(raw: str | bytes) -> Any:
    """``json.loads`` for input from outside; raise ``MalformedJson`` or ``InvalidText``."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError:
        raise MalformedJson(f"JSON is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:  # JSONDecodeError, UnicodeDecodeError, an over-long integer
        raise MalformedJson("not valid JSON") from None
    _check(value)
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _check(value: Any) -> None:
    """Walk the value without recursion: depth first, every string and key checked."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, dict | list) and depth > MAX_JSON_DEPTH:
            raise MalformedJson(f"JSON is nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(node, dict):
            for key, item in node.items():
                _check_string(key)
                pending.append((item, depth + 1))
        elif isinstance(node, list):
            pending.extend((item, depth + 1) for item in node)
        elif isinstance(node, str):
            _check_string(node)


def _check_string(text: str) -> None:
    found = _UNSTORABLE.search(text)
    if found is not None:
        what = "a NUL character" if found.group() == "\x00" else "an unpaired surrogate"
        raise InvalidText(f"text must not contain {what}")
