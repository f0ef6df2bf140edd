"""HTTP API of the knowledge base: ``GET /api/kb/search/?q=…&k=5``.

Behind the same edge as every other JSON API of a tenant host (``core.jsonapi.api_view``):
bearer token or session, and the ``{"error": {"code", "message"}}`` shape.
"""

from __future__ import annotations

from dataclasses import asdict

from django.http import HttpRequest, JsonResponse

from core.jsonapi import ApiError, ErrorTable, api_view
from knowledge.selectors import MAX_K, SearchInputError, kb_search

MAX_QUERY_CHARS = 1000
ERRORS: ErrorTable = {SearchInputError: (400, "bad_request")}


@api_view(ERRORS, methods=["GET"])
def search(request: HttpRequest) -> JsonResponse:
    """Ranked chunks for ``q`` (``k`` hits, default 5, at most 50), with their three scores."""
    query = request.GET.get("q", "").strip()
    if len(query) > MAX_QUERY_CHARS:
        raise ApiError(400, "bad_request", f"q must be at most {MAX_QUERY_CHARS} characters")
    if "\x00" in query:
        raise ApiError(400, "invalid_text", "q must not contain NUL characters")
    try:
        k = int(request.GET.get("k", "5"))
    except ValueError:
        raise ApiError(400, "bad_request", f"k must be an integer between 1 and {MAX_K}") from None
    result = kb_search(query=query, k=k)
    return JsonResponse(
        {
            "query": result.query,
            "weak": result.weak,
            "best_distance": result.best_distance,
            "results": [
                {**asdict(hit), "heading_path": list(hit.heading_path)} for hit in result.hits
            ],
        },
        json_dumps_params={"ensure_ascii": False},
    )
