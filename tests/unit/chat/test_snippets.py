"""Citation snippets are cut where a word ends and say that they are cut."""

from __future__ import annotations

from chat.rendering import citation_chips
from chat.snippets import word_snippet

PASSAGE = (
    "Every member of staff receives twenty days of paid annual leave each calendar year. "
    "Leave requests go to the head of department at least two weeks in advance."
)


def test_a_short_passage_is_kept_whole_with_its_whitespace_collapsed() -> None:
    assert word_snippet("Doors close\n at  1pm.") == "Doors close at 1pm."


def test_a_long_passage_is_cut_after_a_whole_word_and_ends_with_an_ellipsis() -> None:
    snippet = word_snippet(PASSAGE, limit=60)

    assert snippet == "Every member of staff receives twenty days of paid annual…"
    assert len(snippet) <= 60


def test_a_cut_right_after_a_word_keeps_that_word() -> None:
    assert word_snippet("alpha beta gamma", limit=11) == "alpha beta…"


def test_a_cut_drops_a_dangling_comma() -> None:
    assert word_snippet("one, two, three, four", limit=10) == "one, two…"


def test_a_single_word_longer_than_the_limit_is_cut_inside_it() -> None:
    assert word_snippet("x" * 50, limit=10) == "x" * 9 + "…"


def test_a_citation_stored_before_word_cuts_loses_its_partial_last_word() -> None:
    legacy = PASSAGE[:120]  # the old rule: the first 240 characters as they came
    stored = (legacy + " " + "y" * 200)[:240]

    [chip] = citation_chips([{"n": 1, "document": 3, "title": "Handbook", "snippet": stored}])

    assert chip["snippet"].endswith("…") and "yyy" not in chip["snippet"]
    assert chip["snippet"].startswith("Every member of staff")


def test_a_chip_keeps_the_document_and_passage_ids_and_drops_anything_else() -> None:
    chips = citation_chips(
        [
            {"n": 1, "document": 3, "chunk": 17, "title": "Handbook", "snippet": "Twenty days."},
            {"n": 2, "document": "3; drop table", "chunk": True, "title": "", "snippet": "x"},
            {"n": "3", "document": 3, "title": "Not numbered", "snippet": "x"},
        ]
    )

    assert chips == [
        {"n": 1, "title": "Handbook", "snippet": "Twenty days.", "document": 3, "chunk": 17},
        {"n": 2, "title": "Untitled", "snippet": "x", "document": None, "chunk": None},
    ]
