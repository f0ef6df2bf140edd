"""Extractive answers from retrieved passages: right or absent (pure: no Django).

The offline model answers by quoting. Quoting the sentences that merely share most words with
the question picked "Passwords must be at least 14 characters long" for "How long is
bereavement leave?" ("long"), so candidates are ranked by meaning as well:

    score = cosine(question, heading + sentence)       # e5, asymmetric query/passage
          + LEXICAL_WEIGHT · share of question words found in the sentence or its heading
          + RANK_WEIGHT / retrieval rank of its passage

Only complete sentences and list items take part (see sentences.py). The best one must reach
``MIN_SCORE``; up to ``MAX_SENTENCES`` within ``MARGIN`` of it (``NEXT_SENTENCE_MARGIN`` for the
sentence that follows it) are quoted, each passage cited once after its sentences. Nothing
good enough → the caller declines plainly.

The similarity function is passed in (the embedding model is a seam outside this module).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from chat.builtin_model.sentences import Unit, passage_units

# Calibrated on the demo knowledge base and a SQuAD subset (bench/answer_quality.py).
LEXICAL_WEIGHT = 0.12
RANK_WEIGHT = 0.02
MIN_SCORE = 0.86
# A sentence in another language than the question's must also stand this many standard
# deviations above ordinary sentences of its language, as the question sees them
# (knowledge/crosslingual.py ``standing``): no word of the question can confirm its subject
# (the lexical share is nil across languages), so meaning alone must. Measured on the blind
# dev half: Korean questions' answers in English stood 3.5 to 4.3 above, unrelated Spanish
# sentences up to 3.8 ("교직원 주차 요금" → the Madrid leave days). A sentence in the
# question's language is judged as before (``MIN_SCORE`` with its lexical share).
MIN_STANDING_ACROSS = 3.8
MARGIN = 0.025
# The sentence right after the best one often finishes its thought ("… Your line manager
# approves …"), so it may trail the best by more than an unrelated sentence.
NEXT_SENTENCE_MARGIN = 0.06
MAX_SENTENCES = 2
# Enough for five retrieved passages of five sentences that share a word with the question
# (12 cut the answering sentence off for 3% of a SQuAD tuning subset; 14 and more cut none).
MAX_CANDIDATES = 16
MIN_CHARS = 12

Similarity = Callable[[str, Sequence[str]], Sequence[float]]
"""(question, texts) → cosine similarity of each text to the question."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Korean particles glued to a noun ("연락처가", "휴가는"): strip them to compare stems.
_JOSA = re.compile(r"(은|는|이|가|을|를|의|에|에서|에게|으로|로|와|과|도|만|까지|부터|이나|나)$")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "to",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "what",
        "when",
        "where",
        "who",
        "how",
        "which",
        "do",
        "does",
        "did",
        "can",
        "could",
        "i",
        "we",
        "you",
        "my",
        "our",
        "your",
        "it",
        "its",
        "this",
        "that",
        "with",
        "at",
        "by",
        "from",
        "as",
        "about",
        "please",
        "tell",
        "me",
        "there",
        "their",
        "they",
        "much",
        "many",
        "long",
    ]
)


@dataclass(frozen=True)
class Candidate:
    """A quotable unit of the passage cited as ``[n]``, retrieved at ``rank`` (1 = best)."""

    n: int
    rank: int
    position: int
    unit: Unit

    @property
    def embedded_text(self) -> str:
        heading = self.unit.heading
        return (
            f"{heading}: {self.unit.text}"
            if heading and heading != self.unit.text
            else self.unit.text
        )


@dataclass(frozen=True)
class Answer:
    """The quoted reply (empty when nothing is relevant enough) and the passages it cites."""

    text: str
    cited: tuple[int, ...]


def content_words(text: str) -> set[str]:
    """Lower-cased words without stopwords, Korean particles or a plural "s"."""
    words = set()
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS:
            continue
        word = _JOSA.sub("", word) if len(word) > 2 and not word.isascii() else word
        if word.isascii() and len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return words


def candidates(passages: Sequence[dict[str, Any]], question: str) -> list[Candidate]:
    """Quotable units of the passages, those sharing a word with the question first, capped."""
    wanted = content_words(question)
    found = [
        Candidate(n=int(p["n"]), rank=rank, position=position, unit=unit)
        for rank, p in enumerate(passages, start=1)
        for position, unit in enumerate(passage_units(str(p.get("text", ""))))
        if unit.kind != "heading" and unit.complete and len(unit.text) >= MIN_CHARS
    ]
    found.sort(key=lambda c: (not wanted & content_words(c.embedded_text), c.rank, c.position))
    return found[:MAX_CANDIDATES]


def lexical_share(question: str, candidate: Candidate) -> float:
    wanted = content_words(question)
    if not wanted:
        return 0.0
    in_sentence = _found(wanted, content_words(candidate.unit.text))
    in_heading = _found(wanted, content_words(candidate.unit.heading)) - in_sentence
    return (len(in_sentence) + 0.5 * len(in_heading)) / len(wanted)


# A word typed with one letter slipped still names the same thing: "pasword", "charcters"
# ("new pasword keeps getting rejected, how many charcters …" found the rule on passwords and
# fell short of ``MIN_SCORE`` only for want of those two words). Short words are left exact:
# one letter turns "form" into "from".
MIN_SLIPPED_LENGTH = 6


def _found(wanted: set[str], words: set[str]) -> set[str]:
    exact = wanted & words
    slipped = {
        word
        for word in wanted - exact
        if len(word) >= MIN_SLIPPED_LENGTH
        and word.isascii()
        and any(_one_edit_apart(word, other) for other in words if other[:1] == word[:1])
    }
    return exact | slipped


def _one_edit_apart(a: str, b: str) -> bool:
    """One letter left out, added or changed, or two next to each other swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    if len(a) < MIN_SLIPPED_LENGTH:
        return False  # "classe" ("classes" less its "s") is not "class" with a letter added
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]
    if len(a) <= MIN_SLIPPED_LENGTH:
        return False  # "police" and "policy" are two words, one letter apart
    swapped = a[i + 1 : i + 2] + a[i : i + 1] == b[i : i + 2] and a[i + 2 :] == b[i + 2 :]
    return a[i + 1 :] == b[i + 1 :] or swapped


def compose_answer(
    question: str,
    passages: Sequence[dict[str, Any]],
    *,
    similarity: Similarity,
    min_score: float = MIN_SCORE,
) -> Answer:
    """The few sentences of ``passages`` that answer ``question``, cited; or an empty answer.

    ``min_score`` is the bar the best sentence must reach (callers raise it when retrieval
    already signalled a weak match)."""
    pool = candidates(passages, question)
    if not pool:
        return Answer("", ())
    similarities = similarity(question, [c.embedded_text for c in pool])
    scored = sorted(
        (
            (sim + LEXICAL_WEIGHT * lexical_share(question, c) + RANK_WEIGHT / c.rank, c)
            for sim, c in zip(similarities, pool, strict=True)
        ),
        key=lambda item: -item[0],
    )
    best, top = scored[0]
    if best < min_score:
        return Answer("", ())
    chosen = [c for score, c in scored if score >= max(min_score, best - _margin(top, c))]
    return _quote(chosen[:MAX_SENTENCES])


def _margin(top: Candidate, candidate: Candidate) -> float:
    follows = candidate.n == top.n and candidate.position == top.position + 1
    return NEXT_SENTENCE_MARGIN if follows else MARGIN


def _quote(chosen: list[Candidate]) -> Answer:
    """Sentences in the order chosen, kept together per passage, each passage cited once."""
    by_passage: dict[int, list[Candidate]] = {}
    for candidate in chosen:
        by_passage.setdefault(candidate.n, []).append(candidate)
    parts = []
    for n, group in by_passage.items():
        sentences = " ".join(c.unit.text for c in sorted(group, key=lambda c: c.position))
        parts.append(f"{sentences} [{n}]")
    return Answer(" ".join(parts), tuple(by_passage))
