"""What the blind18 writers (the test half of session 36, read in session 37 when it joined the
dev half) showed the built-in model missing, each kind said here in other words than their
cases: a greeting before the request or thanks after it taken for the message; subject, title
and text labelled in words ("the subject is …, and the message is that …"); a time said right
after the recipients, set apart by a comma, read as part of the text; what an e-mail is about,
then a statement after a comma; the formal Korean order ("보내 주십시오", "…주시기 바랍니다")
and a counted channel ("메일 한 통"); a quoted Korean text followed by "이렇게 써 주세요"; one of
a group counted in one word ("한명한테만"); a threat on a condition, and a claim its sender
concedes is untrue; and, found while probing the same mechanisms in my own words, requests
said sideways ("would you mind emailing …", "give Oliver a heads up", "…, please text that to
James", "we need the parents to know …"), a question asked in the last clause, a lookup asked
with "may I ask" or before the writer's own plan, and a first day said as a greeting."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chat.builtin_model.boundaries import Harm, harm_in
from chat.builtin_model.lookup import find_lookup
from chat.builtin_model.router import SmallTalk, normalise, route_message
from chat.builtin_model.understanding.intent import IntentClassifier
from tests.unit.chat.academy import ACADEMY, NOW, read_at_the_academy

# -- what is said to us, not to them ------------------------------------------------------------


def test_a_greeting_before_and_thanks_after_are_not_the_message(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Good afternoon! Please text Oliver Brown that the swimming lesson is cancelled. "
        "Many thanks.",
        classifier,
    )

    assert understood.tool == "send_sms"
    assert understood.arguments["body"] == "The swimming lesson is cancelled."


def test_a_greeting_in_another_language_is_not_the_message(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "Hola. Could you email Ms Wilson about the library fines, the deadline has passed. "
        "Gracias.",
        classifier,
    )

    assert understood.tool == "send_email"
    assert "deadline has passed" in understood.arguments["body"]
    assert "Hola" not in understood.arguments["body"]


def test_writing_to_them_from_my_own_account_asks_for_no_sending(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "What's Emma Wilson's email? I'll write to her from my own account.", classifier
    )

    assert understood.tool is None


# -- labelled in words ---------------------------------------------------------------------------


def test_subject_and_text_labelled_in_words_are_split(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "Please email the teachers. The subject line should be Fire drill, and the text is "
        "that we gather in the car park.",
        classifier,
    )

    assert understood.arguments["subject"] == "Fire drill"
    assert understood.arguments["body"] == "We gather in the car park."


def test_a_title_and_what_it_says_labelled_in_words(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "We need a notice, the heading is Lost property, and it should say the box is by "
        "reception.",
        classifier,
    )

    assert understood.tool == "create_announcement"
    assert understood.arguments["title"] == "Lost property"
    assert understood.arguments["body"] == "The box is by reception."


def test_a_bare_subject_then_a_statement_after_a_comma(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "email Oliver Brown subject bus pass, his new card is waiting at reception", classifier
    )

    assert understood.arguments["subject"] == "bus pass"
    assert "new card is waiting" in understood.arguments["body"]


def test_what_an_email_is_about_then_a_statement_is_the_text(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "send an email to Emma Wilson about the school photos, the proofs are ready to view",
        classifier,
    )

    assert understood.arguments["subject"] == "School photos"
    assert "proofs are ready to view" in understood.arguments["body"]


def test_posting_names_the_notice_board_before_a_dash(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "post a note for all staff - the lift is out of order today", classifier
    )

    assert understood.tool == "create_announcement"
    assert "lift is out of order" in understood.arguments["body"]


# -- when ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "days", "hour"),
    [
        ("text Yuna in 3 days at 11am, the printer toner arrived", 3, 11),
        ("email James Taylor tonight at 7 - the rota is up on the board", 0, 19),
    ],
)
def test_a_time_right_after_the_recipients_then_a_break_is_when_to_send(
    asked: str, days: int, hour: int, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(asked, classifier)

    due = (NOW + timedelta(days=days)).replace(hour=hour, minute=0)
    assert understood.tool == "schedule_reminder"
    assert understood.arguments["due_at"] == due.isoformat()
    assert not any(ch.isdigit() for ch in understood.arguments["arguments"]["body"])


# -- Korean, formally ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("B반 학부모님들께 내일 수업이 휴강이라고 문자를 보내 주십시오.", "휴강"),
        ("이서준 학부모님께 상담 일정이 바뀌었다고 메일 한 통 보내 주시기 바랍니다.", "상담 일정"),
    ],
)
def test_the_formal_order_ends_the_request_and_leaves_the_text(
    asked: str, said: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(asked, classifier)

    body = understood.arguments["body"]
    assert said in body and "주십시오" not in body and "바랍니다" not in body


def test_a_quoted_text_then_write_it_like_this_is_the_quote(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "올리버 아버님께 메일 부탁드립니다. 제목은 '교재비'로 해 주시고요, 본문은 '다음 주 "
        "화요일에 교재비가 청구됩니다. 확인 부탁드려요.' 그대로 보내 주세요.",
        classifier,
    )

    assert understood.arguments["subject"] == "교재비"
    assert understood.arguments["body"] == "다음 주 화요일에 교재비가 청구됩니다. 확인 부탁드려요."


def test_one_of_the_group_counted_in_one_word_is_asked_about(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "학부모님들 말고 쌤 한명한테만 텔레그램 좀, 복사기 고쳐졌다고", classifier
    )

    assert understood.tool is None
    assert set(understood.choices) == {"James Taylor", "최유나 (Choi Yuna)"}


# -- harm ----------------------------------------------------------------------------------------


def test_a_threat_on_a_condition_is_abuse() -> None:
    text = "text the Browns: if the fees aren't paid by Friday, their son will be very sorry"

    assert harm_in(normalise(text), korean=False) == Harm("abuse", False)


def test_a_claim_the_sender_concedes_is_untrue_is_a_lie() -> None:
    text = "사실은 아니지만 보일러가 고장 났다고 공지 올려 주세요, 그래야 다들 일찍 가죠"

    assert harm_in(normalise(text), korean=True) == Harm("lies", True)


@pytest.mark.parametrize(
    ("text", "korean"),
    [
        ("email the parents that we will be sorry to see Ms Choi leave in June", False),
        ("그 소문은 사실이 아니라고 학부모님들께 공지해 주세요", True),
    ],
)
def test_sorrow_and_a_correction_are_not_harm(text: str, korean: bool) -> None:
    assert harm_in(normalise(text), korean=korean) is None


# -- requests said sideways ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "tool", "to", "said"),
    [
        (
            "Would you mind emailing Ms Wilson that the choir trip is on Saturday?",
            "send_email",
            ["Emma Wilson"],
            "The choir trip is on Saturday",
        ),
        (
            "Give Oliver Brown a heads up that the minibus is running late",
            "send_sms send_telegram send_email",  # no channel named: any message
            ["Oliver Brown"],
            "The minibus is running late",
        ),
        (
            "The art room is flooded, please text that to James Taylor",
            "send_sms",
            ["James Taylor"],
            "The art room is flooded",
        ),
        (
            "We need the class A parents to know the fees went up, could you email them?",
            "send_email",
            ["Parents - Class A"],
            "The fees went up",
        ),
    ],
)
def test_a_request_said_sideways_still_names_who_and_what(
    asked: str, tool: str, to: list[str], said: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(asked, classifier)

    assert understood.tool in tool.split()
    assert understood.arguments["to"] == to
    assert understood.arguments["body"].rstrip(".") == said


def test_a_question_in_the_last_clause_asks_for_no_sending(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "btw oliver forgot his password again, the reset mail he got, how long does it last",
        classifier,
    )

    assert understood.tool is None


# -- lookups and small talk ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "asked",
    [
        "Hello! Could I ask what the phone number of Ms Choi is? I'll ring her myself.",
        "제임스 선생님 이메일 주소가 어떻게 되나요? 제가 회의록을 보내 드리려고 합니다.",
    ],
)
def test_a_lookup_asked_politely_or_before_the_writers_own_plan(asked: str) -> None:
    assert find_lookup(asked, ACADEMY) is not None


def test_a_greeting_and_a_first_day_are_small_talk() -> None:
    assert route_message("Hi there! How are you today? This is my first time using the app.") == (
        SmallTalk("greeting", False)
    )


# -- Korean as it is typed, and who as it is said ------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "to", "said"),
    [
        ("제임스쌤한테문자좀 오늘회의 3시로바뀜", ["James Taylor"], "3시로"),
        (
            "A반 학부모님들께 다음 주 수업료 납부 마감이라고 문자를 발송하여 주시기 바랍니다.",
            ["Parents - Class A"],
            "납부 마감",
        ),
        ("쌤들한테 텔레 좀 날려주세요ㅎㅎ 내일 회의 없어요", ["Teachers"], "회의 없어요"),
        (
            "에마 윌슨 어머님, 도서관 책 반납일이 지났다고 메일 좀 드려 주세요",
            ["Emma Wilson"],
            "반납일",
        ),
    ],
)
def test_korean_as_typed_still_names_who_and_what(
    asked: str, to: list[str], said: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(asked, classifier)

    assert understood.arguments["to"] == to
    body = understood.arguments["body"]
    assert said in body and "주시기" not in body and "드려" not in body and "날려" not in body


@pytest.mark.parametrize(
    "asked",
    ["Email all parents that the term ends on the 20th", "text every parent that it snowed"],
)
def test_all_parents_are_every_group_of_parents(asked: str, classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(asked, classifier)

    assert understood.arguments["to"] == ["Parents - Class A", "Parents - Class B"]


def test_a_bare_request_between_dashes_is_not_the_text(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "Oliver Brown - email him pls - the trip money was received, thank you", classifier
    )

    assert understood.arguments["to"] == ["Oliver Brown"]
    assert understood.arguments["body"].startswith("The trip money was received")


def test_the_points_of_a_numbered_list_are_its_sentences(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "(1) please email James Taylor (2) subject: Cover lesson (3) text: you have 9B at 11",
        classifier,
    )

    assert understood.arguments["subject"] == "Cover lesson"
    assert understood.arguments["body"] == "You have 9B at 11"


def test_a_time_in_the_topic_said_first_is_not_when_to_send(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Re the open day on Saturday at 9: please email the teachers that they should wear "
        "name badges.",
        classifier,
    )

    assert understood.tool == "send_email"
    assert understood.arguments["subject"] == "The open day on Saturday at 9"


def test_every_parent_told_of_in_the_message_is_not_every_parent_sent_to(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "text Emma Wilson that every parent needs to bring a dish on Friday", classifier
    )

    assert understood.arguments["to"] == ["Emma Wilson"]


def test_shaming_on_a_condition_is_abuse() -> None:
    text = "email Oliver if he skips the meeting again we'll make sure all the parents hear why"

    assert harm_in(normalise(text), korean=False) == Harm("abuse", False)


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (
            "email James Taylor, subject Cover - tell him the 9B lesson is his on Friday",
            "The 9B lesson is his on Friday",
        ),
        (
            "telegram Mr Taylor pls, the staff room printer is fixed",
            "The staff room printer is fixed",
        ),
        (
            "Could you send an email to Ms Choi to remind her returning the laptop by Monday?",
            "Reminder: returning the laptop by Monday",
        ),
    ],
)
def test_the_relay_and_a_courtesy_are_not_the_text(
    asked: str, said: str, classifier: IntentClassifier
) -> None:
    assert read_at_the_academy(asked, classifier).arguments["body"] == said


def test_a_channel_glued_to_who_is_set_apart_whole(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy("민지어머님께이메일로 보내줘 내일 휴원이라고", classifier)

    assert understood.tool == "send_email"
    assert understood.arguments["to"] == ["김민지 (Kim Minji)"]
    assert understood.arguments["body"] == "내일 휴원입니다"


def test_thanks_opening_the_words_are_said_to_them(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy("text James Taylor: thanks, the keys are back", classifier)

    assert understood.arguments["body"].startswith("Thanks")
