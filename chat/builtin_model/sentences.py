"""The sentences of a retrieved passage, rebuilt across hard line breaks (pure: no Django).

Documents are often wrapped at a fixed width, so a sentence spans several lines; splitting
at every newline (as the first offline model did) cut answers exactly where the source
wrapped ("Guests use "Guest" with"). Here lines are joined back into paragraphs first and
only then cut at sentence ends. Headings and list items stay units of their own: a heading
is context for the sentences under it, never an answer by itself.

A chunk may begin or end inside a sentence (chunks overlap at a word, and very long runs are
cut at a space); such a piece is marked incomplete so an answer never quotes a fragment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

UnitKind = Literal["heading", "item", "sentence"]

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+•·]|\d{1,3}[.)])\s+(.*)$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
# A sentence ends at . ! ? … (with closing quotes or brackets) before whitespace, or right
# after full-width marks, which CJK text writes without a following space.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|[。！？]+[」』”’)]*")  # noqa: RUF001
_TERMINAL = re.compile(r"[.!?…。！？][\"'”’)\]」』]*$")  # noqa: RUF001
_ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "mr", "mrs", "ms", "dr", "st", "vs", "etc", "no", "approx", "jr", "sr", "fig"]
)
_DOTTED_INITIALS = re.compile(r"(?:[a-z]\.)+[a-z]")
_GOES_ON = re.compile(r"\s+[a-z0-9]")
# Han and kana are written without spaces between words; Hangul and Latin are not.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a passage.

    ``heading`` is the nearest heading above it (context for ranking, not part of the
    quote); ``complete`` is false for a piece the chunk cut off at its start or end.
    """

    text: str
    kind: UnitKind
    heading: str = ""
    complete: bool = True


def passage_units(text: str) -> list[Unit]:
    """Headings, list items and sentences of ``text``, in reading order."""
    units: list[Unit] = []
    heading = ""
    for kind, block in _blocks(text):
        if kind == "heading":
            heading = block
            units.append(Unit(block, "heading", heading))
        elif kind == "item":
            units.append(Unit(block, "item", heading))
        else:
            units.extend(Unit(s, "sentence", heading) for s in split_sentences(block))
    return _mark_cut_ends(units)


def split_sentences(paragraph: str) -> list[str]:
    """Cut one paragraph (no line breaks) at sentence ends, keeping abbreviations whole."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(paragraph):
        if _is_abbreviation(paragraph[start : match.end()], paragraph[match.end() :]):
            continue
        piece = paragraph[start : match.end()].strip()
        if piece:
            sentences.append(piece)
        start = match.end()
    rest = paragraph[start:].strip()
    if rest:
        sentences.append(rest)
    return sentences


# "remind me who the class A parents are", "can you remind me what the wifi is called": asking to
# be told a fact again. With a time ("remind me at 4 what …", "… tomorrow") it is a reminder.
REMIND_ME_OF_A_FACT = re.compile(
    r"\b(?:(?:can|could|would) you\s+)?(?:please\s+)?remind me(?: again)?,?\s+"
    # "…remind me of the telephone number we hold for Mr Taylor?": a fact, not a reminder
    r"(?=(?:who|what|which|where|whether|if|how)\b|of (?:the|his|her|their|its|our)\b)"
    r"(?!.*(?:\d|\b(?:tomorrow|tonight|later|this (?:morning|afternoon|evening)|next|"
    r"in an? (?:hour|minute)|on (?:mon|tues|wednes|thurs|fri|satur|sun)day)\b))",
    re.IGNORECASE,
)


def without_remind_me(text: str) -> str:
    """The question a message opening with "remind me who/what …" asks; ``text`` otherwise."""
    found = REMIND_ME_OF_A_FACT.search(text)
    if found is None or re.search(r"\w", text[: found.start()]):
        return text
    return text[found.end() :]


def asking_sentence(text: str) -> str:
    """ "Sorry, what's the number we have for Emma? She's at the desk asking.": the message up to
    the sentence that asks, when it explains after it (the whole message otherwise)."""
    sentences = split_sentences(text.strip())
    for end, sentence in enumerate(sentences[:-1], start=1):
        if sentence.endswith("?"):
            return " ".join(sentences[:end])
    return text


def is_terminated(text: str) -> bool:
    """Whether ``text`` ends with sentence-final punctuation."""
    return bool(_TERMINAL.search(text.rstrip()))


def _is_abbreviation(piece: str, following: str) -> bool:
    if not piece.endswith("."):
        return False
    last = piece[:-1].rsplit(None, 1)[-1].lower() if piece[:-1].strip() else ""
    # "e.g." and "Dr." and an initial such as "J." do not end a sentence; nor do dotted
    # initials ("U.S.", "a.m.") when the sentence goes on in lower case ("eight U.S. presidents").
    if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
        return True
    return bool(_DOTTED_INITIALS.fullmatch(last)) and bool(_GOES_ON.match(following))


def _blocks(text: str) -> list[tuple[str, str]]:
    """(kind, text) blocks: headings, list items, table rows and joined paragraphs."""
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    current_kind = "paragraph"

    def flush() -> None:
        nonlocal current
        if current:
            blocks.append((current_kind, _join_lines(current)))
        current = []

    for raw in text.splitlines():
        line = raw.strip()
        heading, item = _HEADING.match(raw), _ITEM.match(raw)
        if not line or (_TABLE_RULE.match(raw) and "-" in raw):
            flush()
        elif heading or _TABLE_ROW.match(raw):
            flush()
            blocks.append(("heading" if heading else "item", heading.group(1) if heading else line))
        elif item:
            flush()
            current, current_kind = [item.group(1).strip()], "item"
        else:
            if not current:
                current_kind = "paragraph"
            current.append(line)
    flush()
    return [(kind, block) for kind, block in blocks if block]


def _join_lines(lines: list[str]) -> str:
    joined = lines[0]
    for line in lines[1:]:
        unspaced = _UNSPACED.match(joined[-1:]) and _UNSPACED.match(line[:1])
        if joined.endswith("-") and not joined.endswith(" -") and line[:1].islower():
            joined = joined[:-1] + line  # a word hyphenated at the line end
        else:
            joined += ("" if unspaced else " ") + line
    return joined


def _mark_cut_ends(units: list[Unit]) -> list[Unit]:
    """Mark the first and last sentence incomplete where the chunk cut through them."""
    if not units:
        return units
    first, last = units[0], units[-1]
    if first.kind == "sentence" and first.text[:1].islower():
        units[0] = Unit(first.text, first.kind, first.heading, complete=False)
    if last.kind == "sentence" and not is_terminated(last.text):
        units[-1] = Unit(last.text, last.kind, last.heading, complete=False)
    return units
