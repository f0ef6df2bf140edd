"""Versioned assistant prompts: an edit is a new version; exactly one version is active."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from chat.models import AssistantPrompt


@transaction.atomic
def assistant_prompt_publish(*, text: str, user: User | None) -> AssistantPrompt:
    """Store ``text`` as the next version and make it the active one (used from the next turn)."""
    if not text.strip():
        raise ValueError("the prompt is empty")
    # Lock the table's rows so two admins publishing at once get distinct version numbers.
    list(AssistantPrompt.objects.select_for_update().values_list("pk", flat=True))
    latest = AssistantPrompt.objects.aggregate(latest=Max("version"))["latest"] or 0
    AssistantPrompt.objects.filter(is_active=True).update(is_active=False)
    return AssistantPrompt.objects.create(
        version=latest + 1,
        text=text,
        is_active=True,
        created_by=user,
    )


@transaction.atomic
def assistant_prompt_activate(*, prompt: AssistantPrompt) -> None:
    """Roll back (or forward) to an existing version."""
    AssistantPrompt.objects.filter(is_active=True).exclude(pk=prompt.pk).update(is_active=False)
    AssistantPrompt.objects.filter(pk=prompt.pk).update(is_active=True)
