"""The knowledge-base search query for a chat message (pure: no Django).

Staff paste a parent's e-mail and ask about it at the end, so the raw message can be 4,000
characters of mostly context. Searching with all of it drowns the question (and once broke
the search tool's 500-character limit). The query is the message's last question sentence
plus the message's most frequent content words, bounded to ``MAX_QUERY_CHARS``.
"""

from __future__ import annotations

import re
from collections import Counter

from chat.builtin_model.sentences import split_sentences

MAX_QUERY_CHARS = 300
KEY_TERMS = 8
_WORD = re.compile(r"[^\W_]{3,}|[\uac00-\ud7af]{2,}", re.UNICODE)
_QUESTION_MARK = re.compile(r"[?？]")  # noqa: RUF001
# Korean questions often end without "?": …나요, …까, …니, …어/아요, …지.
_KOREAN_QUESTION_END = re.compile(r"(나요|까요?|니|는지|인가요|어요|아요|죠|지요)[.!\s]*$")
_STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "was",
        "were",
        "this",
        "that",
        "with",
        "from",
        "have",
        "has",
        "had",
        "you",
        "your",
        "our",
        "their",
        "they",
        "them",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "how",
        "why",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "please",
        "tell",
        "about",
        "into",
        "over",
        "than",
        "then",
        "there",
        "here",
        "some",
        "any",
        "all",
        "not",
        "but",
        "just",
        "also",
        "very",
        "dear",
        "thanks",
        "thank",
        "regards",
        "hello",
        "best",
        "kind",
        "wishes",
        "sincerely",
        "let",
        "know",
        "does",
        "did",
        "been",
        "being",
        "its",
    ]
)


def derive_search_query(message: str, *, max_chars: int = MAX_QUERY_CHARS) -> str:
    """A bounded search query for ``message``; empty only when the message has no text."""
    text = " ".join(message.replace("\x00", " ").split())
    if len(text) <= max_chars:
        return text
    question = _last_question(text)[:max_chars]
    terms = [t for t in _key_terms(text) if t.lower() not in question.lower()]
    query = question
    for term in terms:
        if len(query) + 1 + len(term) > max_chars:
            break
        query = f"{query} {term}".strip()
    return query


def _last_question(text: str) -> str:
    sentences = split_sentences(text)
    for sentence in reversed(sentences):
        if _QUESTION_MARK.search(sentence) or _KOREAN_QUESTION_END.search(sentence):
            return sentence
    return sentences[-1] if sentences else ""


def _key_terms(text: str) -> list[str]:
    counts = Counter(word.lower() for word in _WORD.findall(text) if word.lower() not in _STOPWORDS)
    return [word for word, _ in counts.most_common(KEY_TERMS)]
