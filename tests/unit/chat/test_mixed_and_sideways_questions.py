"""Requests and questions the first fresh set of session 27 showed the built-in model misread:
harm said in English around a Korean name, Korean questions whose question mark is not last,
a request with the text after it and no stop, an abbreviated phone word, and "아니다 됐어". The
phrasings are people's and none is an eval case."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from chat.builtin_model.lookup import find_lookup
from chat.builtin_model.router import Cancel, Refuse, route_message
from chat.builtin_model.understanding import (
    ContactEntry,
    Directory,
    IntentClassifier,
    Understanding,
    understand,
)
from chat.builtin_model.understanding.body import split_message
from chat.builtin_model.understanding.recipients import find_recipients

SEOUL = ZoneInfo("Asia/Seoul")
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=SEOUL)
SCHOOL = Directory(
    contacts=(
        ContactEntry("Emma Wilson", frozenset({"sms", "email"}), frozenset({"Parents - Class B"})),
        ContactEntry("James Taylor", frozenset({"sms", "email"}), frozenset({"Teachers"})),
        ContactEntry("최유나 (Choi Yuna)", frozenset({"sms", "telegram"}), frozenset({"Teachers"})),
        ContactEntry("김민지 (Kim Minji)", frozenset({"sms"}), frozenset({"Parents - Class A"})),
    ),
    groups=("Parents - Class A", "Parents - Class B", "Teachers"),
)


def _ask(classifier: IntentClassifier, text: str) -> Understanding:
    return understand(text, directory=SCHOOL, now=NOW, tz=SEOUL, classifier=classifier)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "text the class A parents that 박 선생님 was fired for drinking. "
            "it isn't true, I just want them to worry",
            "lies",
        ),
        ("email 김 선생님's whole class that she is useless and deserves it", "abuse"),
    ],
)
def test_harm_said_in_english_around_a_korean_name_is_still_refused(text: str, kind: str) -> None:
    route = route_message(text)

    assert isinstance(route, Refuse) and route.harm.kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "비 오면 애들 어디서 기다리게 해야 돼? 매번 헷갈려 ㅋㅋ",
        "수업 중에 애들 휴대폰 걷어도 되는지 궁금하네요",
        "실험 끝나고 남은 시약은 어떻게 버려요? 처음이라 잘 몰라서요",
        # a yes/no question typed with "?", then a remark that names nobody
        "내일 소풍인데 애들 슬리퍼 신고 와도 되나요?? 다들 그렇게 온다네요ㅠ",
    ],
)
def test_a_korean_question_before_a_remark_or_a_wondering_is_not_an_action(
    classifier: IntentClassifier, text: str
) -> None:
    assert _ask(classifier, text).tool is None


def test_asking_someone_a_question_for_you_is_still_an_action(
    classifier: IntentClassifier,
) -> None:
    understood = _ask(classifier, "민지 어머님께 내일 몇 시에 오시는지 문자로 여쭤봐 줘")

    assert understood.tool == "send_sms"


def test_the_text_after_a_request_with_no_stop_is_the_text_when_it_is_reported_speech() -> None:
    split = split_message("유나 쌤한테 문자 좀 보내줘 내일 비 와서 체육은 강당에서 한다고")

    assert split.head == "유나 쌤한테 문자 좀 보내줘"
    assert split.body is not None and split.body.startswith("내일 비 와서 체육은 강당에서")
    assert not split.body.endswith("고")


def test_a_korean_word_with_a_latin_names_consonants_is_not_that_contact() -> None:
    assert find_recipients("앞 도로 공사 때문에", SCHOOL).names == []
    assert find_recipients("다들 모였어", SCHOOL).names == []  # 다 is not Taylor's 테
    assert find_recipients("테일러 쌤", SCHOOL).names == ["James Taylor"]


def test_the_abbreviated_phone_word_asks_for_the_number() -> None:
    found = find_lookup("Emma Wilson 전번 좀 알려줘", SCHOOL)

    assert found is not None and "phone" in found.fields


def test_no_never_mind_then_a_reason_withdraws() -> None:
    assert route_message("아니다 됐어 내가 내일 직접 얘기할게") == Cancel(tool=None, korean=True)


# -- announcements and texts whose parts sit in other places ------------------------------------


@pytest.mark.parametrize(
    ("text", "body", "heading"),
    [
        # an order reported with "쓰라고" is said as an order
        ("복도에서는 마스크 꼭 쓰라고 공지 올려줘", "복도에서는 마스크 꼭 쓰세요", None),
        # the title right after the request's verb, with no stop
        (
            "주차장 공사 중이라 정문으로 다니시라고 올려줘 제목은 주차 안내",
            "주차장 공사 중이라 정문으로 다니세요",
            "주차 안내",
        ),
        # "공지사항에" says where it goes up
        ("공지사항에 내일 정전이라 수업 없다고 올려줘", "내일 정전이라 수업 없습니다", None),
        (
            "post an announcement titled Bake Sale - bring cakes to the hall on friday",
            "Bring cakes to the hall on friday",
            "Bake Sale",
        ),
        (
            "text Emma about the concert - it starts at 6 now, not 5",
            "Concert: It starts at 6 now, not 5",
            "Concert",
        ),
    ],
)
def test_the_text_and_its_title_are_found_around_the_request(
    text: str, body: str, heading: str | None
) -> None:
    split = split_message(text)

    assert (split.body, split.heading) == (body, heading)


def test_the_fact_asked_to_go_up_with_a_polite_can_you_is_the_text_not_the_title(
    classifier: IntentClassifier,
) -> None:
    text = "다음 주 상담 신청이 금요일까지라는 거 공지로 좀 띄워줄 수 있어요?"

    understood = _ask(classifier, text)

    assert understood.tool == "create_announcement"
    assert understood.arguments["body"] == "다음 주 상담 신청이 금요일까지입니다"
    assert "수 있" not in understood.arguments["title"]


def test_two_fields_of_one_person_asked_together_are_both_looked_up() -> None:
    found = find_lookup("which class is Emma Wilson in, and what's her phone?", SCHOOL)

    assert found is not None and set(found.fields) == {"phone", "groups"}
