"""Heading-aware chunking with overlap.

Text is cut at markdown headings first, so a chunk never mixes two sections and
always knows its heading path. Inside a section it is cut at paragraphs, then
sentences, then (for very long runs) at the last space that fits. Every chunk is
an exact slice of the input, so ``char_start``/``char_end`` can highlight it in the
original document.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

Span = tuple[int, int]


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk ready to be stored; ``text == source[char_start:char_end]``."""

    ordinal: int
    text: str
    heading_path: tuple[str, ...]
    char_start: int
    char_end: int
    token_estimate: int
    content_hash: str


@dataclass(frozen=True)
class _Section:
    heading_path: tuple[str, ...]
    start: int
    end: int


_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
# The full-width punctuation below is intended: CJK sentences end without a space,
# and text written without spaces can be hard-split after these marks.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|[。！？]+[」』”’)]*")  # noqa: RUF001
_SOFT_BREAKS = frozenset("，、；：。！？")  # noqa: RUF001
_WIDE_CHAR = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af]")


def chunk_text(text: str, *, size: int = 1200, overlap: int = 150) -> list[ChunkDraft]:
    """Split ``text`` into chunks of at most ``size`` characters.

    Consecutive chunks of one section share up to ``overlap`` characters (the tail
    of the previous chunk, starting at a word) so a fact cut at a boundary is still
    whole in one of them. Chunks with the same content hash are kept once.
    """
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"need size >= 1 and 0 <= overlap < size, got {size=}, {overlap=}")
    drafts: list[ChunkDraft] = []
    seen: set[str] = set()
    for path, start, end in _chunk_spans(text, size, overlap):
        draft = _draft(text, len(drafts), path, start, end)
        if draft.content_hash not in seen:
            seen.add(draft.content_hash)
            drafts.append(draft)
    return drafts


def embedding_text(chunk: ChunkDraft, title: str | None) -> str:
    """The text to embed: "title — heading > heading" on the first line, then the chunk.

    The chunk text leaves headings out; putting them back here lets a chunk that
    only says "10 days" match a question about sick leave.
    """
    context = " — ".join(
        part for part in ((title or "").strip(), " > ".join(chunk.heading_path)) if part
    )
    return f"{context}\n{chunk.text}" if context else chunk.text


def estimate_tokens(text: str) -> int:
    """Rough token count: one per CJK/Hangul character, one per four other characters.

    Four characters per token is the usual rule for English subword tokenizers;
    CJK scripts take about one token per character, so they are counted apart.
    Good enough for context budgets, not for billing.
    """
    wide = len(_WIDE_CHAR.findall(text))
    return max(1, math.ceil((len(text) - wide) / 4) + wide)


def content_hash(text: str, heading_path: tuple[str, ...]) -> str:
    """sha256 of the whitespace-normalised text and its heading path.

    The path is part of the hash because it is part of what gets embedded; the
    same sentence under another heading is a different chunk.
    """
    normalised = " ".join(unicodedata.normalize("NFC", text).split())
    payload = "\x1f".join(heading_path) + "\x1e" + normalised
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _draft(text: str, ordinal: int, path: tuple[str, ...], start: int, end: int) -> ChunkDraft:
    body = text[start:end]
    return ChunkDraft(
        ordinal=ordinal,
        text=body,
        heading_path=path,
        char_start=start,
        char_end=end,
        token_estimate=estimate_tokens(body),
        content_hash=content_hash(body, path),
    )


def _chunk_spans(text: str, size: int, overlap: int) -> Iterator[tuple[tuple[str, ...], int, int]]:
    for section in _sections(text):
        units = list(_units(text, section.start, section.end, size - overlap))
        for start, end in _pack(text, units, size, overlap):
            yield section.heading_path, start, end


# --- sections -----------------------------------------------------------------------


def _sections(text: str) -> list[_Section]:
    """Cut at ATX headings outside fenced code; heading lines belong to no section."""
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []
    body_start = offset = 0
    fence: str | None = None
    for line in text.split("\n"):
        heading = None if fence else _HEADING.fullmatch(line)
        if heading and heading[2]:
            sections.append(_Section(tuple(title for _, title in path), body_start, offset))
            level = len(heading[1])
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, heading[2]))
            body_start = min(offset + len(line) + 1, len(text))
        else:
            fence = _fence_after(line, fence)
        offset += len(line) + 1
    sections.append(_Section(tuple(title for _, title in path), body_start, len(text)))
    return sections


def _fence_after(line: str, fence: str | None) -> str | None:
    """The open code fence after ``line``: opened, closed or unchanged."""
    if fence is None:
        opening = _FENCE.match(line)
        return opening[1] if opening else None
    stripped = line.strip()
    closes = stripped.startswith(fence) and set(stripped) == {fence[0]}
    return None if closes else fence


# --- units: paragraphs, sentences, hard pieces --------------------------------------


def _units(text: str, start: int, end: int, limit: int) -> Iterator[Span]:
    """Smallest pieces the packer works with, each at most ``limit`` characters."""
    for paragraph in _pieces(text, start, end, _PARAGRAPH_BREAK):
        if paragraph[1] - paragraph[0] <= limit:
            yield paragraph
            continue
        for sentence in _pieces(text, *paragraph, _SENTENCE_END):
            if sentence[1] - sentence[0] <= limit:
                yield sentence
            else:
                yield from _hard_split(text, *sentence, limit)


def _pieces(text: str, start: int, end: int, boundary: re.Pattern[str]) -> Iterator[Span]:
    """Trimmed, non-empty spans of ``text[start:end]`` cut after each boundary match."""
    cuts = [match.end() for match in boundary.finditer(text, start, end)]
    for piece_start, piece_end in zip([start, *cuts], [*cuts, end], strict=True):
        span = _trim(text, piece_start, piece_end)
        if span:
            yield span


def _hard_split(text: str, start: int, end: int, limit: int) -> Iterator[Span]:
    while end - start > limit:
        cut = _word_cut(text, start, start + limit)
        span = _trim(text, start, cut)
        if span:
            yield span
        start = cut
    span = _trim(text, start, end)
    if span:
        yield span


def _word_cut(text: str, start: int, stop: int) -> int:
    """Last position in (start, stop] that does not split a word; ``stop`` if none."""
    for position in range(stop, start, -1):
        if text[position].isspace() or text[position - 1] in _SOFT_BREAKS:
            return position
    return stop


def _trim(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


# --- packing with overlap -----------------------------------------------------------


def _pack(text: str, units: list[Span], size: int, overlap: int) -> Iterator[Span]:
    """Greedily merge consecutive units into chunks of at most ``size`` characters."""
    if not units:
        return
    start, end = units[0]
    for unit_start, unit_end in units[1:]:
        if unit_end - start <= size:
            end = unit_end
            continue
        yield start, end
        start = _overlap_start(text, (start, end), (unit_start, unit_end), size, overlap)
        end = unit_end
    yield start, end


def _overlap_start(text: str, previous: Span, unit: Span, size: int, overlap: int) -> int:
    """Where the chunk starting with ``unit`` begins, reaching back into ``previous``.

    The overlap starts at a word, never before the previous chunk, and is cut
    short when it would push the new chunk past ``size``.
    """
    lower = max(previous[1] - overlap, unit[1] - size, previous[0])
    if lower >= previous[1]:
        return unit[0]
    start = _sentence_start(text, lower, previous[1])
    if start is None:
        start = _word_start(text, lower, previous[1])
    return start if start < previous[1] else unit[0]


def _sentence_start(text: str, position: int, stop: int) -> int | None:
    """Start of the first whole sentence in [position, stop), if there is one."""
    end = _SENTENCE_END.search(text, position, stop)
    trimmed = _trim(text, end.end(), stop) if end else None
    return trimmed[0] if trimmed else None


def _word_start(text: str, position: int, stop: int) -> int:
    """First word start in [position, stop); ``position`` itself when the rest of the
    span has no space (scripts written without spaces), ``stop`` when it is blank."""
    if position > 0 and not text[position - 1].isspace():
        word_end = next((i for i in range(position, stop) if text[i].isspace()), stop)
        if word_end == stop:
            return position
        position = word_end
    trimmed = _trim(text, position, stop)
    return trimmed[0] if trimmed else stop
