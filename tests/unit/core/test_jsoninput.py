"""Untrusted JSON is parsed into values every layer can store, or refused by name."""

from __future__ import annotations

import pytest

from core.jsoninput import MAX_JSON_DEPTH, InvalidText, MalformedJson, loads_checked


def test_ordinary_json_comes_back_as_it_was() -> None:
    assert loads_checked('{"text": "héllo 👋", "n": [1, {"a": null}]}') == {
        "text": "héllo 👋",
        "n": [1, {"a": None}],
    }


@pytest.mark.parametrize(
    "raw",
    ['{"text": "a\\u0000b"}', '{"text": "\\ud800"}', '{"\\u0000": 1}', '["ok", ["\\udfff"]]'],
)
def test_a_nul_or_a_lone_surrogate_anywhere_is_invalid_text(raw: str) -> None:
    with pytest.raises(InvalidText):
        loads_checked(raw)


def test_a_surrogate_pair_is_one_ordinary_character() -> None:
    assert loads_checked('"\\ud83d\\udc4b"') == "👋"


@pytest.mark.parametrize(
    "raw",
    [
        "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1),
        "[" * 100_000 + "]" * 100_000,
        '{"a":' * 5000 + "1" + "}" * 5000,
    ],
)
def test_json_nested_too_deeply_is_malformed(raw: str) -> None:
    with pytest.raises(MalformedJson, match="nested deeper"):
        loads_checked(raw)


def test_nesting_up_to_the_limit_is_accepted() -> None:
    raw = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH

    assert loads_checked(raw) is not None


@pytest.mark.parametrize(
    "raw", [b"\xff\xfe", "{", "1" * 5000, "", "NaN", '{"n": -Infinity}', "[1e400]"]
)
def test_bytes_that_are_not_json_are_malformed(raw: str | bytes) -> None:
    with pytest.raises(MalformedJson, match="not valid JSON"):
        loads_checked(raw)
