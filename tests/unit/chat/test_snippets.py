"""Citation snippets are cut where a word ends and say that they are cut; the document a
citation opens is laid out by line with the passage marked."""

from __future__ import annotations

from chat.presenters import TextLine, document_lines
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


def test_a_cut_after_a_whole_sentence_sets_the_ellipsis_apart() -> None:
    assert word_snippet("Leave is twenty days. Requests go", limit=25) == "Leave is twenty days. …"


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


def _shown(lines: list[TextLine]) -> list[tuple[int, list[tuple[str, bool, bool]]]]:
    return [(line.level, [(p.text, p.cited, p.anchor) for p in line.pieces]) for line in lines]


def test_a_document_is_laid_out_by_line_with_the_cited_span_marked_across_lines() -> None:
    text = "# Leave\n\nTwenty days a year.\n## Sick leave\nPhone before 8am."
    start = text.index("days")
    end = text.index("8am") + 3

    lines = document_lines(text, span=(start, end))

    assert _shown(lines) == [
        (1, [("Leave", False, False)]),
        (0, []),
        (0, [("Twenty ", False, False), ("days a year.", True, True)]),
        (2, [("Sick leave", True, False)]),
        (0, [("Phone before 8am", True, False), (".", False, False)]),
    ]


def test_a_document_without_a_passage_has_nothing_marked() -> None:
    lines = document_lines("Just text.\nMore #not a heading", span=None)

    assert _shown(lines) == [
        (0, [("Just text.", False, False)]),
        (0, [("More #not a heading", False, False)]),
    ]
