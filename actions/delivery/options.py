"""Reading a backend's string settings, checked up front (shared by every channel module)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off", ""})


def required(config: Mapping[str, str], key: str) -> str:
    value = config.get(key, "").strip()
    if not value:
        raise ValueError(f"{key} is required")
    return value


def url(config: Mapping[str, str], key: str, default: str) -> str:
    value = config.get(key, "").strip() or default
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"{key} must be an http:// or https:// URL, got {value!r}")
    return value


def seconds(config: Mapping[str, str], key: str, default: float) -> float:
    raw = config.get(key, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError(f"{key} must be a positive number of seconds, got {raw!r}")
    return value


def port(config: Mapping[str, str], key: str, default: int) -> int:
    raw = config.get(key, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ValueError(f"{key} must be a port number between 1 and 65535, got {raw!r}")
    return int(raw)


def flag(config: Mapping[str, str], key: str) -> bool:
    raw = config.get(key, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ValueError(f"{key} must be true or false (1/0, yes/no, on/off), got {config[key]!r}")
