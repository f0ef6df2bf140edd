"""Extractive answers quote the relevant sentences, cite exactly their passages, or decline."""

from __future__ import annotations

from collections.abc import Sequence

from chat.builtin_model.extractive import MIN_SCORE, Similarity, compose_answer
from chat.builtin_model.sentences import is_terminated

LEAVE = {
    "n": 1,
    "text": "## Parental leave\n\nBirth parents receive 16 weeks of fully paid leave.\n\n"
    "## Bereavement leave\n\nUp to five days of paid leave are granted on the death of a close\n"
    "family member.",
}
IT = {"n": 2, "text": "## Passwords\n\nPasswords must be at least 14 characters long."}


def similarity_to(relevant: str, *, high: float = 0.9, low: float = 0.7) -> Similarity:
    """A stand-in for the embedding model: texts mentioning ``relevant`` are close."""

    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        return [high if relevant in text.lower() else low for text in texts]

    return similarity


def test_it_quotes_the_sentence_that_answers_and_cites_only_its_passage() -> None:
    answer = compose_answer(
        "How long is bereavement leave?", [LEAVE, IT], similarity=similarity_to("death")
    )

    assert answer.text == (
        "Up to five days of paid leave are granted on the death of a close family member. [1]"
    )
    assert answer.cited == (1,)


def test_it_declines_when_no_sentence_is_relevant_enough() -> None:
    answer = compose_answer(
        "What is the capital of Mongolia?", [LEAVE, IT], similarity=similarity_to("nothing")
    )

    assert (answer.text, answer.cited) == ("", ())


def test_it_never_quotes_a_fragment_the_chunk_cut_off() -> None:
    cut = {"n": 3, "text": "granted on the death of a close family member. Ask HR for the form"}

    answer = compose_answer("bereavement leave?", [cut], similarity=similarity_to("death"))

    assert answer.text == ""


def test_every_quote_ends_on_a_sentence_boundary() -> None:
    answer = compose_answer(
        "How long is bereavement leave?", [LEAVE, IT], similarity=similarity_to("leave")
    )

    assert answer.text and is_terminated(answer.text.rsplit(" [", 1)[0])


def test_a_caller_can_raise_the_bar_when_retrieval_was_weak() -> None:
    answer = compose_answer(
        "bereavement?",
        [LEAVE],
        similarity=similarity_to("death", high=MIN_SCORE - 0.05),
        min_score=MIN_SCORE + 0.2,
    )

    assert answer.text == ""
