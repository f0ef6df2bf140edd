"""Names of English-named contacts written in Hangul, as staff hear them."""

from __future__ import annotations

import pytest

from chat.builtin_model.understanding.sounds import sounds_like


@pytest.mark.parametrize(
    ("latin", "hangul"),
    [
        ("Oliver", "올리버"),
        ("Brown", "브라운"),
        ("Wilson", "윌슨"),
        ("Sophie", "소피"),
        ("Martin", "마틴"),
        ("Johnson", "존슨"),
        ("Taylor", "테일러"),
        ("Emma", "엠마"),
    ],
)
def test_a_hangul_spelling_sounds_like_the_latin_name(latin: str, hangul: str) -> None:
    assert sounds_like(latin, hangul)


@pytest.mark.parametrize(
    ("latin", "hangul"),
    [
        ("Emma", "엄마"),  # "mum": same consonants, another opening vowel
        ("James", "전화"),
        ("Oliver", "알려"),
        ("Brown", "보내"),
        ("Em", "엠마"),  # too short a name to compare
        ("Oliver", "oliver"),  # not Hangul: compared as written elsewhere
        ("Taylor", "도로"),  # "road": t-l like Taylor, but no one hears Taylor's "a" as 오
        ("Taylor", "다들"),  # "everyone": Taylor's "ay" is heard as 에, not 아
    ],
)
def test_other_words_do_not_sound_like_the_name(latin: str, hangul: str) -> None:
    assert not sounds_like(latin, hangul)
