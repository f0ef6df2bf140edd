"""A Korean request hears in Korean why its message could not be addressed."""

from __future__ import annotations

from typing import get_args

import pytest

from actions.selectors import ProblemKind
from chat.builtin_model.recipient_problems import in_korean

HANGUL = range(0xAC00, 0xD7A4)


@pytest.mark.parametrize("kind", get_args(ProblemKind))
def test_every_kind_of_recipient_problem_has_a_korean_sentence(kind: str) -> None:
    said = in_korean([{"kind": kind, "subject": "X", "channel": "sms", "detail": "3"}])

    assert said is not None
    assert said.endswith(".")
    assert any(ord(letter) in HANGUL for letter in said)


def test_the_person_who_opted_out_is_named_in_a_korean_sentence() -> None:
    problems = [{"kind": "opted_out", "text": "박지우 has opted out", "subject": "박지우"}]

    assert in_korean(problems) == "박지우 님은 메시지 수신을 거부하셨어요."


def test_a_missing_address_names_the_channels_address() -> None:
    problem = {"kind": "no_address", "subject": "Emma Wilson", "channel": "email"}

    assert in_korean([problem]) == "Emma Wilson 님은 저장된 이메일 주소가 없어요."


def test_several_problems_are_said_one_sentence_each() -> None:
    problems = [
        {"kind": "unknown", "subject": "민준 아빠", "channel": "sms"},
        {"kind": "opted_out", "subject": "박지우"},
    ]

    assert in_korean(problems) == (
        "'민준 아빠' 이름의 연락처나 그룹을 찾지 못했어요. 박지우 님은 메시지 수신을 거부하셨어요."
    )


@pytest.mark.parametrize(
    "problems",
    [None, [], "opted out", [{"kind": "a kind from a newer tool", "subject": "x"}], ["text"]],
)
def test_anything_else_leaves_the_tools_own_words(problems: object) -> None:
    assert in_korean(problems) is None
