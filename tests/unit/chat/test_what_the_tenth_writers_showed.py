"""What the blind10 writers (the test half of sessions 30-31, read in session 32 when it joined
the dev half) showed the built-in model missing, each kind said here in other words than their
cases: a change of mind inside one message (another channel, another person), a text told
first and then asked about, urgency or "write it yourself" instead of a text, everyday words
one letter from a name, a person's role said after the name, and details asked as a task."""

from __future__ import annotations

import pytest

from chat.builtin_model.boundaries import unsupported_in
from chat.builtin_model.lookup import find_lookup
from chat.builtin_model.router import normalise
from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.recipients import find_recipients
from chat.builtin_model.understanding.when import find_when
from tests.unit.chat.academy import ACADEMY, NOW, SEOUL, read_at_the_academy


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("telegram Oliver Brown that the kit list is ready — no wait, email him, it's long",
         "send_email"),
        ("sms the class B parents about sports day... actually no, put up an announcement "
         "instead: sports day is moved to Friday", "create_announcement"),
        ("이서준 학부모님께 메일로 하려다가... 아냐 그냥 문자로 보내줘, 내일 보충수업 있어요",
         "send_sms"),
    ],
)  # fmt: skip
def test_a_change_of_mind_about_the_channel_takes_the_later_one(
    classifier: IntentClassifier, text: str, tool: str
) -> None:
    assert read_at_the_academy(text, classifier).tool == tool


@pytest.mark.parametrize(
    ("text", "name", "said"),
    [
        ("email the teachers that the staff room is locked — sorry, scratch that, only Mr "
         "Taylor, the others know. something like 'the staff room key is at reception'",
         "James Taylor", "key is at reception"),
        ("최유나 선생님한테 문자... 아니 제임스 선생님한테 보내줘, 오늘 회의 없어요",
         "James Taylor", "회의"),
    ],
)  # fmt: skip
def test_a_change_of_mind_about_who_sends_to_the_person_named_after_it(
    classifier: IntentClassifier, text: str, name: str, said: str
) -> None:
    understood = read_at_the_academy(text, classifier)

    assert understood.arguments["to"] == [name]
    assert said in understood.arguments["body"]
    assert (
        "scratch" not in understood.arguments["body"] and "아니" not in understood.arguments["body"]
    )


def test_a_text_told_first_and_a_question_asked_after_it_both_go_out(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "email Oliver Brown, say the choir trip is full and ask if he could drive on Saturday",
        classifier,
    )

    assert understood.arguments["body"] == ("The choir trip is full. Could you drive on Saturday?")


@pytest.mark.parametrize(
    "text",
    [
        "SMS THE TEACHERS ASAP!!! QUICKLY!!",
        "A반 학부모님들께 공지 좀 올려 주세요, 내용은 알아서 작성해 주시고요",
        "email Emma Wilson, just write something nice",
    ],
)
def test_urgency_or_leaving_the_words_to_the_assistant_asks_for_the_text(
    classifier: IntentClassifier, text: str
) -> None:
    understood = read_at_the_academy(text, classifier)

    assert understood.tool is None and understood.slot == "body"


def test_a_message_said_to_go_now_and_not_be_scheduled_is_sent_now(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "text Emma Wilson right away, no need to schedule it: the bus leaves at 4:30 tomorrow",
        classifier,
    )

    assert understood.tool == "send_sms"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("list the names in the class A parents group", ["Parents - Class A"]),
        ("text Oliver Brown that games night starts at 6", ["Oliver Brown"]),
        ("email Emma Wilson, the class B parent rep, about the raffle", ["Emma Wilson"]),
        ("샘들한테 문자 좀 돌려줘", ["Teachers"]),
        ("서준이 아버님이 직접 데리러 오신대요", ["이서준 (Lee Seojun)"]),
    ],
)
def test_everyday_words_and_a_role_after_a_name_name_nobody_else(
    text: str, names: list[str]
) -> None:
    assert find_recipients(text, ACADEMY).names == names


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("Look up Emma Wilson: mobile number please", "phone"),
        ("김민지 어머님 전화번호 조회 부탁드립니다", "phone"),
        ("what chat id do we have for Oliver Brown", "telegram"),
    ],
)
def test_a_detail_asked_as_a_task_is_a_lookup(text: str, field: str) -> None:
    found = find_lookup(text, ACADEMY)

    assert found is not None and field in found.fields


def test_money_sent_to_an_account_is_a_payment_it_cannot_make() -> None:
    text = normalise("이번 달 교통비는 최유나 선생님 계좌로 송금하도록 처리해 주세요")

    found = unsupported_in(text, head=text, korean=True)

    assert found is not None and found.missing == "payment"


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("remind the teachers by email today at 4pm — no wait, make that tomorrow, same time: "
         "'report cards are due'", "2026-11-24T16:00:00+09:00"),
        ("모레 오전 10시에 B반 학부모님들께 문자 예약해 줘... 아니 내일, 같은 시간으로. "
         "내용은 체험학습 동의서 제출", "2026-11-24T10:00:00+09:00"),
    ],
)  # fmt: skip
def test_a_change_of_mind_about_the_day_keeps_the_time_said_before(
    classifier: IntentClassifier, text: str, due: str
) -> None:
    assert read_at_the_academy(text, classifier).arguments["due_at"] == due


def test_half_an_hour_in_british_speech_is_half_past() -> None:
    found = find_when("in 3 days at half nine in the morning", now=NOW, tz=SEOUL)

    assert found is not None and (found.at.hour, found.at.minute) == (9, 30)


def test_who_called_is_spoken_of_when_the_asking_sentence_names_whom_to_write(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Emma Wilson rang — her daughter has a fever and goes home at 1. "
        "Can you text James Taylor so he isn't surprised?",
        classifier,
    )

    assert understood.arguments["to"] == ["James Taylor"]
    assert "fever" in understood.arguments["body"]


def test_an_about_in_a_sentence_told_first_is_no_topic_of_the_request(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Oliver Brown phoned about the bus. Please email Emma Wilson and Oliver Brown that "
        "the bus leaves at 8.",
        classifier,
    )

    assert sorted(understood.arguments["to"]) == ["Emma Wilson", "Oliver Brown"]
    assert "Oliver" not in (understood.arguments.get("subject") or "")


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("'체육대회 안내'라는 제목으로 A반 학부모님께 메일 보내 주세요. "
         "내용은 금요일에 체육대회가 있습니다", "체육대회 안내"),
        ("\"교재 구입 안내\"라는 제목의 공지를 올려 주시기 바랍니다. 본문에는 교재를 다음 주까지 "
         "구입해야 한다는 내용을 담도록 해 주세요", "교재 구입 안내"),
    ],
)  # fmt: skip
def test_a_quoted_heading_said_before_its_label_is_the_heading_and_the_text_is_direct(
    classifier: IntentClassifier, text: str, heading: str
) -> None:
    arguments = read_at_the_academy(text, classifier).arguments

    assert heading in (arguments.get("subject"), arguments.get("title"))
    assert "내용을" not in arguments["body"] and "라는" not in arguments["body"]
