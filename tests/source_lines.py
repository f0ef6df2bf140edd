"""Scanning the product's source, for tests that keep one thing in one place."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("chat", "core", "tenants", "knowledge", "actions", "notifications", "config")


def lines_matching(pattern: re.Pattern[str], *, except_in: str | None = None) -> list[str]:
    """``path:line`` of every product source line ``pattern`` finds, outside ``except_in``
    (a path from the repository root)."""
    skipped = ROOT / except_in if except_in else None
    return [
        f"{path.relative_to(ROOT)}:{number}"
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if path != skipped
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if pattern.search(line)
    ]
