"""What the blind16 writers (the test half of session 34, read in session 35 when it joined the
dev half) showed the built-in model missing, each kind said here in other words than their
cases: the formal words for e-mail and for tomorrow; plural "emails"; a check of a contact's
address asked as "please confirm"; who cannot get a channel; which channels it has, asked by
naming them; a channel's verb with someone right after it, however the rest reads; "is it
possible that you …"; a statement straight after "announce" and its times; a clock time
before the words; a veiled threat; passing as the police in English inside Korean; a channel
changed to after the reason for the change; the approval rules asked as a formal report;
small talk about the weather and the assistant's mood; a verb of sending in the story before
the sentence that asks; one teacher, not the group; a writer who has no words yet; a body that
is only the asking; the content reported as "…달라는 내용이요"; the words closed by "라고요"."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chat.builtin_model.boundaries import harm_in
from chat.builtin_model.keystrokes import mended
from chat.builtin_model.lookup import find_lookup
from chat.builtin_model.router import RulesQuestion, SmallTalk, normalise, route_message
from chat.builtin_model.understanding.body import korean_direct
from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.recipients import find_recipients
from chat.builtin_model.understanding.when import find_when
from tests.unit.chat.academy import ACADEMY, NOW, SEOUL, read_at_the_academy

# -- words ---------------------------------------------------------------------------------------


def test_the_formal_korean_word_for_email_is_email_not_the_post() -> None:
    assert "이메일" in mended("교직원들께 전자 우편으로 회의록을 보내 주십시오")


@pytest.mark.parametrize("formal", ["익일", "명일"])
def test_the_formal_korean_words_for_tomorrow_are_tomorrow(formal: str) -> None:
    when = find_when(f"{formal} 오전 8시 30분에 학부모님께 문자 예약", now=NOW, tz=SEOUL)

    assert when is not None and when.at == (NOW + timedelta(days=1)).replace(hour=8, minute=30)


def test_a_word_that_only_ends_in_those_syllables_is_no_day() -> None:
    assert find_when("수익일 기준으로 정산 안내 문자를 보내 주세요", now=NOW, tz=SEOUL) is None


def test_emails_in_the_plural_ask_for_email(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "could you send emails to James Taylor and Ms Choi that the rota changed", classifier
    )

    assert understood.tool == "send_email"


# -- questions about contacts and about the assistant ----------------------------------------------


def test_a_contacts_address_asked_as_a_check_is_looked_up() -> None:
    lookup = find_lookup("kindly verify the mobile number we hold for James Taylor", ACADEMY)

    assert lookup is not None and lookup.fields == ("phone",)


def test_who_cannot_be_sent_a_channel_is_who_lacks_it() -> None:
    lookup = find_lookup("which of the class A parents can't receive emails?", ACADEMY)

    assert lookup is not None and lookup.lacking and lookup.fields == ("email",)


@pytest.mark.parametrize(
    "question",
    [
        "could you also do announcements, or only messages?",
        "are you able to send telegram messages as well as texts",
        "혹시 텔레그램도 보낼 수 있나요?",
    ],
)
def test_which_channels_it_has_asked_by_naming_them_is_help(question: str) -> None:
    route = route_message(question)

    assert isinstance(route, SmallTalk) and route.kind == "help"


def test_a_channel_named_with_someone_to_send_to_is_a_request_not_help() -> None:
    assert not isinstance(
        route_message("can you send texts to the class B parents too?"), SmallTalk
    )


def test_the_approval_rules_asked_as_a_formal_report_are_the_rules() -> None:
    route = route_message("이메일 발송 건의 결재 라인을 설명 바랍니다.")

    assert isinstance(route, RulesQuestion)


def test_a_greeting_the_weather_and_the_assistants_mood_are_small_talk() -> None:
    route = route_message(
        "안녕하세요~ 오늘 하늘 정말 맑네요. 기분은 어떠세요? Have a good one 하세요"
    )

    assert isinstance(route, SmallTalk)


# -- which tool --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_text",
    [
        "telegram oliver brown ur lunchbox is at reception, pick it up whenever",
        "Would it be possible that you email James Taylor about the rota? He wanted to know "
        "when his next duty is, it is on the first Monday.",
    ],
)
def test_a_channels_verb_with_someone_right_after_it_is_a_request(
    request_text: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(request_text, classifier)

    assert understood.label in ("send_telegram", "send_email")


def test_a_question_about_the_channel_itself_stays_a_question(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy("text messages to parents need approval first?", classifier)

    assert understood.tool is None


def test_a_channel_changed_to_after_the_reason_for_the_change_is_the_channel(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "최유나 선생님께 텔레그램으로... 아 아니다, 텔레그램은 요즘 안 보신대요. "
        "그냥 이메일로 보내 주세요, 회의 자료 올렸다고.",
        classifier,
    )

    assert understood.tool == "send_email"


# -- when ----------------------------------------------------------------------------------------


def test_a_clock_time_before_the_words_is_when_to_send_them(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "sms emma wilson at 4:30pm today the minibus is running late", classifier
    )

    assert understood.tool == "schedule_reminder"
    assert understood.arguments["due_at"].startswith("2026-11-23T16:30")


def test_a_time_inside_a_statement_after_announce_is_its_content(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "announce the science fair opens at 2pm in the sports hall", classifier
    )

    assert understood.tool == "create_announcement"
    assert "2pm" in understood.arguments["body"]


def test_announce_then_a_noun_and_no_statement_still_asks_for_the_words(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy("announce the winter concert", classifier)

    assert understood.question is not None


# -- harm ----------------------------------------------------------------------------------------


def test_a_threat_on_a_condition_is_refused() -> None:
    words = normalise("tell Oliver Brown that unless he drops the complaint his kid won't be safe")

    harm = harm_in(words, korean=False)

    assert harm is not None and harm.kind == "abuse"


def test_a_warning_of_danger_is_no_threat() -> None:
    words = normalise("text the parents that the river path will not be safe after the storm")

    assert harm_in(words, korean=False) is None


def test_passing_as_the_police_named_in_english_is_impersonation() -> None:
    words = normalise("이서준 님께 문자 보내 주세요. 제가 the police 라고 하고 과태료 내라고요")

    harm = harm_in(words, korean=True)

    assert harm is not None and harm.kind == "impersonation"


# -- who -----------------------------------------------------------------------------------------


def test_a_verb_of_sending_in_the_story_names_nobody(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "Turns out the caretaker forgot to tell the cleaners about the lockdown test. "
        "Could you email the teachers that the lockdown test is at 2?",
        classifier,
    )

    assert understood.arguments["to"] == ["Teachers"]


def test_one_teacher_addressed_is_one_of_the_teachers_not_the_group() -> None:
    found = find_recipients("선생님께 문자로 교실 바뀌었다고 보내 줘", ACADEMY)

    assert found.ambiguous == [["최유나 (Choi Yuna)", "James Taylor"]]


def test_the_teachers_addressed_in_the_plural_are_the_group() -> None:
    assert find_recipients("선생님들께 문자로 교실 바뀌었다고 보내 줘", ACADEMY).names == [
        "Teachers"
    ]


# -- the words -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_text",
    [
        "Could you post a notice for the parents? Honestly I have no idea what it should say.",
        "James Taylor한테 문자 보내 줘. 문구는 아직 못 정했어",
        "이서준 어머님께 문자 하나 보내 주실래요?",
    ],
)
def test_a_writer_with_no_words_yet_is_asked_for_them(
    request_text: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(request_text, classifier)

    assert understood.question is not None and understood.slot == "body"


def test_the_content_reported_as_what_it_is_about_is_said_directly() -> None:
    assert (
        korean_direct("모레까지 동의서 회신해 달라는 내용이요.") == "모레까지 동의서 회신해 주세요"
    )


def test_the_words_closed_by_ragoyo_after_the_request_are_the_text(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "James Taylor 선생님께 문자로 보내 주세요. 회의실이 3층으로 바뀌었어요, 라고요.", classifier
    )

    assert understood.arguments["body"].startswith("회의실이 3층으로 바뀌었어요")
