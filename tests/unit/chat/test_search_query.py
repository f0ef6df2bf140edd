"""The knowledge search query is derived from the message, bounded whatever its length."""

from __future__ import annotations

from chat.builtin_model.search_query import MAX_QUERY_CHARS, derive_search_query

PARENT_EMAIL = (
    "Dear teacher, my son Minho had a fever over the weekend and the doctor told him to rest. "
    "He will be back on Thursday if he feels better. The fever started on Saturday night. "
) * 12


def test_it_keeps_a_short_question_as_it_is() -> None:
    assert derive_search_query("How long is bereavement leave?") == "How long is bereavement leave?"


def test_it_searches_with_the_last_question_of_a_pasted_email() -> None:
    message = PARENT_EMAIL + "How many sick days can a student take without a doctor's note?"

    query = derive_search_query(message)

    assert query.startswith("How many sick days can a student take without a doctor's note?")
    assert len(query) <= MAX_QUERY_CHARS


def test_it_adds_the_most_frequent_words_of_the_message_as_key_terms() -> None:
    query = derive_search_query(PARENT_EMAIL + "What should I reply?")

    assert "fever" in query.split()


def test_it_finds_a_korean_question_without_a_question_mark() -> None:
    message = (
        "학부모님이 보낸 메일입니다. 아이가 열이 나서 쉬었습니다. " * 20
        + "병가는 며칠까지 쓸 수 있나요"
    )

    assert derive_search_query(message).startswith("병가는 며칠까지 쓸 수 있나요")


def test_it_bounds_a_message_with_no_sentence_end_at_all() -> None:
    query = derive_search_query("x" * 4000)

    assert 0 < len(query) <= MAX_QUERY_CHARS


def test_it_returns_nothing_for_a_message_of_only_spaces_and_nul() -> None:
    assert derive_search_query(" \x00 \n ") == ""
