"""Passages become whole sentences, headings and list items before an answer quotes them."""

from __future__ import annotations

import pytest

from chat.builtin_model.sentences import passage_units, split_sentences, without_remind_me

IT_HELP = (
    "## Wi-Fi\n\n"
    'Staff connect to the network "Staff-Secure" with their work account. Guests use "Guest" with\n'
    "the daily code shown at reception. Never share your own credentials with visitors."
)


def test_it_rebuilds_a_sentence_the_source_wrapped_at_a_hard_line_break() -> None:
    texts = [unit.text for unit in passage_units(IT_HELP)]

    assert 'Guests use "Guest" with the daily code shown at reception.' in texts


def test_it_keeps_a_heading_as_its_own_unit_and_as_context_of_what_follows() -> None:
    units = passage_units(IT_HELP)

    assert (units[0].kind, units[0].text) == ("heading", "Wi-Fi")
    assert all(unit.heading == "Wi-Fi" for unit in units[1:])


def test_it_keeps_each_list_item_whole_even_when_wrapped() -> None:
    text = "Bring:\n- a signed consent\n  form from a parent\n- a water bottle"

    items = [unit.text for unit in passage_units(text) if unit.kind == "item"]

    assert items == ["a signed consent form from a parent", "a water bottle"]


def test_it_marks_a_passage_that_starts_mid_sentence_as_a_fragment() -> None:
    units = passage_units("the daily code shown at reception. Never share your credentials.")

    assert [unit.complete for unit in units] == [False, True]


def test_it_marks_a_last_sentence_the_chunk_cut_off_as_a_fragment() -> None:
    units = passage_units("Report a lost laptop at once. IT wipes the device remotely and")

    assert [unit.complete for unit in units] == [True, False]


def test_it_does_not_split_after_an_abbreviation_or_an_initial() -> None:
    sentences = split_sentences("Bring forms, e.g. the consent form. Ask Dr. Kim or J. Park first.")

    assert sentences == ["Bring forms, e.g. the consent form.", "Ask Dr. Kim or J. Park first."]


def test_it_rebuilds_korean_sentences_across_line_breaks() -> None:
    text = "화학 물질을 다룰 때는 니트릴 장갑을\n착용하십시오. 샌들은 신을 수 없습니다."

    texts = [unit.text for unit in passage_units(text)]

    assert texts == [
        "화학 물질을 다룰 때는 니트릴 장갑을 착용하십시오.",
        "샌들은 신을 수 없습니다.",
    ]


def test_dotted_initials_end_a_sentence_only_when_a_capital_follows() -> None:
    sentences = split_sentences(
        "Twelve U.S. states joined by 1790. Doors open at 9 a.m. sharp. It moved to the U.S. "
        "Then it closed."
    )

    assert sentences == [
        "Twelve U.S. states joined by 1790.",
        "Doors open at 9 a.m. sharp.",
        "It moved to the U.S.",
        "Then it closed.",
    ]


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("can you remind me who the class B parents are?", "who the class B parents are?"),
        ("Remind me again, what is the wifi called", "what is the wifi called"),
        # with a time it is a reminder to set, not a fact to tell
        ("remind me tomorrow at 9 what to bring", "remind me tomorrow at 9 what to bring"),
        # only at the start: the question is the whole message otherwise
        ("Emma asked: remind me who teaches art?", "Emma asked: remind me who teaches art?"),
    ],
)
def test_remind_me_of_a_fact_is_the_question_after_it(text: str, question: str) -> None:
    assert without_remind_me(text) == question
