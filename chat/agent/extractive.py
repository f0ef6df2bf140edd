"""Extractive answers from retrieved passages: right or absent (pure: no Django).

The offline model answers by quoting. Quoting the sentences that merely share most words with
the question picked "Passwords must be at least 14 characters long" for "How long is
bereavement leave?" ("long"), so candidates are ranked by meaning as well:

    score = cosine(question, heading + sentence)       # e5, asymmetric query/passage
          - mean cosine of the candidates written in the same script
          + LEXICAL_WEIGHT · share of question words found in the sentence or its heading
          + RANK_WEIGHT / retrieval rank of its passage

The subtraction is what lets meaning cross languages. e5 places every Korean sentence closer to
a Korean question than almost any English one, whatever either says ("작은 부상이라도 보고서를
작성하십시오" outscored the password rule for "비밀번호는 최소 몇 자?"), so a raw cosine picks
the question's language, not its answer. Measured against the other sentences of its own
script, a sentence scores for how much closer it is than its neighbours: the fact stands out
in whichever language the document is written. The same relative score is the decline rule:
a sentence that does not stand out by ``MIN_SCORE`` from the rest of the retrieved text is not
an answer, however high its raw cosine (a cited wrong fact is worse than a decline).

Every complete sentence and list item of the retrieved passages takes part (see
sentences.py), up to ``MAX_CANDIDATES``; their vectors are memoised by the caller, so a
passage is embedded once per process. Up to ``MAX_SENTENCES`` within ``MARGIN`` of the best
(``NEXT_SENTENCE_MARGIN`` for the sentence that follows it) are quoted, each passage cited
once after its sentences. Nothing good enough → the caller declines plainly.

The similarity function is passed in (the embedding model is a seam outside this module).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from chat.agent.sentences import Unit, passage_units

# Calibrated on the knowledge cases of the blind dev half and the demo set (docs/agent.md,
# "Knowledge answers"): 0.07 is where cited wrong facts fell to a few percent without
# declining questions the documents answer.
LEXICAL_WEIGHT = 0.06
RANK_WEIGHT = 0.02
MIN_SCORE = 0.07
# The raw-cosine bar when a single passage came back (nothing to stand out from).
SINGLE_PASSAGE_MIN_SCORE = 0.86
MARGIN = 0.025
# The sentence right after the best one often finishes its thought ("… Your line manager
# approves …"), so it may trail the best by more than an unrelated sentence.
NEXT_SENTENCE_MARGIN = 0.06
MAX_SENTENCES = 2
# Enough for every sentence of five retrieved passages: a cap by shared words would drop
# exactly the sentences of a document in another language.
MAX_CANDIDATES = 64
# A script with fewer candidates than this is measured against the whole pool instead.
MIN_SCRIPT_GROUP = 3
MIN_CHARS = 12

Similarity = Callable[[str, Sequence[str]], Sequence[float]]
"""(question, texts) → cosine similarity of each text to the question."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_HAN_OR_KANA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
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
    in_sentence = wanted & content_words(candidate.unit.text)
    in_heading = (wanted & content_words(candidate.unit.heading)) - in_sentence
    return (len(in_sentence) + 0.5 * len(in_heading)) / len(wanted)


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
    raw = [float(s) for s in similarity(question, [c.embedded_text for c in pool])]
    if len({c.n for c in pool}) == 1:
        # One passage: its sentences share one topic and one language, so the answer need not
        # stand out from them; closeness itself is the bar there (a one-document base).
        relative, min_score = raw, min_score - MIN_SCORE + SINGLE_PASSAGE_MIN_SCORE
    else:
        relative = relative_similarities(raw, [script(c.unit.text) for c in pool])
    scored = sorted(
        (
            (sim + LEXICAL_WEIGHT * lexical_share(question, c) + RANK_WEIGHT / c.rank, c)
            for sim, c in zip(relative, pool, strict=True)
        ),
        key=lambda item: -item[0],
    )
    best, top = scored[0]
    if best < min_score:
        return Answer("", ())
    chosen = [c for score, c in scored if score >= max(min_score, best - _margin(top, c))]
    return _quote(chosen[:MAX_SENTENCES])


def script(text: str) -> str:
    """The writing system of ``text``: e5's language bias follows it ("ko", "cjk", "latin")."""
    if _HANGUL.search(text):
        return "ko"
    return "cjk" if _HAN_OR_KANA.search(text) else "latin"


def relative_similarities(similarities: Sequence[float], scripts: Sequence[str]) -> list[float]:
    """Each similarity minus the mean of those in the same script (see the module docstring).

    A script with fewer than ``MIN_SCRIPT_GROUP`` candidates has no neighbours to measure
    against, so it is measured against the whole pool."""
    overall = sum(similarities) / len(similarities)
    groups: dict[str, list[float]] = {}
    for value, name in zip(similarities, scripts, strict=True):
        groups.setdefault(name, []).append(value)
    means = {
        name: sum(values) / len(values) if len(values) >= MIN_SCRIPT_GROUP else overall
        for name, values in groups.items()
    }
    return [value - means[name] for value, name in zip(similarities, scripts, strict=True)]


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
