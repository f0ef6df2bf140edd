"""search_knowledge: hybrid retrieval over the tenant's knowledge base, numbered for citing."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from actions.tools.base import ReadContext, ReadResult, ReadTool

SEARCH_TOOL_NAME = "search_knowledge"
SNIPPET_CHARS = 240


class SearchKnowledgeArgs(BaseModel):
    """Search the organisation's knowledge base (policies, FAQs, procedures). Returns numbered
    passages; cite them as [n] in the answer."""

    query: str = Field(min_length=1, max_length=500, description="what to look for")
    k: int = Field(default=5, ge=1, le=10, description="how many passages")


class SearchKnowledge(ReadTool[SearchKnowledgeArgs]):
    """Search the organisation's knowledge base (policies, FAQs, procedures). Returns numbered
    passages; cite them as [n] in the answer."""

    name = SEARCH_TOOL_NAME
    label = "Search the knowledge base"
    stage = "searching"
    args_schema = SearchKnowledgeArgs

    def run(self, arguments: dict[str, Any], ctx: ReadContext) -> ReadResult:
        """Passages numbered from ``ctx.first_source``.

        Unusable arguments (a blank or over-long query from a model) come back as an
        ``error`` for the model to repair instead of failing the whole turn.
        """
        from knowledge.selectors import SearchInputError, kb_search

        try:
            args = SearchKnowledgeArgs.model_validate(arguments)
            result = kb_search(query=args.query, k=args.k)
        except (ValidationError, SearchInputError) as error:
            return ReadResult(json.dumps({"error": _first_problem(error), "passages": []}))
        return _passages(result, first_n=ctx.first_source)


def _passages(result: Any, *, first_n: int) -> ReadResult:
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
    return ReadResult(content, sources)


def _first_problem(error: Exception) -> str:
    if isinstance(error, ValidationError):
        problem = error.errors()[0]
        field = ".".join(str(part) for part in problem["loc"]) or "arguments"
        return f"{field}: {problem['msg']}"
    return str(error)
