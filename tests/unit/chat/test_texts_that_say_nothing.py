"""Calibration in the second fresh set of session 28: a request whose only "text" is the
request itself asks what to say rather than sending the request to its reader; an
announcement read by a hair, with none of its words, is not proposed; and a group named
outright settles a looser mention of its kind. The phrasings are people's and none is an eval
case."""

from __future__ import annotations

import re
from typing import Any

import pytest

from chat.builtin_model.understanding import (
    IntentClassifier,
    Understanding,
    understand,
)
from chat.builtin_model.understanding.content import says_nothing
from chat.builtin_model.understanding.intent import Intent
from chat.builtin_model.understanding.recipients import find_recipients
from tests.unit.chat.academy import ACADEMY as SCHOOL
from tests.unit.chat.academy import NOW, SEOUL


def _ask(classifier: IntentClassifier, text: str) -> Understanding:
    return understand(text, directory=SCHOOL, now=NOW, tz=SEOUL, classifier=classifier)


def _cues(classifier: IntentClassifier) -> list[re.Pattern[str]]:
    return [words.cue for words in classifier.tools.values()]


@pytest.mark.parametrize(
    "text",
    [
        "Emma Wilson 님께 메일 하나 써야 하는데 좀 준비해 주실 수 있을까요?",
        "공지 하나 올려야 될 것 같아요, 부탁드립니다",
        "could you write up an announcement for me please",
        "I'd like you to send Emma Wilson an email",
        "최유나 선생님께 텔레그램으로 아까 그거 보내줘",
    ],
)
def test_a_request_with_nothing_to_say_yet_asks_what_to_say(
    classifier: IntentClassifier, text: str
) -> None:
    understood = _ask(classifier, text)

    assert understood.tool is None and understood.slot == "body"


@pytest.mark.parametrize(
    "text",
    [
        "내일 휴강",
        "see you at 4",
        "thanks!",
        "좀 늦어요",
        "확인 부탁드립니다",
        "Class is cancelled",
    ],
)
def test_a_text_with_one_word_of_its_own_says_something(
    classifier: IntentClassifier, text: str
) -> None:
    assert not says_nothing(text, _cues(classifier))


@pytest.mark.parametrize(
    "text",
    [
        "이메일을 한 통 보내야 하는데요",
        "You publish an announcement",
        "공지사항을 하나 올려야 할 것 같습니다",
    ],
)
def test_the_words_of_a_request_and_of_the_tool_say_nothing(
    classifier: IntentClassifier, text: str
) -> None:
    assert says_nothing(text, _cues(classifier))


def _env(classifier: IntentClassifier) -> Any:
    from chat.builtin_model.understanding.understand import _Env

    return _Env(SCHOOL, NOW, SEOUL, classifier)


def test_an_announcement_read_by_a_hair_with_none_of_its_words_is_not_proposed(
    classifier: IntentClassifier,
) -> None:
    from chat.builtin_model.understanding.understand import _unnamed_and_unsure

    hair = Intent("create_announcement", 0.005, {"create_announcement": 0.9, "data": 0.8995})
    text = "B반 명단 정리 중인데 등록된 분들이 누구누구인지 알려주실 수 있을까요?"

    assert _unnamed_and_unsure(hair, text, _env(classifier)) == "data"


def test_an_announcement_that_says_its_name_is_kept_however_narrow_the_margin(
    classifier: IntentClassifier,
) -> None:
    from chat.builtin_model.understanding.understand import _unnamed_and_unsure

    hair = Intent("create_announcement", 0.005, {"create_announcement": 0.9, "data": 0.8995})

    label = _unnamed_and_unsure(hair, "공지 하나 올려줘: 내일 휴강", _env(classifier))

    assert label == "create_announcement"


def test_a_group_named_outright_settles_a_looser_mention_of_its_kind() -> None:
    found = find_recipients(
        "the parents keep forgetting things, so could you text the Class A parents tonight",
        SCHOOL,
    )

    assert found.names == ["Parents - Class A"] and found.ambiguous == []


@pytest.mark.parametrize("head", ["서준이아버님께 문자 좀", "서준이네 전화번호 좀 알려줘"])
def test_a_childs_name_glued_to_its_parent_or_family_names_that_contact(head: str) -> None:
    assert find_recipients(head, SCHOOL).names == ["이서준 (Lee Seojun)"]
