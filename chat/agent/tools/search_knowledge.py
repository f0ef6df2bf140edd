"""search_knowledge: hybrid retrieval over the tenant's knowledge base, numbered for citing."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from chat.agent.tools.spec import function_spec

SEARCH_TOOL_NAME = "search_knowledge"
SNIPPET_CHARS = 240


class SearchKnowledgeArgs(BaseModel):
    """Search the organisation's knowledge base (policies, FAQs, procedures). Returns numbered
    passages; cite them as [n] in the answer."""

    query: str = Field(min_length=1, max_length=500, description="what to look for")
    k: int = Field(default=5, ge=1, le=10, description="how many passages")


def search_knowledge_spec() -> dict[str, Any]:
    description = (SearchKnowledgeArgs.__doc__ or "").strip()
    return function_spec(SEARCH_TOOL_NAME, description, SearchKnowledgeArgs)


def run_search_knowledge(
    arguments: dict[str, Any], *, first_n: int
) -> tuple[str, list[dict[str, Any]]]:
    """(tool message content, new sources) — passages numbered from ``first_n``."""
    from knowledge.selectors import kb_search

    args = SearchKnowledgeArgs.model_validate(arguments)
    result = kb_search(query=args.query, k=args.k)
    sources = [
        {
            "n": first_n + index,
            "chunk": hit.chunk_id,
            "document": hit.document_id,
            "title": hit.document_title,
            "text": hit.text,
        }
        for index, hit in enumerate(result.hits)
    ]
    content = json.dumps(
        {
            "weak": result.weak,
            "passages": [{"n": s["n"], "title": s["title"], "text": s["text"]} for s in sources],
        },
        ensure_ascii=False,
    )
    return content, sources
