"""Typed, checked reads of environment variables.

Every setting of the product comes from the environment through these helpers, so a bad value
stops start-up with one message naming the variable (``DEBUG=maybe`` → "DEBUG must be a
boolean …") instead of surfacing later as a confusing error. No Django imports: settings use it
before Django is configured.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import urlsplit

T = TypeVar("T")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ImproperlyConfiguredEnv(Exception):
    """An environment variable holds a value the product cannot use."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} {problem}")
        self.name = name


def _read(name: str, default: T, parse: Callable[[str], T], expected: str) -> T:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return parse(raw.strip())
    except (ValueError, TypeError):
        raise ImproperlyConfiguredEnv(name, f"must be {expected}, got {raw!r}") from None


def _parse_bool(raw: str) -> bool:
    lowered = raw.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(raw)


def env_bool(name: str, default: bool) -> bool:
    return _read(name, default, _parse_bool, "a boolean (true/false, 1/0, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _read(name, default, int, "an integer")
    if minimum is not None and value < minimum:
        raise ImproperlyConfiguredEnv(name, f"must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    value = _read(name, default, float, "a number")
    if minimum is not None and value < minimum:
        raise ImproperlyConfiguredEnv(name, f"must be at least {minimum}, got {value}")
    return value


def env_str(name: str, default: str) -> str:
    return _read(name, default, str, "a string")


def env_optional(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def env_list(name: str, default: list[str]) -> list[str]:
    def parse(raw: str) -> list[str]:
        return [item.strip() for item in raw.split(",") if item.strip()]

    return _read(name, default, parse, "a comma-separated list")


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default).lower()
    if value not in choices:
        raise ImproperlyConfiguredEnv(name, f"must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_url(name: str, schemes: tuple[str, ...]) -> str | None:
    """An optional URL whose scheme must be one of ``schemes``."""
    value = env_optional(name)
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in schemes or not (parts.netloc or parts.path):
        raise ImproperlyConfiguredEnv(
            name, f"must be a URL starting with {' or '.join(s + '://' for s in schemes)}"
        )
    return value
