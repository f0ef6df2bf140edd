"""The case file format: a valid set parses; a bad one names the case and field at fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat.evals.cases import CaseFileError, case_set_dump, case_set_load, case_set_parse

DEMO_CASES = Path(__file__).resolve().parents[3] / "chat" / "evals" / "demo_cases.yaml"
GOOD = {
    "name": "smoke",
    "cases": [
        {
            "key": "sms-emma",
            "language": "en",
            "message": "Can you text Emma that class moved to 3pm?",
            "expect": {"tool": "send_sms", "arguments": {"to": ["Emma Wilson"]}},
        }
    ],
}


def test_a_single_message_is_accepted_as_an_exchange_of_one() -> None:
    spec = case_set_parse(GOOD, default_name="x")

    assert spec.cases[0].messages == ["Can you text Emma that class moved to 3pm?"]


def test_an_unknown_expectation_names_the_case_and_the_field() -> None:
    bad = {"cases": [{"key": "k1", "message": "hi", "expect": {"tol": "send_sms"}}]}

    with pytest.raises(CaseFileError, match=r"case 1 \(k1\): expect.tol"):
        case_set_parse(bad, default_name="x")


def test_arguments_without_a_tool_are_refused() -> None:
    bad = {"cases": [{"key": "k1", "message": "hi", "expect": {"arguments": {"to": ["A"]}}}]}

    with pytest.raises(CaseFileError, match="need a 'tool'"):
        case_set_parse(bad, default_name="x")


def test_a_case_expecting_nothing_is_refused() -> None:
    with pytest.raises(CaseFileError, match="expect at least one thing"):
        case_set_parse([{"key": "k1", "message": "hi", "expect": {}}], default_name="x")


def test_a_key_used_twice_is_refused() -> None:
    case = {"key": "same", "message": "hi", "expect": {"decline": True}}

    with pytest.raises(CaseFileError, match="used twice"):
        case_set_parse([case, case], default_name="x")


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="no such file"):
        case_set_load(tmp_path / "nope.yaml")


def test_a_set_written_out_reads_back_the_same(tmp_path: Path) -> None:
    spec = case_set_parse(GOOD, default_name="x")
    for as_json, name in ((False, "cases.yaml"), (True, "cases.json")):
        path = tmp_path / name
        path.write_text(case_set_dump(spec, as_json=as_json), encoding="utf-8")

        assert case_set_load(path) == spec


def test_the_shipped_demo_set_is_valid_and_big_enough_and_korean_enough() -> None:
    spec = case_set_load(DEMO_CASES)

    korean = sum(case.language == "ko" for case in spec.cases)
    assert len(spec.cases) >= 150 and korean / len(spec.cases) >= 0.4
