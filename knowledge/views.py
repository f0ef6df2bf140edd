"""HTTP API of the knowledge base: ``GET /api/kb/search/?q=…&k=5``."""

from __future__ import annotations

from dataclasses import asdict

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from knowledge.selectors import MAX_K, SearchInputError, kb_search

MAX_QUERY_CHARS = 1000


@require_GET
def search(request: HttpRequest) -> JsonResponse:
    """Ranked chunks for ``q`` (``k`` hits, default 5, at most 50), with their three scores.

    Session-authenticated for now; 401 JSON when anonymous, 400 JSON for a bad ``q`` or ``k``.
    """
    if not request.user.is_authenticated:
        return JsonResponse({"error": "authentication required"}, status=401)
    query = request.GET.get("q", "").strip()
    if len(query) > MAX_QUERY_CHARS:
        return JsonResponse(
            {"error": f"q must be at most {MAX_QUERY_CHARS} characters"}, status=400
        )
    try:
        k = int(request.GET.get("k", "5"))
    except ValueError:
        return JsonResponse({"error": f"k must be an integer between 1 and {MAX_K}"}, status=400)
    try:
        result = kb_search(query=query, k=k)
    except SearchInputError as error:
        return JsonResponse({"error": str(error)}, status=400)
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
