"""Mending the slips of a Korean keyboard (pure: no Django).

Hangul is typed letter by letter and the input method assembles syllables as it goes, so one
slipped key leaves a bare letter (jamo) inside a word: "문ㅈ자" (an extra ㅈ before the
syllable it belonged to), "이메ㅣㄹ" (the silent ㅇ of 일 skipped, so ㅣ and ㄹ never joined).
The request is still plain to a reader, so the words are mended before they are read.

Only a bare letter *inside* a word of syllables is touched: "ㅋㅋ", "ㅠㅠ", "ㄱㄱ" and "ㅇㅋ" stand
alone and keep their meaning.
"""

from __future__ import annotations

import re

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


def mended(text: str) -> str:
    """``text`` with the bare letters a slipped key left inside Korean words mended."""
    if not re.search(f"[{_CONSONANTS}{_VOWELS}]", text):
        return text
    text = _STRAY_CONSONANT.sub("", text)
    return _BARE_VOWEL.sub(_with_silent_onset, text)


def _with_silent_onset(match: re.Match[str]) -> str:
    """The vowel as a syllable of its own with the silent ㅇ and the consonant as its final."""
    final = match["final"]
    if final not in _FINALS:
        return match.group(0)
    ieung = 11  # ㅇ's index among the initial consonants
    code = 0xAC00 + (ieung * 21 + _VOWELS.index(match["vowel"])) * 28 + _FINALS.index(final)
    return chr(code)
