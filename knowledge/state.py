"""Reads of the knowledge base's version and the tenant admin's knowledge settings.

Both are one-row tables in the tenant's schema (knowledge/models.py), read by primary key:
cheap enough to ask on every turn. Neither read writes: a missing row means "no version yet"
and "defaults".
"""

from __future__ import annotations

from knowledge.models import KnowledgeBaseVersion, KnowledgeSettings


def kb_version() -> str | None:
    """A string that changes whenever any document of this tenant is created, edited, deleted,
    switched off or reindexed; None when no document was ever stored (nothing to cache)."""
    row = KnowledgeBaseVersion.objects.filter(pk=1).values_list("epoch", "counter").first()
    return None if row is None else f"{row[0]}:{row[1]}"


def knowledge_settings() -> KnowledgeSettings:
    """This tenant's settings; an unsaved row with the defaults when the admin never saved one."""
    return KnowledgeSettings.objects.filter(pk=1).first() or KnowledgeSettings()
