"""Whole requests understood without a database: slots, questions and follow-up answers."""

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

SEOUL = ZoneInfo("Asia/Seoul")
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=SEOUL)
ACADEMY = Directory(
    contacts=(
        ContactEntry("Emma Wilson", frozenset({"sms", "email"})),
        ContactEntry("Emma Park", frozenset({"sms"})),
        ContactEntry("Oliver Brown", frozenset({"email"})),
    ),
    groups=("Parents - Class A", "Teachers"),
    requester=Requester("Sam", "sam@example.com"),
)


def _ask(
    classifier: IntentClassifier, text: str, history: list[tuple[str, str]] | None = None
) -> Understanding:
    return understand(
        text,
        history=history or [],  # type: ignore[arg-type]
        directory=ACADEMY,
        now=NOW,
        tz=SEOUL,
        classifier=classifier,
    )


def test_words_after_the_recipient_are_the_message(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "tell Emma Wilson the trip is cancelled")

    assert found.arguments == {"to": ["Emma Wilson"], "body": "The trip is cancelled"}


def test_a_time_after_the_recipient_is_not_taken_for_the_message(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "send a text to Emma Wilson tomorrow at 9am")

    assert (found.tool, found.question) == (None, "What should the SMS say?")


def test_a_day_without_a_time_is_asked_about(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "remind the teachers on Friday to hand in grades")

    assert (found.question, found.slot) == ("At what time on Friday?", "when")


def test_the_answer_to_what_time_completes_the_reminder(classifier: IntentClassifier) -> None:
    asked = "remind the teachers on Friday to hand in grades"
    question = _ask(classifier, asked).question or ""

    found = _ask(classifier, "8am", [("user", asked), ("assistant", question)])

    assert found.arguments["due_at"] == "2026-11-27T08:00:00+09:00"
    assert found.arguments["arguments"] == {"to": ["Teachers"], "body": "Hand in grades"}


def test_two_questions_in_a_row_complete_one_request(classifier: IntentClassifier) -> None:
    first = _ask(classifier, "text Emma")
    history = [("user", "text Emma"), ("assistant", first.question or "")]
    second = _ask(classifier, "Emma Park", history)
    history += [("user", "Emma Park"), ("assistant", second.question or "")]

    found = _ask(classifier, "see you at 5", history)

    assert (first.slot, second.slot) == ("which", "body")
    assert found.arguments == {"to": ["Emma Park"], "body": "See you at 5"}


def test_a_new_request_replaces_an_unanswered_question(classifier: IntentClassifier) -> None:
    question = _ask(classifier, "text Emma").question or ""

    found = _ask(
        classifier,
        "email Oliver Brown that the report is ready",
        [("user", "text Emma"), ("assistant", question)],
    )

    assert found.tool == "send_email" and found.arguments["to"] == ["Oliver Brown"]


def test_a_reminder_goes_by_email_to_a_contact_without_a_phone(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "remind Oliver tomorrow at 9am to bring his laptop")

    assert found.arguments["tool"] == "send_email"
    assert found.arguments["arguments"]["to"] == ["Oliver Brown"]


def test_a_question_that_sounds_like_a_request_is_not_an_action(
    classifier: IntentClassifier,
) -> None:
    assert _ask(classifier, "how do I request a new laptop").tool is None


def test_blank_text_is_not_an_action(classifier: IntentClassifier) -> None:
    assert _ask(classifier, "   ") == Understanding("knowledge", 0.0)


def test_a_korean_request_is_asked_about_in_korean(classifier: IntentClassifier) -> None:
    assert _ask(classifier, "문자 보내줘").question == "문자를 누구에게 보낼까요?"


def test_a_day_given_as_the_answer_is_asked_about_again_for_its_time(
    classifier: IntentClassifier,
) -> None:
    asked = "remind the teachers to hand in grades"
    question = _ask(classifier, asked).question or ""

    found = _ask(classifier, "on Friday", [("user", asked), ("assistant", question)])

    assert question == 'When should it go out? For example "tomorrow at 9am".'
    assert (found.question, found.slot) == ("At what time on Friday?", "when")


def test_a_question_naming_a_contact_is_not_an_action_even_if_it_sounds_like_one() -> None:
    always_sms = IntentClassifier(
        lambda texts: [[1.0, 0.0] for _ in texts], exemplars={"send_sms": ["text Mia"]}
    )

    found = _ask(always_sms, "Is Oliver Brown in class today?")

    assert (found.label, found.tool, found.question) == ("knowledge", None, None)


def test_a_message_with_a_stated_sending_time_is_scheduled(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "On Monday at 8am text Emma Wilson that the gym is closed")

    assert found.tool == "schedule_reminder"
    assert found.arguments["due_at"] == "2026-11-30T08:00:00+09:00"
    assert found.arguments["tool"] == "send_sms"
    assert found.arguments["arguments"]["to"] == ["Emma Wilson"]


def test_a_korean_message_with_a_sending_time_is_scheduled(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "내일 오후 4시에 올리버 브라운한테 이메일로 숙제 확인하라고 보내줘")

    assert (found.tool, found.arguments["tool"]) == ("schedule_reminder", "send_email")
    assert found.arguments["due_at"] == "2026-11-24T16:00:00+09:00"
    assert found.arguments["arguments"]["body"] == "숙제 확인하세요"


def test_a_sending_time_that_already_passed_today_is_asked_about_not_sent_now(
    classifier: IntentClassifier,
) -> None:
    # NOW is 10:00: "today at 8am" is two hours gone.
    found = _ask(classifier, "today at 8am text Emma Wilson that the gym is closed")

    assert (found.tool, found.slot) == (None, "when")
    assert found.question == (
        '"today 8am" has already passed. When should it go out? For example "tomorrow at 9am".'
    )


def test_the_answer_to_a_passed_time_schedules_the_message(classifier: IntentClassifier) -> None:
    asked = "today at 8am text Emma Wilson that the gym is closed"
    question = _ask(classifier, asked).question or ""

    found = _ask(classifier, "at 5pm", [("user", asked), ("assistant", question)])

    assert (found.tool, found.arguments["tool"]) == ("schedule_reminder", "send_sms")
    assert found.arguments["due_at"] == "2026-11-23T17:00:00+09:00"
    assert found.arguments["arguments"]["to"] == ["Emma Wilson"]


def test_a_korean_reminder_for_a_time_already_gone_today_is_asked_about(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "오늘 오전 9시에 선생님들한테 회의 있다고 리마인더 보내줘")

    assert (found.tool, found.slot) == (None, "when")
    assert (found.question or "").startswith("말씀하신 시간(")
    assert "이미 지났어요" in (found.question or "")


def test_a_day_inside_the_message_does_not_schedule_it(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "text Emma Wilson that the recital is on Friday")

    assert (found.tool, found.arguments["body"]) == ("send_sms", "The recital is on Friday")


def test_a_reminder_by_text_with_no_time_is_sent_now(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "Remind the parents of class A by SMS that photos are on Thursday")

    assert found.tool == "send_sms"
    assert found.arguments == {"to": ["Parents - Class A"], "body": "Photos are on Thursday"}


def test_a_few_words_before_a_colon_do_not_become_the_message(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "Heads up: email Oliver Brown that the invoice is attached")

    assert found.tool == "send_email"
    assert (found.arguments["to"], found.arguments["body"]) == (
        ["Oliver Brown"],
        "The invoice is attached",
    )


def test_tell_me_with_nobody_named_is_a_question_not_a_message(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "이번 주 시간표 좀 알려줘")

    assert found.tool is None and found.question is None


def test_an_english_name_written_in_hangul_is_the_contact(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "올리버 선생님께 내일 수업 없다고 문자해줘")

    assert found.tool == "send_sms"
    assert found.arguments == {"to": ["Oliver Brown"], "body": "내일 수업 없습니다"}


def test_a_hangul_first_name_two_contacts_share_is_asked_about(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "엠마한테 숙제 검사 끝났다고 문자 좀")

    assert found.slot == "which"


def test_a_news_post_is_an_announcement(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "put up a news post: the library has new laptops")

    assert found.tool == "create_announcement"
    assert found.arguments["body"] == "The library has new laptops"


def test_tell_him_after_a_comma_starts_the_message(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "fire off a text to Emma Wilson, tell her the choir starts at 4")

    assert found.arguments == {"to": ["Emma Wilson"], "body": "The choir starts at 4"}


def test_reminding_them_of_something_is_the_message_not_a_reminder(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "send the teachers a text reminding them the staff photo is at 9")

    assert (found.tool, found.arguments) == (
        "send_sms",
        {"to": ["Teachers"], "body": "The staff photo is at 9"},
    )


def test_a_korean_group_named_with_e_is_the_recipient(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "교사 그룹에 오후 회의실 바뀌었다고 문자 돌려줘")

    assert found.tool == "send_sms"
    assert found.arguments["to"] == ["Teachers"]
    assert "회의실" in found.arguments["body"]


def test_a_korean_announcement_with_a_spaced_verb_has_a_real_title(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "내일 정전 예정이라고 공지해 줘")

    assert found.tool == "create_announcement"
    assert "정전" in found.arguments["body"]
    assert "줘" not in (found.arguments.get("title") or "")


def test_an_unknown_name_and_no_message_asks_who_first(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "text Zelda")

    assert (found.tool, found.slot, found.question) == (
        None,
        "to",
        "I don't know anyone called “Zelda”. Who should get this SMS?",
    )


def test_a_request_that_names_no_text_asks_for_it_rather_than_sending_the_request(
    classifier: IntentClassifier,
) -> None:
    # The words after the recipient are the request itself, not a message to deliver.
    for text in ("Emma Wilson한테 문자 좀 해줘", "A반 학부모님들한테 교재비 리마인더 걸어줘"):
        found = _ask(classifier, text)

        assert found.tool is None and found.question is not None, (text, found.arguments)
        assert "내용" in found.question or "언제" in found.question, found.question


def test_words_after_the_recipient_that_say_something_are_still_the_message(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "Emma Wilson한테 내일 수업 없어요 문자 보내줘")

    assert found.arguments == {"to": ["Emma Wilson"], "body": "내일 수업 없어요"}


def test_an_announcement_for_everyone_has_no_audience_rather_than_a_question(
    classifier: IntentClassifier,
) -> None:
    for text in (
        "Announce to all parents and staff that the car park is closed on Monday",
        "학부모님이랑 선생님 모두 보시게 월요일 주차장 폐쇄 공지 올려줘",
    ):
        found = _ask(classifier, text)

        assert found.tool == "create_announcement", (text, found.question)
        assert found.arguments["audience"] is None


def test_an_announcement_to_one_group_keeps_it(classifier: IntentClassifier) -> None:
    for text in (
        "Announce to the teachers that the car park is closed on Monday",
        "모든 선생님께 월요일 주차장 폐쇄 공지 올려줘",
    ):
        found = _ask(classifier, text)

        assert found.tool == "create_announcement", (text, found.question)
        assert found.arguments["audience"] == "Teachers"


def test_an_announcement_with_a_time_is_scheduled_for_then(classifier: IntentClassifier) -> None:
    found = _ask(
        classifier, "post an announcement for everyone in 3 days at 9:00 saying the gym reopens"
    )

    assert found.tool == "schedule_reminder" and found.arguments is not None
    assert found.arguments["due_at"] == "2026-11-26T09:00:00+09:00"
    assert found.arguments["tool"] == "create_announcement"
    assert found.arguments["arguments"]["body"] == "The gym reopens"
    assert found.arguments["arguments"]["audience"] is None


def test_a_message_to_schedule_with_no_time_asks_when(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "schedule a text to Emma Wilson saying the books are in")

    assert (found.tool, found.slot) == (None, "when")


def test_a_name_in_the_possessive_is_who_the_message_is_about(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "email Oliver Brown that Emma's lunchbox is in the office")

    assert found.arguments is not None and found.arguments["to"] == ["Oliver Brown"]


def test_a_comma_after_the_channel_starts_the_message(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "send Emma Wilson an email, the class A trip photos are online")

    assert found.arguments is not None
    assert (found.arguments["to"], found.arguments["body"]) == (
        ["Emma Wilson"],
        "The class A trip photos are online",
    )


def test_hurried_channel_words_name_their_tools(classifier: IntentClassifier) -> None:
    assert _ask(classifier, "tg emma wilson the bus is late").tool == "send_telegram"
    assert _ask(classifier, "pls post an anouncement, the gym is closed today").tool == (
        "create_announcement"
    )
    assert _ask(classifier, "put something on the board: the gym is closed today").tool == (
        "create_announcement"
    )


def test_do_me_a_favour_does_not_make_me_the_recipient(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "could you do me a favour and text Emma Wilson that class is at 4pm")

    assert found.arguments is not None and found.arguments["to"] == ["Emma Wilson"]


def test_a_notice_period_is_not_an_announcement(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "how much notice do teachers need to give for a day off?")

    assert found.tool is None and found.question is None


def test_a_name_nobody_has_is_said_and_the_answer_to_who_completes_the_request(
    classifier: IntentClassifier,
) -> None:
    first = _ask(classifier, "text the principal that I'll be 10 minutes late")
    history = [("user", "text the principal that I'll be 10 minutes late")]
    history.append(("assistant", first.question or ""))

    found = _ask(classifier, "Emma Wilson", history)

    assert first.question == "I don't know anyone called “the principal”. Who should get this SMS?"
    assert found.arguments == {"to": ["Emma Wilson"], "body": "I'll be 10 minutes late"}


def test_a_korean_name_nobody_has_is_said_with_its_title(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "민수 어머님께 문자: 내일 보강 있습니다")

    assert (
        found.question == "'민수 어머님'(이)라는 연락처나 그룹이 없어요. 문자를 누구에게 보낼까요?"
    )


def test_the_channel_the_request_names_wins_over_one_inside_the_message(
    classifier: IntentClassifier,
) -> None:
    sms = _ask(classifier, "text Emma Wilson: I sent the receipt by email")
    email = _ask(classifier, "email Oliver Brown saying did you get my text message?")
    korean = _ask(classifier, "Emma Wilson한테 문자: 메일함 확인 부탁드려요")

    assert (sms.tool, email.tool, korean.tool) == ("send_sms", "send_email", "send_sms")


def test_a_channel_typed_with_a_slipped_key_is_still_the_channel(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "에마 윌슨 어머님께 문ㅈ자 : 결제 영수증 이메일로 보내드렸어요")

    assert found.tool == "send_sms"
    assert found.arguments == {"to": ["Emma Wilson"], "body": "결제 영수증 이메일로 보내드렸어요"}


def test_an_announcement_for_a_group_only_has_that_audience_and_no_made_up_title(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "선생님들만 보시는 공지로 올려 주세요: 퇴근 전 교실 창문 잠금 꼭 확인")

    assert found.arguments == {
        "title": "퇴근 전 교실 창문 잠금 꼭 확인",
        "body": "퇴근 전 교실 창문 잠금 꼭 확인",
        "audience": "Teachers",
    }


def test_message_with_a_name_and_nothing_else_asks_what_to_say(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "message oliver")

    assert found.tool is None and found.question is not None
    assert found.question.startswith("What should the")


def test_an_answer_that_mentions_cancelling_is_the_message_not_a_cancel(
    classifier: IntentClassifier,
) -> None:
    first = _ask(classifier, "Emma Wilson한테 문자 하나 보내줘")
    history = [("user", "Emma Wilson한테 문자 하나 보내줘"), ("assistant", first.question or "")]

    found = _ask(classifier, "내용은 이번 주 토요일 보강 취소됐다고", history)

    assert first.question == "문자 내용을 뭐라고 할까요?"
    assert found.arguments == {"to": ["Emma Wilson"], "body": "이번 주 토요일 보강 취소됐습니다"}


def test_an_announcement_said_by_its_purpose_is_drafted_and_a_bare_subject_is_asked_about(
    classifier: IntentClassifier,
) -> None:
    thanks = _ask(classifier, "put something on the board thanking everyone who came to open day")
    subject = _ask(classifier, "post an announcement about the fire drill")

    assert thanks.arguments is not None
    assert thanks.arguments["body"] == "Thank you to everyone who came to open day."
    assert subject.question == "What should the announcement say?"


def test_a_korean_announcement_to_go_up_later_is_scheduled(classifier: IntentClassifier) -> None:
    found = _ask(
        classifier, "3일 후 오전 11시에 전체 공지로 겨울특강 신청 마감됐다는 거 올라가게 예약해 둬"
    )

    assert found.tool == "schedule_reminder" and found.arguments is not None
    assert found.arguments["tool"] == "create_announcement"
    assert found.arguments["arguments"]["body"] == "겨울특강 신청 마감됐습니다"
    assert found.arguments["due_at"].startswith("2026-11-26T11:00")


def test_a_channel_named_only_to_be_passed_over_is_not_the_one_used(
    classifier: IntentClassifier,
) -> None:
    korean = _ask(
        classifier,
        "Emma Wilson한테 문자보다 이메일이 편하다고 하셨어요. 그쪽으로 내일 휴강이라고 전해 주세요",
    )
    english = _ask(classifier, "text Emma Wilson rather than email: the trip is on")

    assert (korean.tool, english.tool) == ("send_email", "send_sms")


@pytest.mark.parametrize(
    "question",
    [
        "Who invented the telegram?",
        "What does the announcement of 1905 say about taxes?",
        "세종대왕이 새 문자를 만든 해는 언제인가요?",
        "지진 경보 알림은 어떤 기준으로 발송되나요?",
        "공지사항은 보통 누가 써요?",
        "이메일 비밀번호 바꾸려면 어떻게 해요?",
    ],
)
def test_a_question_about_something_that_names_a_channel_is_not_a_request(
    classifier: IntentClassifier, question: str
) -> None:
    found = _ask(classifier, question)

    assert found.tool is None and found.question is None


@pytest.mark.parametrize(
    ("request_", "tool"),
    [
        ("How about texting Emma Wilson that the trip is on?", "send_sms"),
        ("Emma Wilson한테 몇 시에 끝나는지 문자로 물어봐요", "send_sms"),
        ("Oliver Brown한테 언제 오시는지 이메일로 여쭤봐", "send_email"),
    ],
)
def test_a_request_phrased_with_a_question_word_is_still_a_request(
    classifier: IntentClassifier, request_: str, tool: str
) -> None:
    assert _ask(classifier, request_).tool == tool


def test_can_you_send_a_text_asks_what_it_should_say(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "Emma Wilson께 문자 보내줄 수 있어요?")

    assert found.question == "문자 내용을 뭐라고 할까요?"


def test_how_to_send_said_after_the_message_is_not_part_of_it(
    classifier: IntentClassifier,
) -> None:
    after = _ask(classifier, "I need to tell Emma Wilson that the trip is cancelled, by SMS please")
    before = _ask(
        classifier, "pls drop a line to Oliver Brown by email - meeting moved to Thursday"
    )

    assert after.tool == "send_sms" and after.arguments is not None
    assert after.arguments["body"] == "The trip is cancelled"
    assert before.arguments is not None and before.arguments["body"] == "Meeting moved to Thursday"


def test_a_subject_given_with_the_and_a_request_asking_him_to_do_something(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        'Could you send an e-mail to Oliver Brown with the subject "Cover" asking him to cover '
        "period 3?",
    )

    assert found.arguments == {
        "to": ["Oliver Brown"],
        "subject": "Cover",
        "body": "Could you cover period 3?",  # asked of him, as he will read it
    }


def test_a_korean_request_for_a_week_later_with_the_channel_in_a_so_that_clause(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "일주일 뒤 오전 11시에 Oliver Brown께 재등록 안내 메일이 나가도록 설정해 주실래요? "
        "제목은 '겨울학기 재등록 안내'요",
    )

    assert found.tool == "schedule_reminder" and found.arguments is not None
    assert found.arguments["due_at"].startswith("2026-11-30T11:00")
    assert found.arguments["tool"] == "send_email"
    assert found.arguments["arguments"]["subject"] == "겨울학기 재등록 안내"
    assert found.arguments["arguments"]["body"] == "재등록 안내"


def test_english_text_quoted_in_a_korean_request_is_sent_as_it_is(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "Emma Wilson님이랑 Oliver Brown님께 'Please bring a packed lunch' 라고 문자 한 통씩 "
        "보내주실 수 있을까요?",
    )

    assert found.arguments == {
        "to": ["Emma Wilson", "Oliver Brown"],
        "body": "Please bring a packed lunch",
    }


@pytest.mark.parametrize(
    "text",
    [
        "My train gets in at 11am tomorrow, so I'll be late for the briefing. Text Emma Wilson "
        "to start without me.",
        "Parents' evening runs until 8pm on Thursday and I'm on duty. "
        "Please email Oliver Brown that I can't do the Thursday call.",
        "목요일 오후 3시에 학부모 면담이 잡혀 있거든요. 올리버 브라운한테 메일로 그날 통화는 "
        "어렵다고 전해 주세요",
        "The school concert starts at 6pm on Friday. Text Emma Wilson to bring the music stand.",
    ],
)
def test_a_time_in_the_explanation_before_the_request_is_not_when_to_send(
    classifier: IntentClassifier, text: str
) -> None:
    found = _ask(classifier, text)

    assert found.tool in {"send_sms", "send_email"}
    assert "due_at" not in found.arguments


@pytest.mark.parametrize(
    "text",
    [
        "Friday at 4pm. Text Emma Wilson that the library closes early.",
        "Please send it on Friday at 4pm. Text Emma Wilson that the library closes early.",
    ],
)
def test_a_time_said_for_the_sending_before_the_request_still_schedules_it(
    classifier: IntentClassifier, text: str
) -> None:
    found = _ask(classifier, text)

    assert found.tool == "schedule_reminder"
    assert found.arguments["due_at"] == "2026-11-27T16:00:00+09:00"


def test_asking_someone_whether_they_can_sends_them_the_question(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "could you email Oliver Brown and ask whether he could swap duties?")

    assert found.arguments == {
        "to": ["Oliver Brown"],
        "body": "Could you swap duties?",
        "subject": "Could you swap duties?",
    }


def test_telling_people_to_do_something_sends_them_the_instruction(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "text the Class A parents to sign their permission slips tonight")

    assert found.arguments == {
        "to": ["Parents - Class A"],
        "body": "Please sign your permission slips tonight",
    }


def test_a_question_between_two_readings_offers_them_as_choices(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "text Emma that practice is off tonight")

    assert found.slot == "which"
    assert sorted(found.choices) == ["Emma Park", "Emma Wilson"]


def test_a_question_with_no_readings_to_choose_offers_none(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "send a text to Oliver Brown")

    assert found.question is not None and found.choices == ()


@pytest.mark.parametrize(
    "text",
    [
        "B반 담임쌤한테 내일 상담 취소됐다고 문자 보내줘",
        "email the form tutor of class A that the trip money is due",
        "text our homeroom teacher that I'm running late",
        "email one of the teachers that the printer has paper again",
        "학부모님 중 한 분께 상담 일정 문자 좀 보내줘",
    ],
)
def test_a_person_named_by_their_role_in_a_group_is_asked_about_not_sent_to_groups(
    classifier: IntentClassifier, text: str
) -> None:
    found = _ask(classifier, text)

    assert found.tool is None and found.slot == "to"
    assert "Teachers" not in (found.question or "")


@pytest.mark.parametrize(
    "text",
    [
        "Emma Wilson한테 문자 하나 보내야 되는데 좀 부탁해요",
        "올리버한테 메일 하나 써야 하는데 도와줘",
    ],
)
def test_a_request_whose_text_is_only_the_asking_asks_what_to_say(
    classifier: IntentClassifier, text: str
) -> None:
    found = _ask(classifier, text)

    assert (found.tool, found.slot) == (None, "body")


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("we need to post an announcement for the parents, can you give me a hand?", "body"),
        ("I have to email Oliver Brown, could you help?", "body"),
        ("Emma Wilson한테 문자 보내야 하는데", "body"),
    ],
)
def test_a_need_stated_for_what_a_tool_makes_is_a_request_for_it(
    classifier: IntentClassifier, text: str, asked: str
) -> None:
    found = _ask(classifier, text)

    assert found.label in {"create_announcement", "send_email", "send_sms"}
    assert found.slot == asked


@pytest.mark.parametrize(
    "text",
    [
        "I'd like to read the announcement from last week about parking",
        "I need to understand what the e-mail policy says about attachments",
        "지난주 공지 내용을 다시 읽고 싶어요",
    ],
)
def test_a_need_to_know_is_a_question_whatever_tool_its_words_name(
    classifier: IntentClassifier, text: str
) -> None:
    found = _ask(classifier, text)

    assert found.tool is None and found.question is None


def test_help_me_does_not_make_me_the_recipient(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "can you help me send an SMS to Emma Wilson? the bus is late")

    assert found.question is None or "only reach you" not in found.question


def test_a_request_made_on_my_behalf_is_not_addressed_to_me(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "would you e-mail Oliver Brown for me, please?")

    assert (found.tool, found.question) == (None, "What should the e-mail say?")


def test_on_my_behalf_after_the_text_is_not_part_of_it(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "text Emma Wilson that the coach leaves at noon, for me")

    assert found.arguments == {"to": ["Emma Wilson"], "body": "The coach leaves at noon"}


@pytest.mark.parametrize(
    "text",
    [
        "could you forward this on to Emma Wilson?",
        "can u pass it on to the teachers",
    ],
)
def test_a_sending_verb_addressed_to_someone_is_a_request_however_it_sounds(
    classifier: IntentClassifier, text: str
) -> None:
    found = _ask(classifier, text)

    assert found.label in classifier.write_tools
    assert found.question is not None and found.question.startswith("What should")


def test_asking_how_to_send_to_someone_is_not_a_request(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "how do I send something to the teachers from here?")

    assert found.label not in classifier.write_tools


def test_an_announcement_asked_for_beside_what_it_should_say_says_that(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "Could we get a notice out to everyone? The car park will be resurfaced on Saturday.",
    )

    assert found.tool == "create_announcement"
    assert found.arguments["body"] == "The car park will be resurfaced on Saturday."


def test_an_announcement_about_it_points_back_at_what_was_said_before(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "great news, the chess club restarts in January, thursdays after lunch in room 4. "
        "please post an announcement about it? name it Chess Club",
    )

    assert found.arguments["title"] == "Chess Club"
    assert "room 4" in found.arguments["body"]


def test_korean_reported_speech_before_the_request_is_the_announcement(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier,
        "다음 주 금요일은 개교기념일이라 휴원한다고 다들 아셔야 하니까 공지 좀 올려 주세요",
    )

    assert found.tool == "create_announcement"
    assert found.arguments["body"].endswith("휴원합니다")


@pytest.mark.parametrize(
    "text",
    [
        "A반 학부모님들께 준비물 안내 문자 예약 좀 해줘",
        "can you schedule a text to Emma Wilson reminding her about the forms?",
    ],
)
def test_a_message_asked_to_go_later_asks_when(classifier: IntentClassifier, text: str) -> None:
    found = _ask(classifier, text)

    assert found.label == "schedule_reminder"
    assert found.question is not None and found.slot == "when"


def test_it_in_the_text_is_what_the_recipient_asked_about(classifier: IntentClassifier) -> None:
    found = _ask(
        classifier, "Emma Wilson was asking about her lost scarf - text her that it's been found"
    )

    assert found.arguments["body"] == "Your lost scarf has been found"


def test_a_korean_notice_opens_with_what_the_request_says_it_is_about(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "Teachers 그룹에 회의 일정 안내 문자 보내줘 금요일 3시로 바뀌었다고")

    assert found.arguments["body"] == "[회의 일정 안내] 금요일 3시로 바뀌었습니다"


def test_a_reminder_labelled_before_a_colon_schedules_the_request_after_it(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "set a reminder: today 3pm text Oliver Brown that his bike is fixed")

    assert found.tool == "schedule_reminder" and found.arguments["tool"] == "send_sms"
    assert found.arguments["arguments"] == {"to": ["Oliver Brown"], "body": "His bike is fixed"}
    assert found.arguments["due_at"].startswith("2026-11-23T15:00")


@pytest.mark.parametrize(
    "text",
    ["send Emma Wilson the normal message", "text Oliver the same one as last time please"],
)
def test_a_text_named_only_by_reference_is_asked_for(
    classifier: IntentClassifier, text: str
) -> None:
    found = _ask(classifier, text)

    assert found.tool is None and found.slot == "body"


def test_a_message_on_no_named_channel_goes_by_one_the_contact_can_receive(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "send Oliver Brown a message")  # Oliver has only an e-mail address

    assert found.question == "What should the e-mail say?"


def test_the_request_s_own_question_mark_and_thanks_are_not_sent(
    classifier: IntentClassifier,
) -> None:
    found = _ask(classifier, "could you text Emma Wilson to bring her library books? thank you")

    assert found.arguments["body"] == "Please bring your library books"


def test_a_booking_the_text_tells_of_does_not_schedule_the_sending(
    classifier: IntentClassifier,
) -> None:
    found = _ask(
        classifier, "엠마 윌슨 어머님께 메일로 상담 예약 확정됐다고 안내 좀 해주세여~ 모레 3시예요"
    )

    assert found.tool == "send_email"
    assert found.arguments["body"].startswith("상담 예약 확정됐습니다")


@pytest.mark.parametrize(
    "text",
    [
        "The projector email from IT came this morning. what does the error code in it mean?",
        "I got the expenses email yesterday. do I need a receipt for a taxi?",
    ],
)
def test_what_happened_then_a_question_is_a_question_not_a_request(
    classifier: IntentClassifier, text: str
) -> None:
    assert _ask(classifier, text).tool is None


def test_a_request_then_a_question_is_still_the_request(classifier: IntentClassifier) -> None:
    found = _ask(classifier, "Text Emma Wilson that the trip is on. Is that everything?")

    assert found.tool == "send_sms"
