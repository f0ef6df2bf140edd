"""Text normalisation for full-text search, done in Python; no Django imports.

Why PostgreSQL's ``simple`` configuration over text folded here, and not a language
configuration or ``pg_trgm``:

* A tenant's documents and questions come in several languages, often mixed, and the language
  of a short question cannot be detected reliably. A stemming configuration (``english``,
  ``spanish``) applied to the wrong language mangles words ("días" → "dí"), while ``simple``
  only lower-cases, so it never does worse than exact word matching in any language.
* The embedded PostgreSQL has neither ``pg_trgm`` nor ``unaccent``, so accent folding happens
  here (identically for documents and queries): "politica" finds "política".
* Korean attaches particles to words ("휴가를", "휴가는"): query words in Hangul lose a trailing
  particle and match as prefixes (``휴가:*``).
* ``simple`` keeps stopwords; the query drops the common ones (several languages) and the
  ranking weighs every remaining word by its inverse document frequency, read from the
  schema's term statistics (``knowledge_term``, knowledge/selectors.py), so frequent words
  count for little.

docs/performance.md has the retrieval quality this gives on SQuAD.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Latin letters with diacritics fold to their base letter; other scripts are left alone
# (decomposing Hangul syllables into jamo would break matching).
_LATIN_RANGE = re.compile(r"[\u00c0-\u024f\u1e00-\u1eff]")
_SPECIAL_FOLDS = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d"})
# Words as PostgreSQL's parser cuts them for ``to_tsvector``: "_" separates words there too,
# so a query word always names one lexeme that the term statistics can count.
_WORD = re.compile(r"[^\W_]+")
_HANGUL = re.compile(r"[\uac00-\ud7af]")


def _split(words: str) -> list[str]:
    return words.split()


# Common Korean particles and endings, longest first, stripped from the end of query words.
_KOREAN_PARTICLES = tuple(
    sorted(
        _split(
            "은 는 이 가 을 를 에 의 도 로 으로 에서 에게 와 과 께서 부터 까지 이나 나 란 이란 "
            "입니까 인가요 인가 나요 은요 는요 요"
        ),
        key=len,
        reverse=True,
    )
)
MAX_QUERY_TERMS = 24
_MIN_KOREAN_STEM = 2

STOPWORDS = frozenset(
    _split(
        # English, including question words: every question has them, no passage is about them.
        "a an the and or but of to in on at by for from with without about into over under "
        "is are was were be been being am do does did done have has had having can could "
        "will would shall should may might must not no yes it its this that these those there "
        "here he she they them his her their we our you your i me my what which who whom whose "
        "when where why how as than then so if else also very just any some all each other such "
        "more most much many only own same too s t"
        # Spanish
        " el la los las un una unos unas de del al y o que en es son por para con sin se su sus "
        "lo le les como pero más mas este esta estos estas ese esa qué que cuál cual cuándo "
        "cuando dónde donde cómo quién quien hay ya muy"
        # Portuguese
        " os as um uma uns umas do da dos das no na nos nas em e é ao aos à às pelo pela com "
        "sem seu sua seus suas não nao mais quando onde qual quem porque"
        # French and German, the commonest only
        " le les des du et est une dans pour pas sur au avec ce qui ne "
        "der die das und ist nicht ein eine zu den mit von des auf für im dem"
    )
)


def fold(text: str) -> str:
    """Lower-case, NFC, and strip accents from Latin letters ("Política" → "politica")."""
    text = unicodedata.normalize("NFC", text).lower().translate(_SPECIAL_FOLDS)
    return _LATIN_RANGE.sub(_strip_accent, text)


def _strip_accent(match: re.Match[str]) -> str:
    decomposed = unicodedata.normalize("NFD", match[0])
    return "".join(char for char in decomposed if not unicodedata.combining(char))


@dataclass(frozen=True)
class QueryTerm:
    """One word of a question: the lexeme to look up and whether it matches as a prefix
    (Korean words, whose particles vary: ``휴가`` finds 휴가를 and 휴가는)."""

    lexeme: str
    prefix: bool = False

    @property
    def operand(self) -> str:
        """The ``to_tsquery('simple', …)`` operand: quoted, so no character is an operator."""
        quoted = "'" + self.lexeme.replace("'", "''") + "'"
        return quoted + ":*" if self.prefix else quoted


def query_words(query: str) -> list[QueryTerm]:
    """The words of a question to look up.

    Folded, stopwords dropped, each word once, at most ``MAX_QUERY_TERMS``. Hangul words lose
    a trailing particle and become prefix matches. A query made only of stopwords keeps them,
    so "to be or not to be" still searches for something.
    """
    words = list(dict.fromkeys(_WORD.findall(fold(query))))
    kept = [word for word in words if word not in STOPWORDS] or words
    terms: list[QueryTerm] = []
    for word in kept[:MAX_QUERY_TERMS]:
        term = _term(word)
        if term not in terms:
            terms.append(term)
    return terms


def _term(word: str) -> QueryTerm:
    if _HANGUL.search(word):
        for particle in _KOREAN_PARTICLES:
            # The stem keeps two syllables: many nouns end in a syllable that is also a
            # particle (휴가, 사이, 정도), and a one-syllable prefix (휴:*) would match a good
            # part of the Korean vocabulary, slowly and mostly wrongly.
            if word.endswith(particle) and len(word) - len(particle) >= _MIN_KOREAN_STEM:
                word = word[: -len(particle)]
                break
        return QueryTerm(word, prefix=True)
    return QueryTerm(word)
