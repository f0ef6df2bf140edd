"""Tenant tool policies: the row a tool's rules live in, created with defaults on first use."""

from __future__ import annotations

from actions.models import ToolPolicy


def tool_policy_get_or_create(*, tool_name: str) -> ToolPolicy:
    """The current tenant's policy for ``tool_name``; a missing row is created with defaults
    (enabled, the approver role approves, no self-approval, 50 recipients)."""
    policy, _ = ToolPolicy.objects.get_or_create(tool_name=tool_name)
    return policy
