"""Heading-aware chunking: spans, headings, size limits, overlap, duplicates."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from knowledge.ingest.chunking import (
    ChunkDraft,
    chunk_text,
    content_hash,
    embedding_text,
    estimate_tokens,
)

SENTENCES = " ".join(
    f"Rule {number} explains how leave requests are approved by a manager." for number in range(60)
)
HANDBOOK = f"""Welcome to the handbook.

# Leave policy

Everyone gets 25 days.

## Sick leave

{SENTENCES}

## Parental leave

Sixteen weeks, fully paid.

# Expenses

Keep every receipt.
"""

KOREAN = "\n\n".join(
    f"## 규정 {number}\n\n"
    + " ".join(
        f"직원은 연차 휴가를 사용하기 전에 관리자에게 {day}일 전까지 알려야 합니다."
        for day in range(1, 30)
    )
    for number in range(1, 4)
)
SPANISH = "# Política de vacaciones\n\n" + " ".join(
    f"El empleado número {number} debe pedir sus vacaciones con dos semanas de antelación."
    for number in range(50)
)


def spans_are_exact(text: str, chunks: list[ChunkDraft]) -> bool:
    return all(text[chunk.char_start : chunk.char_end] == chunk.text for chunk in chunks)


def starts_and_ends_on_word_boundaries(text: str, chunk: ChunkDraft) -> bool:
    before = text[chunk.char_start - 1] if chunk.char_start else " "
    after = text[chunk.char_end] if chunk.char_end < len(text) else " "
    return before.isspace() and after.isspace()


@pytest.mark.parametrize("text", [HANDBOOK, KOREAN, SPANISH, "x" * 5000])
def test_every_chunk_is_the_exact_slice_of_the_source_it_claims(text: str) -> None:
    assert spans_are_exact(text, chunk_text(text, size=300, overlap=60))


@pytest.mark.parametrize("text", [HANDBOOK, KOREAN, SPANISH, "x" * 5000])
def test_no_chunk_is_longer_than_the_size(text: str) -> None:
    chunks = chunk_text(text, size=300, overlap=60)

    assert max(len(chunk.text) for chunk in chunks) <= 300


def test_it_records_the_heading_path_of_each_chunk() -> None:
    paths = [chunk.heading_path for chunk in chunk_text(HANDBOOK, size=300, overlap=60)]

    assert list(dict.fromkeys(paths)) == [
        (),
        ("Leave policy",),
        ("Leave policy", "Sick leave"),
        ("Leave policy", "Parental leave"),
        ("Expenses",),
    ]


def test_it_leaves_heading_lines_out_of_the_chunk_text() -> None:
    chunks = chunk_text(HANDBOOK)

    assert not any(line.startswith("#") for chunk in chunks for line in chunk.text.splitlines())


def test_it_never_mixes_two_sections_in_one_chunk() -> None:
    chunks = chunk_text(HANDBOOK, size=5000, overlap=0)

    assert [chunk.text for chunk in chunks][-2:] == [
        "Sixteen weeks, fully paid.",
        "Keep every receipt.",
    ]


def test_a_shallower_heading_closes_deeper_ones() -> None:
    chunks = chunk_text("# A\n\n### Deep\n\none\n\n## B\n\ntwo")

    assert [chunk.heading_path for chunk in chunks] == [("A", "Deep"), ("A", "B")]


def test_it_ignores_hash_lines_inside_fenced_code() -> None:
    text = "# Setup\n\n```bash\n# install it\npip install countersign\n```"

    (chunk,) = chunk_text(text)

    assert chunk.heading_path == ("Setup",)
    assert "# install it" in chunk.text


def test_it_strips_closing_hashes_from_headings() -> None:
    (chunk,) = chunk_text("## Sick leave ##\n\nTen days.")

    assert chunk.heading_path == ("Sick leave",)


def test_it_cuts_long_sections_at_sentence_ends() -> None:
    chunks = chunk_text(SENTENCES, size=300, overlap=0)

    assert len(chunks) > 1
    assert all(chunk.text.endswith("manager.") for chunk in chunks)


def test_it_does_not_split_words_when_it_can_avoid_it() -> None:
    long_run = " ".join(["supercalifragilistic"] * 200)

    chunks = chunk_text(long_run, size=250, overlap=40)

    assert all(starts_and_ends_on_word_boundaries(long_run, chunk) for chunk in chunks)


def test_it_hard_splits_a_run_without_spaces() -> None:
    run = "".join(chr(ord("a") + index % 26) for index in range(2000))

    chunks = chunk_text(run, size=300, overlap=0)

    assert "".join(chunk.text for chunk in chunks) == run


def test_consecutive_chunks_of_a_section_overlap_by_at_most_the_overlap() -> None:
    chunks = chunk_text(SENTENCES, size=300, overlap=80)

    shared = [previous.char_end - chunk.char_start for previous, chunk in pairwise(chunks)]
    assert all(0 < length <= 80 for length in shared)


def test_the_overlap_starts_at_a_sentence_when_one_fits() -> None:
    chunks = chunk_text(SENTENCES, size=300, overlap=80)

    assert all(chunk.text.startswith("Rule ") for chunk in chunks)


def test_the_overlap_never_reaches_into_the_previous_section() -> None:
    text = "# One\n\n" + SENTENCES[:250] + "\n\n# Two\n\n" + SENTENCES[:250]

    first, second = chunk_text(text, size=300, overlap=80)

    assert second.char_start > first.char_end


def test_it_splits_korean_text_at_sentence_ends_under_its_headings() -> None:
    chunks = chunk_text(KOREAN, size=300, overlap=60)

    assert {chunk.heading_path for chunk in chunks} == {("규정 1",), ("규정 2",), ("규정 3",)}
    assert all(chunk.text.endswith("합니다.") for chunk in chunks)


def test_it_splits_spanish_text_at_sentence_ends() -> None:
    chunks = chunk_text(SPANISH, size=400, overlap=80)

    assert len(chunks) > 5
    assert all(chunk.heading_path == ("Política de vacaciones",) for chunk in chunks)
    assert all(chunk.text.endswith("antelación.") for chunk in chunks)


@pytest.mark.parametrize("text", ["", "   \n\n\t", "# Only a heading\n\n## And another"])
def test_it_makes_no_chunks_from_text_without_content(text: str) -> None:
    assert chunk_text(text) == []


def test_it_keeps_exact_duplicates_once_and_numbers_chunks_without_gaps() -> None:
    text = "# FAQ\n\nCall HR.\n\n# Other\n\nSomething else.\n\n# FAQ\n\nCall  HR."

    chunks = chunk_text(text)

    assert [(chunk.ordinal, chunk.text) for chunk in chunks] == [
        (0, "Call HR."),
        (1, "Something else."),
    ]


def test_the_same_text_under_another_heading_is_a_different_chunk() -> None:
    chunks = chunk_text("# Sick leave\n\nTen days.\n\n# Holidays\n\nTen days.")

    assert len({chunk.content_hash for chunk in chunks}) == 2


def test_the_content_hash_ignores_whitespace_differences() -> None:
    assert content_hash("Ten  days.\n", ("Leave",)) == content_hash("Ten days.", ("Leave",))


def test_the_content_hash_is_sha256_hex() -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", content_hash("Ten days.", ()))


def test_token_estimate_counts_four_latin_characters_per_token() -> None:
    assert estimate_tokens("a" * 400) == 100


def test_token_estimate_counts_each_hangul_syllable_as_a_token() -> None:
    assert estimate_tokens("연차휴가") == 4


def test_each_chunk_carries_its_token_estimate() -> None:
    (chunk,) = chunk_text("Ten days of sick leave.")

    assert chunk.token_estimate == estimate_tokens("Ten days of sick leave.")


def test_embedding_text_prefixes_title_and_heading_path() -> None:
    (chunk,) = chunk_text("# Leave policy\n\n## Sick leave\n\nTen days.")

    assert embedding_text(chunk, "Handbook") == "Handbook — Leave policy > Sick leave\nTen days."


def test_embedding_text_without_headings_prefixes_only_the_title() -> None:
    (chunk,) = chunk_text("Ten days.")

    assert embedding_text(chunk, "Handbook") == "Handbook\nTen days."


def test_embedding_text_without_title_or_headings_is_the_chunk_text() -> None:
    (chunk,) = chunk_text("Ten days.")

    assert embedding_text(chunk, None) == "Ten days."


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_it_rejects_impossible_sizes(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_text("text", size=size, overlap=overlap)
