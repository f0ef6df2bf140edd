"""Mending the slips of a keyboard (pure: no Django).

**Latin letters.** "emial oliver", "anouncement for all parents": one letter swapped, dropped,
doubled or mistyped in a tool's own word. ``spelling_mended`` reads a word one edit (Damerau)
from a given word as that word, but only a word of five letters or more that neither starts the
other ("emails", "scheduled" are other forms, not slips) and that is not itself a word people
write ("rewind", "remand").

**Korean.** Hangul is typed letter by letter and the input method assembles syllables as it
goes, so one slipped key leaves a bare letter (jamo) inside a word: "문ㅈ자" (an extra ㅈ before
the syllable it belonged to), "이메ㅣㄹ" (the silent ㅇ of 일 skipped, so ㅣ and ㄹ never joined).
The request is still plain to a reader, so the words are mended before they are read.

Only a bare letter *inside* a word of syllables is touched: "ㅋㅋ", "ㅠㅠ", "ㄱㄱ" and "ㅇㅋ" stand
alone and keep their meaning.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Compatibility jamo as keyboards emit them.
_CONSONANTS = "ㄱㄲㄳㄴㄵㄶㄷㄸㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅃㅄㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
_VOWELS = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"
# Finals (종성) in Unicode order, index 0 = none.
_FINALS = ["", *"ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"]
_SYLLABLE = "[가-힣]"
# A consonant alone between two syllables of one word: "문ㅈ자" → "문자".
_STRAY_CONSONANT = re.compile(rf"(?<={_SYLLABLE})[{_CONSONANTS}](?={_SYLLABLE})")
# A vowel and one consonant alone right after a syllable: "메ㅣㄹ" → "메일". A vowel alone is
# left as it is: "감사해요ㅜ" is a face, not a slip.
_BARE_VOWEL = re.compile(
    rf"(?<={_SYLLABLE})(?P<vowel>[{_VOWELS}])(?![{_VOWELS}])"
    rf"(?P<final>[{_CONSONANTS}])(?![{_CONSONANTS}{_VOWELS}])"
)


_LATIN_WORD = re.compile(r"[A-Za-z]{5,}")
_ADDRESS = re.compile(r"@|://|^www\.|\.(?:com|org|net|kr|io)\b", re.IGNORECASE)
_REAL_NEIGHBOURS = frozenset({"rewind", "remand", "remains", "novice", "mails"})
MIN_MENDED_LETTERS = 5


def spelling_mended(text: str, words: Iterable[str]) -> str:
    """``text`` with each Latin word one slip away from one of ``words`` replaced by it."""
    known = {
        w.lower() for w in words if w.isascii() and w.isalpha() and len(w) >= MIN_MENDED_LETTERS
    }
    if not known:
        return text

    def mend(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        if word in known or word in _REAL_NEIGHBOURS or _inflected(word, known):
            return match.group(0)
        for target in known:
            if word.startswith(target) or target.startswith(word):
                continue
            if _one_slip(word, target):
                return target
        return match.group(0)

    # An address or a link is spelled as it is: "jones@gmail.com" is not a slip of "email".
    return "".join(
        part if _ADDRESS.search(part) else _LATIN_WORD.sub(mend, part)
        for part in re.split(r"(\s+)", text)
    )


_SUFFIXES = ("s", "es", "ed", "d", "ing", "er", "ers")


def _inflected(word: str, known: set[str]) -> bool:
    """Whether ``word`` is a known word with an ending: "reminded" (remind) is a real word,
    not a slip of "reminder"."""
    return any(
        word.removesuffix(suffix) in known or f"{word.removesuffix(suffix)}e" in known
        for suffix in _SUFFIXES
        if word.endswith(suffix)
    )


def _one_slip(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one substitution, insertion, deletion or swap of two
    neighbours."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and (a[diff[1]] == b[diff[0]])
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


# The playful "…해주세여", "…해줘여", "…있나여" are "…세요", "…줘요", "…나요" typed cutely.
_CUTE_YO = re.compile(r"(?<=[세줘해나까죠네래])여(?=[\s~!.?ㅠㅜㅎㅋ]|$)")
# "보내조", "알려조": "…줘" typed as a child says it.
_CUTE_JWO = re.compile(r"(?<=[내려해써])조(?=[\s~!.?ㅠㅜㅎㅋ]|$)")


# "잇음?", "잇어요": the doubled ㅆ of 있 typed single. 잇다 (to join) never takes these endings.
_SINGLE_SS = re.compile(r"잇(?=음|어|나요|냐|니|엇|슴|을까)")


# "이서준 어머니 한테", "최유나 선생님 한테": a particle typed apart from the word it belongs to.
_DETACHED_PARTICLE = re.compile(
    r"(?<=[가-힣])\s+(?=(?:한테|에게|께)(?:서|는|도|만)?(?:\s|$|[.,!?~]))"
)
# A vowel slipped in the name of a channel: "텔레그렘", "텔래그램".
_CHANNEL_SLIP = re.compile(r"텔[레래]그[렘램]")
# "전자우편으로": the formal word for e-mail (its "우편" alone is the post, which no tool sends).
_FORMAL_EMAIL = re.compile(r"전자\s?우편")


def mended(text: str) -> str:
    """``text`` with the bare letters a slipped key left inside Korean words mended, the
    cute "…여" ending read as "…요", 있 typed as 잇 read as 있, a particle typed apart joined to
    its word, a slipped vowel in "텔레그램" put right, and the formal "전자우편" read as the
    everyday "이메일"."""
    text = _SINGLE_SS.sub("있", _CUTE_JWO.sub("줘", _CUTE_YO.sub("요", text)))
    text = _CHANNEL_SLIP.sub("텔레그램", _DETACHED_PARTICLE.sub("", text))
    text = _FORMAL_EMAIL.sub("이메일", text)
    if not re.search(f"[{_CONSONANTS}{_VOWELS}]", text):
        return text
    text = _STRAY_CONSONANT.sub("", text)
    return _BARE_VOWEL.sub(_with_silent_onset, text)


def as_meant(text: str, words: Iterable[str]) -> str:
    """``text`` as its writer meant it: Korean slips mended (``mended``), then Latin slips in
    ``words`` (``spelling_mended``). Every reader of a message starts from this."""
    return spelling_mended(mended(text), words)


def _with_silent_onset(match: re.Match[str]) -> str:
    """The vowel as a syllable of its own with the silent ㅇ and the consonant as its final."""
    final = match["final"]
    if final not in _FINALS:
        return match.group(0)
    ieung = 11  # ㅇ's index among the initial consonants
    code = 0xAC00 + (ieung * 21 + _VOWELS.index(match["vowel"])) * 28 + _FINALS.index(final)
    return chr(code)
