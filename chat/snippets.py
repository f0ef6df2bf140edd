"""Citation snippets: the start of a cited passage, cut where a word ends (no Django here)."""

from __future__ import annotations

SNIPPET_MAX_CHARS = 240
ELLIPSIS = "…"


def word_snippet(text: str, limit: int = SNIPPET_MAX_CHARS) -> str:
    """``text`` with its whitespace collapsed, or its first ``limit`` characters at most, cut
    after the last whole word and ended with an ellipsis so it reads as cut. A single word
    longer than the limit is cut inside it (there is no better place)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    room = limit - len(ELLIPSIS)
    head = flat[: room + 1]  # one more: is the character after the cut a space?
    if head[-1] == " ":
        kept = head.rstrip()
    else:
        space = head.rfind(" ")
        kept = head[:space].rstrip() if space > 0 else flat[:room]
    kept = kept.rstrip(" ,;:-\u2013\u2014")  # no dangling comma or dash
    # After a whole sentence the ellipsis stands apart ("next year. …", not "year.…").
    return f"{kept} {ELLIPSIS}" if kept.endswith((".", "!", "?")) else kept + ELLIPSIS
