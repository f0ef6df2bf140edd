"""What an approver's edit changed, field by field, for people to read.

Pure: no Django. A field that holds a list of names (``to``) is shown as who was added and who
was removed, because "Kim, Lee, Park → Kim, Park" hides the one that matters; any other field
is shown as its old and new text. Fields the edit left alone are not listed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from dataclasses import field as default
from typing import Any


@dataclass(frozen=True)
class FieldChange:
    """One changed argument. A list change fills ``added``/``removed`` (``before``/``after``
    are None); any other change fills ``before``/``after`` as text (None: the field was
    missing or null)."""

    field: str
    before: str | None = None
    after: str | None = None
    added: list[str] = default(default_factory=list)
    removed: list[str] = default(default_factory=list)

    def as_payload(self) -> dict[str, Any]:
        return asdict(self)


def argument_changes(before: dict[str, Any], after: dict[str, Any]) -> list[FieldChange]:
    """The fields whose value differs between ``before`` and ``after``, in the order the
    arguments list them (``after``'s, then fields only ``before`` had)."""
    names = list(after) + [name for name in before if name not in after]
    changes = []
    for name in names:
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        changes.append(_change(name, old, new))
    return changes


def _change(name: str, old: Any, new: Any) -> FieldChange:
    if _is_names(old) and _is_names(new):
        old_items, new_items = [str(i) for i in old or []], [str(i) for i in new or []]
        added = [item for item in new_items if item not in old_items]
        removed = [item for item in old_items if item not in new_items]
        if added or removed:
            return FieldChange(name, added=added, removed=removed)
        # Same names in another order: only the order changed, so show both orders.
    return FieldChange(name, before=_text(old), after=_text(new))


def _is_names(value: Any) -> bool:
    return value is None or (
        isinstance(value, list) and all(isinstance(item, str | int) for item in value)
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str | int) for item in value):
        return ", ".join(str(item) for item in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
