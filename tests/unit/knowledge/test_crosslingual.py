"""Similarities across languages put on the question's scale (knowledge/crosslingual.py)."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge.crosslingual import COHORTS, language_of, on_question_scale


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Full-time staff receive 25 days of paid annual leave per calendar year.", "en"),
        ("El personal a tiempo completo disfruta de 23 días laborables de vacaciones.", "es"),
        ("연차는 며칠까지 쓸 수 있어요?", "ko"),
        ("계약 기간 두 달짜리 강사도 leave policy 적용 대상이에요?", "ko"),
        ('Staff connect to the network "Staff-Secure" with their work account.', "en"),
        ("休暇は何日ありますか", None),
        ("2026-11-26 14:00", None),
    ],
)
def test_a_text_is_read_as_the_language_it_is_mostly_in(text: str, language: str | None) -> None:
    assert language_of(text) == language


def test_every_cohort_is_in_its_own_language() -> None:
    for language, sentences in COHORTS.items():
        assert len(sentences) >= 30
        assert {language_of(sentence) for sentence in sentences} == {language}


# A Korean question as the e5 model sees it: ordinary Korean sentences close (0.81), ordinary
# English ones far (0.73), each spread about 0.015.
COHORT_SIMILARITIES = {
    "ko": np.array([0.795, 0.81, 0.825]),
    "en": np.array([0.715, 0.73, 0.745]),
}


def test_a_sentence_in_the_questions_language_keeps_its_similarity() -> None:
    scaled = on_question_scale(
        [0.83, 0.79], ["ko", "ko"], question_language="ko", cohort_similarities=COHORT_SIMILARITIES
    )

    assert scaled == [0.83, 0.79]


def test_an_answer_in_another_language_outranks_ordinary_sentences_of_the_questions() -> None:
    unrelated_korean, english_answer = on_question_scale(
        [0.825, 0.79],
        ["ko", "en"],
        question_language="ko",
        cohort_similarities=COHORT_SIMILARITIES,
    )

    assert unrelated_korean == 0.825
    # as far above the English cohort's mean as it would be above the Korean one's (same spread)
    assert english_answer == pytest.approx(0.81 + (0.79 - 0.73))
    assert english_answer > unrelated_korean


def test_a_language_without_a_cohort_or_a_question_in_one_is_left_as_it_is() -> None:
    assert on_question_scale(
        [0.8], ["ja"], question_language="ko", cohort_similarities=COHORT_SIMILARITIES
    ) == [0.8]
    assert on_question_scale(
        [0.8], ["en"], question_language=None, cohort_similarities=COHORT_SIMILARITIES
    ) == [0.8]
