"""Whether a name written in Hangul sounds like a name written in Latin letters: "엠마" and
"Emma", "제임스" and "James", "올리버 브라운" and "Oliver Brown". Pure: no Django.

Staff write the English names of contacts in Hangul as they hear them. Vowels and the
epenthetic "으" of such spellings vary too much to compare, so both spellings are reduced to a
*consonant skeleton* in a coarse shared alphabet (voiced and voiceless stops merged, l/r merged,
v/f read as Korean hears them, a final or pre-consonant English r dropped as in 테일러 for
Taylor, doubled letters collapsed) and the skeletons must be equal. A one-consonant skeleton
("엠마" → m) is too weak on its own, so the opening vowel must agree as well ("엄마" is not
Emma). Hangul syllables are decomposed arithmetically (Unicode's Hangul block is algorithmic),
so no transliteration table of whole syllables is needed.
"""

from __future__ import annotations

import re
from functools import lru_cache

_FIRST = 0xAC00  # 가: syllable = _FIRST + (initial * 21 + vowel) * 28 + final
# Initial consonants, vowels and final consonants in Unicode order, as skeleton letters.
_INITIALS = (
    "k", "k", "n", "t", "t", "l", "m", "p", "p", "s", "s", "", "j", "j", "j", "k", "t", "p", "",
)  # fmt: skip
_VOWELS = (
    "a", "e", "a", "e", "o", "e", "o", "e", "o", "wa", "we", "we", "o",
    "u", "o", "we", "wi", "u", "u", "ui", "i",
)  # fmt: skip
_FINALS = (
    "", "k", "k", "k", "n", "n", "n", "t", "l", "l", "l", "l", "l", "l", "l", "l",
    "m", "p", "p", "s", "s", "n", "j", "j", "k", "t", "p", "",
)  # fmt: skip
_HANGUL = re.compile(r"^[가-힣]+$")
_LATIN = re.compile(r"^[a-z]+$")
# English spellings → the skeleton alphabet, longest first.
_ENGLISH = (
    ("tch", "j"), ("ch", "j"), ("sh", "s"), ("ph", "p"), ("th", "t"), ("ck", "k"), ("ng", "n"),
    ("qu", "k"), ("x", "ks"), ("c", "k"), ("g", "k"), ("d", "t"), ("b", "p"), ("v", "p"),
    ("f", "p"), ("z", "j"), ("q", "k"), ("r", "l"),
)  # fmt: skip
_VOWEL_LETTERS = frozenset("aeiouyw")


@lru_cache(maxsize=4096)
def sounds_like(latin: str, hangul: str) -> bool:
    """True when the Hangul word is a plausible spelling of the Latin name (both one word)."""
    latin = latin.lower()
    if not (_LATIN.match(latin) and _HANGUL.match(hangul)) or len(latin) < 3 or len(hangul) < 2:
        return False
    english, korean = _english_skeleton(latin), _korean_skeleton(hangul)
    if not english or english != korean:
        return False
    if len(english) > 2:
        return True
    # Two consonants match many everyday words ("도로", road, is t-l like Taylor): the first
    # vowel must be one Korean ears give that English letter (Taylor 테, Oliver 올, Emma 엠).
    if _korean_first_vowel(hangul) not in _first_vowel_heard_as(latin):
        return False
    return len(english) > 1 or _opening_vowel(latin) == _korean_opening_vowel(hangul)


# The coarse Korean vowels (the last letter of ``_VOWELS``' entry) an English vowel is heard as
# in a name's first syllable: a pair as one vowel (Taylor 테, Raymond 레, Deena 디, Jean 진),
# else by its letter (James 제, Sam 샘; Mike 마, Kim 킴; Duncan 던).
_PAIRS_HEARD_AS = {"ay": "e", "ai": "e", "ey": "e", "ee": "i", "ea": "i"}
_LETTERS_HEARD_AS = {"a": "ae", "e": "ei", "i": "ia", "o": "o", "u": "oue", "y": "ai"}


def _first_vowel_heard_as(word: str) -> str:
    """The Korean vowels the first vowel of ``word`` may be heard as ("" when it has none)."""
    found = re.search(r"[aeiouy]{1,2}", word[1:] if word[0] == "y" else word)
    if found is None:
        return ""
    vowels = found.group(0)
    return _PAIRS_HEARD_AS.get(vowels) or _LETTERS_HEARD_AS[vowels[0]]


def _korean_first_vowel(word: str) -> str:
    return _VOWELS[(ord(word[0]) - _FIRST) % 588 // 28][-1]


def _korean_skeleton(word: str) -> str:
    letters = []
    for char in word:
        index = ord(char) - _FIRST
        initial, rest = divmod(index, 588)
        final = rest % 28
        letters += [_INITIALS[initial], _FINALS[final]]
    return _collapsed("".join(letters).replace("h", ""))


def _english_skeleton(word: str) -> str:
    # r is silent after a vowel when no vowel follows (Taylor → 테일러, Park → 파크).
    word = re.sub(r"(?<=[aeiou])r(?![aeiouy])", "", word)
    for spelling, letter in _ENGLISH:
        word = word.replace(spelling, letter)
    consonants = "".join(c for c in word if c not in _VOWEL_LETTERS and c != "h")
    return _collapsed(consonants)


def _collapsed(letters: str) -> str:
    return re.sub(r"(.)\1+", r"\1", letters)


def _opening_vowel(word: str) -> str:
    return word[0] if word[0] in "aeiou" else ""


def _korean_opening_vowel(word: str) -> str:
    initial, rest = divmod(ord(word[0]) - _FIRST, 588)
    return _VOWELS[rest // 28][0] if _INITIALS[initial] == "" else ""
