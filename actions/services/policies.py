"""Tenant tool policies: the one writer of the rows a tool's rules live in."""

from __future__ import annotations

from collections.abc import Iterable

from actions.models import ToolPolicy


def tool_policies_create(*, tool_names: Iterable[str]) -> None:
    """Create the current tenant's missing policy rows for ``tool_names`` with the defaults
    (enabled, the approver role approves, no self-approval, 50 recipients); existing rows are
    left as the tenant admin set them."""
    ToolPolicy.objects.bulk_create(
        [ToolPolicy(tool_name=name) for name in tool_names], ignore_conflicts=True
    )


def tool_policy_enable(*, tool_name: str, enabled: bool) -> None:
    """Switch ``tool_name`` on or off for the current tenant, keeping its other rules."""
    ToolPolicy.objects.update_or_create(tool_name=tool_name, defaults={"enabled": enabled})
