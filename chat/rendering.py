"""Assistant text → HTML that is safe whatever the model wrote.

Two layers, so a mistake in one is caught by the other:

1. markdown-it renders CommonMark with raw HTML *disabled*: ``<script>`` in the text becomes
   visible text, not a tag. Images become plain links (an external image would otherwise be
   fetched by the browser as soon as the reply appears, telling a third party who read it).
2. nh3 (ammonia) sanitises the result against an allowlist: no scripts, no event handlers, no
   ``style`` (the page's CSP would refuse it anyway), links only to http(s)/mailto and always
   ``rel="noopener noreferrer nofollow"``.

Code blocks are kept (``<pre><code class="language-…">``) and shown as text.
"""

from __future__ import annotations

from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from chat.snippets import ELLIPSIS, SNIPPET_MAX_CHARS, word_snippet

ALLOWED_TAGS = {
    "a",
    "blockquote",
    "br",
    "code",
    "del",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "span",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "class"},
    "code": {"class"},
    "ol": {"start"},
    "span": {"class"},
}
URL_SCHEMES = {"http", "https", "mailto"}


def _image_as_link(
    self: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    label = nh3.clean_text(f"image: {alt}")
    if not src:
        return label
    return f'<a class="external-image" href="{nh3.clean_text(src)}">{label}</a>'


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table").enable("strikethrough")
    md.add_render_rule("image", _image_as_link)
    return md


_MD = _markdown()


def render_markdown(text: str) -> str:
    """Sanitised HTML for ``text``; safe to mark as safe in a template."""
    return sanitize_html(_MD.render(text or ""))


def sanitize_html(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def citation_chips(citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Citations as the template shows them, numbered and with only what the page needs:
    the document's title, a snippet cut where a word ends, and the ids the link needs."""
    chips = []
    for citation in citations or []:
        number = citation.get("n")
        if not isinstance(number, int):
            continue
        chips.append(
            {
                "n": number,
                "title": str(citation.get("title") or "Untitled"),
                "snippet": _snippet(str(citation.get("snippet") or "")),
                "document": _id(citation.get("document")),
                "chunk": _id(citation.get("chunk")),
            }
        )
    return chips


def _snippet(stored: str) -> str:
    # Citations stored before snippets were cut at a word kept the first 240 characters as
    # they were, often mid-word: drop that last partial word and mark the cut.
    if len(stored) >= SNIPPET_MAX_CHARS and not stored.endswith(ELLIPSIS):
        return word_snippet(stored, limit=len(stored) - 1)
    return word_snippet(stored)


def _id(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
