"""A slipped key is read as the word meant (a Korean syllable, a tool's own English word);
faces, clipped words and real words stay."""

from __future__ import annotations

import pytest

from chat.builtin_model.keystrokes import mended, spelling_mended


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        (
            "에마 윌슨 어머님께 문ㅈ자 : 영수증 보냈어요",
            "에마 윌슨 어머님께 문자 : 영수증 보냈어요",
        ),
        ("이메ㅣㄹ 올리버 씨에게", "이메일 올리버 씨에게"),
        ("공ㅈ지 올려줘", "공지 올려줘"),
        # the cute "…여" for "…요"
        ("B반에 문자 보내주세여~", "B반에 문자 보내주세요~"),
        ("내일까지 되나여?", "내일까지 되나요?"),
    ],
)
def test_a_letter_left_inside_a_word_by_a_slipped_key_is_mended(typed: str, meant: str) -> None:
    assert mended(typed) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "유나쌤ㅠㅠ 고마워요",
        "감사해요ㅜ",
        "문자 ㄱㄱ 내일 휴강",
        "ㅇㅋ",
        "좋아요ㅎㅎ",
        "예약 해놔 ㅓ 오늘 5시",
        "도서 대여 안내 문자 보내줘",  # a rental, not a cute ending
        "plain English stays as it is",
    ],
)
def test_faces_clipped_words_and_stray_letters_between_words_are_left_alone(typed: str) -> None:
    assert mended(typed) == typed


OWN_WORDS = ("email", "telegram", "announcement", "remind", "text", "mail", "notice")


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("pls emial the parents", "pls email the parents"),  # two letters swapped
        ("a telgram to Yuna", "a telegram to Yuna"),  # one dropped
        ("annoucement for staff", "announcement for staff"),
        ("remimd the teachers", "remind the teachers"),  # one mistyped
    ],
)
def test_a_slipped_letter_in_a_tools_own_word_is_mended(typed: str, meant: str) -> None:
    assert spelling_mended(typed, OWN_WORDS) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "the emails went out",  # another form, not a slip
        "rewind the register",  # a word of its own
        "the next test is on Monday",  # short words are never guessed at
        "a notice about the novel",
        "drop a line to jones@gmail.com",  # an address is spelled as it is
    ],
)
def test_words_that_are_not_slips_are_left_alone(typed: str) -> None:
    assert spelling_mended(typed, OWN_WORDS) == typed
