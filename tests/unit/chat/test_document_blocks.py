"""The document view reads as prose (issue 29): lines the source wrapped by hand join into one
paragraph, and a first heading that only repeats the title (shown as the page's h1) is left out."""

from __future__ import annotations

from chat.presenters import TextLine, document_blocks, document_lines


def _shown(blocks: list[TextLine]) -> list[tuple[int, str, str]]:
    """(level, text, the cited part) per block."""
    return [
        (
            block.level,
            "".join(piece.text for piece in block.pieces),
            "".join(piece.text for piece in block.pieces if piece.cited),
        )
        for block in blocks
    ]


def test_lines_wrapped_in_the_source_read_as_one_paragraph() -> None:
    text = "Every member of staff\nreceives twenty days\nof paid leave.\n\nSick leave: phone."

    blocks = document_blocks(document_lines(text, span=None), title="Handbook")

    assert _shown(blocks) == [
        (0, "Every member of staff receives twenty days of paid leave.", ""),
        (0, "", ""),
        (0, "Sick leave: phone.", ""),
    ]


def test_a_first_heading_that_repeats_the_title_is_left_out_and_other_headings_stay() -> None:
    text = "# Staff handbook\n\n## Leave\nTwenty days."

    blocks = document_blocks(document_lines(text, span=None), title="Staff Handbook")

    assert _shown(blocks) == [(0, "", ""), (2, "Leave", ""), (0, "Twenty days.", "")]


def test_a_passage_cited_across_wrapped_lines_stays_marked_as_one() -> None:
    text = "Twenty days\na year, carried\nover up to five."
    start, end = text.index("days"), text.index("carried") + len("carried")

    blocks = document_blocks(document_lines(text, span=(start, end)), title="Leave")

    assert _shown(blocks) == [
        (0, "Twenty days a year, carried over up to five.", "days a year, carried")
    ]
    assert sum(piece.anchor for piece in blocks[0].pieces) == 1
