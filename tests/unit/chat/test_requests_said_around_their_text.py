"""Requests whose text, recipient or meaning sits around the request rather than after it:
told first, pointed back at, labelled, reported, or waved away before the real request. The
phrasings are people's, in English and Korean; none is a case of the eval sets."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from chat.builtin_model.understanding import (
    ContactEntry,
    Directory,
    IntentClassifier,
    Requester,
    Understanding,
    understand,
)
from chat.builtin_model.understanding.body import split_message
from chat.builtin_model.understanding.recipients import find_recipients
from chat.builtin_model.understanding.when import find_when

SEOUL = ZoneInfo("Asia/Seoul")
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=SEOUL)
SCHOOL = Directory(
    contacts=(
        ContactEntry("Emma Wilson", frozenset({"sms", "email"}), frozenset({"Parents - Class B"})),
        ContactEntry("Oliver Brown", frozenset({"sms", "email", "telegram"})),
        ContactEntry("James Taylor", frozenset({"sms", "email"}), frozenset({"Teachers"})),
        ContactEntry("최유나 (Choi Yuna)", frozenset({"sms", "telegram"}), frozenset({"Teachers"})),
        ContactEntry("김민지 (Kim Minji)", frozenset({"sms", "email", "telegram"})),
    ),
    groups=("Parents - Class A", "Parents - Class B", "Teachers"),
    requester=Requester("Sam", "sam@example.com"),
)


def _ask(classifier: IntentClassifier, text: str) -> Understanding:
    return understand(text, directory=SCHOOL, now=NOW, tz=SEOUL, classifier=classifier)


# -- what is waved away, and who "him" is -------------------------------------------------------


def test_a_question_waved_away_before_the_real_request_is_not_what_is_asked(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "did the printer get fixed? never mind, I'll look later. what I really need: email "
        "James Taylor that the meeting is at 3",
    )

    assert found.tool == "send_email"
    assert found.arguments["to"] == ["James Taylor"]


def test_him_is_the_one_person_the_message_speaks_of(classifier: IntentClassifier) -> None:
    found = _ask(
        classifier,
        "Oliver Brown's invoice is overdue and I can't sort it from here. Could you email him "
        "asking him to call the office?",
    )

    assert found.tool == "send_email"
    assert found.arguments["to"] == ["Oliver Brown"]


def test_remind_me_who_asks_a_question_now(classifier: IntentClassifier) -> None:
    assert _ask(classifier, "can you remind me who the teachers are?").tool is None


# -- recipients ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names", "ambiguous"),
    [
        ("email Emma Wilson that the parent meeting notes are uploaded", ["Emma Wilson"], []),
        (
            "three class B families asked about lunch, text Emma Wilson the menu",
            ["Emma Wilson"],
            [],
        ),
        ("두 분께 메일을 드려야 하는데요", [], []),  # "드려" sounds like Taylor, but is a verb
        ("제 차가 정비소에 들어가 있어요", [], []),
        ("선생님, 죄송하지만 최유나 선생님께 문자 좀", ["최유나 (Choi Yuna)"], []),
    ],
)
def test_words_that_only_look_like_recipients_are_not_them(
    text: str, names: list[str], ambiguous: list[list[str]]
) -> None:
    found = find_recipients(text, SCHOOL)

    assert (found.names, found.ambiguous) == (names, ambiguous)


def test_a_bare_ssaem_is_one_teacher_to_ask_about() -> None:
    assert find_recipients("쌤한테 문자 좀. 교실 바뀜", SCHOOL).described == ["쌤"]


# -- the text said before, around or labelled ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "head", "body", "heading"),
    [
        (
            "Bus 3 is running 20 minutes late. mail this to the teachers, subject: Bus delay",
            "mail this to the teachers",
            "Bus 3 is running 20 minutes late.",
            "Bus delay",
        ),
        (
            "text him pls, subject Lost coat - the blue coat is at reception",
            "text him pls",
            "The blue coat is at reception",
            "Lost coat",
        ),
        (
            "Heading 'Open day', text: doors open at 9. Post that announcement tomorrow at 8",
            "Post that announcement tomorrow at 8",
            "Doors open at 9.",
            "Open day",
        ),
        (
            "The gym is closed on Friday - that's the message I want Oliver Brown to get.",
            "that's the message I want Oliver Brown to get",
            "The gym is closed on Friday",
            None,
        ),
        (
            "회비 2만원 금요일까지 내달라고, 민지 어머님께 문자 보내줘",
            "민지 어머님께 문자 보내줘",
            "회비 2만원 금요일까지 내 주세요",
            None,
        ),
        (
            "올리버 씨한테 메일로 the room has changed to 204 라고 보내줘, 제목은 Room",
            "올리버 씨한테 메일로 보내줘",
            "The room has changed to 204",
            "Room",
        ),
        (
            "Emma Wilson은 영어가 편하셔서 영어로 문자 드려야 해요. Class starts at 5 today.",
            "Emma Wilson은 영어가 편하셔서 영어로 문자 드려야 해요.",
            "Class starts at 5 today.",
            None,
        ),
        (
            "[방학 안내]\n다음 주는 방학입니다.\n\n↑ 이거 공지로 올려줘",
            "이거 공지로 올려줘",
            "[방학 안내]\n다음 주는 방학입니다.",
            "방학 안내",
        ),
        (
            "제목 '시험 안내', 내용은 시험이 다음 주에 있습니다 — "
            "이거 공지로 모레 오전 9시에 올려줘",
            "이거 공지로 모레 오전 9시에 올려줘",
            "시험이 다음 주에 있습니다",
            "시험 안내",
        ),
    ],
)
def test_the_text_is_found_where_it_was_said(
    text: str, head: str, body: str, heading: str | None
) -> None:
    assert split_message(text) == split_message(text).__class__(head, body, heading)


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("유나 쌤께 자료가 교무실에 있다고 써서 보내줄래요?", "자료가 교무실에 있습니다"),
        (
            "전체 공지로 하나 띄워줘요, 내용은 다음 주부터 휴강한다는 내용으로요.",
            "다음 주부터 휴강합니다",
        ),
        (
            "공지 하나 부탁해요. 내용은 수업이 5시에 시작된다는 것입니다. "
            "번거롭게 해드려 죄송해요.",
            "수업이 5시에 시작됩니다",
        ),
        (
            "A반 학부모님들께 모레 일정 바뀐 거 문자로 알려드려 주세요. 모레는 3시에 끝나요",
            "모레는 3시에 끝나요",
        ),
        (
            "바쁘신데 죄송해요. 유나 쌤이 열쇠를 찾으신대요. 열쇠가 서랍에 있다고 문자로 좀 "
            "알려드려 주실 수 있을까요?",
            "열쇠가 서랍에 있습니다",
        ),
    ],
)
def test_korean_text_told_as_a_fact_goes_out_said_directly(text: str, body: str) -> None:
    assert split_message(text).body == body


def test_a_message_with_nothing_of_its_own_carries_what_was_told_before_it(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "Oliver Brown left his scarf in room 2, it's at the office now. He reads Telegram, can "
        "you let him know there?",
    )

    assert found.tool == "send_telegram"
    assert (
        found.arguments["body"] == "Oliver Brown left his scarf in room 2, it's at the office now."
    )


def test_what_it_refers_to_is_told_before_the_request(classifier: IntentClassifier) -> None:
    found = _ask(
        classifier,
        "Emma Wilson's son left his lunchbox in the hall. Please text her that she can pick it "
        "up after 3.",
    )

    assert found.arguments["body"] == (
        "Emma Wilson's son left his lunchbox in the hall. She can pick it up after 3."
    )


def test_what_to_explain_and_what_to_ask_both_go_out(classifier: IntentClassifier) -> None:
    found = _ask(
        classifier,
        "Please write to Emma Wilson by e-mail. Explain that the library book is overdue, and "
        "ask whether she could return it this week.",
    )

    assert found.arguments["body"] == (
        "The library book is overdue. Could you return it this week?"
    )


def test_a_latin_channel_word_before_a_korean_particle_is_the_channel(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "Oliver Brown 아버님께 SMS로 알림 하나 보내줘요: The bus leaves at 8.")

    assert found.tool == "send_sms"


def test_a_name_first_then_the_text_then_the_request(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "James쌤 오늘 2층 회의실 사용 불가. 문자로 전달 ㄱ")

    assert (found.tool, found.arguments["to"]) == ("send_sms", ["James Taylor"])
    assert "회의실" in found.arguments["body"]


@pytest.mark.parametrize(
    ("text", "days", "hour"),
    [("in five days at 10 in the morning, e-mail the teachers", 5, 10), ("tomorrow 9am에", 1, 9)],
)
def test_counted_days_in_words_and_a_latin_time_before_a_particle_are_read(
    text: str, days: int, hour: int
) -> None:
    when = find_when(text, now=NOW, tz=SEOUL)

    assert when is not None
    assert ((when.at.date() - NOW.date()).days, when.at.hour) == (days, hour)


@pytest.mark.parametrize(
    ("text", "head", "body", "heading"),
    [
        (
            "유나쌤한테 텔레로 특강 일정 안내좀ㅠ 이번주 금욜 오후3시",
            "유나쌤한테 텔레로 특강 일정 안내좀ㅠ",
            "[특강 일정 안내] 이번주 금욜 오후3시",
            None,
        ),
        (
            "정수기 점검 공지요~ 내일 오전 정수기 사용 불가. 제목은 알아서",
            "정수기 점검 공지요~",
            "내일 오전 정수기 사용 불가.",
            None,
        ),
        (
            "공지 하나 올려주세요. 제목은 체육대회 안내고 운동화 꼭 신고 오라고 써주세요",
            "공지 하나 올려주세요",
            "운동화 꼭 신고 오세요",
            "체육대회 안내",
        ),
        (
            "내일 오후 5시에 엠마 어머님께 메일로 교재비 안내 자동으로 가게 해줘, 영어로 써서",
            "내일 오후 5시에 엠마 어머님께 메일로 자동으로 가게 해줘",
            "교재비 안내",
            None,
        ),
    ],
)
def test_clipped_titled_and_self_sending_korean_requests_find_their_text(
    text: str, head: str, body: str, heading: str | None
) -> None:
    assert split_message(text) == split_message(text).__class__(head, body, heading)


def test_a_time_in_the_requests_own_sentence_wins_over_a_day_said_before_it(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "민지 어머님이 자꾸 잊으셔서요. 시험은 모레 오전이에요. 그러니까 내일 저녁 7시에 "
        "김민지 어머님께 문자로 시험 잊지 마시라고 예약 걸어줘",
    )

    assert found.tool == "schedule_reminder"
    assert found.arguments["due_at"].startswith("2026-11-24T19:00")
    assert found.arguments["arguments"]["body"] == "시험 잊지 마세요"


def test_an_announcement_for_parents_of_several_groups_is_for_everyone(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "학부모님들 다 보시게 공지 하나 올려줘: 다음 주 월요일은 휴원합니다")

    assert found.tool == "create_announcement"
    assert found.arguments["audience"] is None


@pytest.mark.parametrize(
    ("text", "head", "body"),
    [
        (
            "emma.wilson@example.org 이 주소로 가방 찾아놨다고 메일 좀 써줄래",
            "emma.wilson@example.org 메일 좀 써줄래",
            "가방 찾아놨습니다",
        ),
        (
            "공지 만들어줘 title은 Sports Day, body는 '운동회는 금요일입니다'",
            None,
            "운동회는 금요일입니다",
        ),
    ],
)
def test_an_address_said_first_and_an_english_label_on_a_korean_text_are_read(
    text: str, head: str | None, body: str
) -> None:
    split = split_message(text)

    assert split.body == body
    assert head is None or split.head == head


def test_a_question_after_telling_is_asked_but_would_it_be_possible_asks_for_the_action(
    classifier: IntentClassifier,
) -> None:
    asked = _ask(classifier, "I got the login e-mail an hour ago. Will the code in it still work?")
    wanted = _ask(
        classifier, "The trip is off. Would it be possible to text Emma Wilson that it's cancelled?"
    )

    assert asked.tool is None and asked.question is None
    assert wanted.tool == "send_sms"
