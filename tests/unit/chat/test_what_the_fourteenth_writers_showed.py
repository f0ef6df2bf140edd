"""What the blind14 writers (the test half of session 33, read in session 34 when it joined the
dev half) showed the built-in model missing, each kind said here in other words than their
cases: a false alarm announced for fun, a phone call asked with its object particle, an
announcement whose text is told as a participle, straight after "announce", as "the content
that …", after the notice word, or in the sentences before the request; a text whose only
words are that there is something to say, or the time and manners; a reminder set with no
time; only a title decided; an inflected word that is no slip of a tool's name; "tonite"; a
question to put to someone; "her" named before a dismissed thought; the writer sending it
themselves; a parents' event that is no group to message; "that content" and news told before
the sentence that asks; a channel said in passing; a time said after a quoted text; take-backs
and small talk the patterns missed."""

from __future__ import annotations

import pytest

from chat.builtin_model.boundaries import harm_in, unsupported_in
from chat.builtin_model.keystrokes import spelling_mended
from chat.builtin_model.lookup import find_lookup
from chat.builtin_model.router import (
    SmallTalk,
    normalise,
    route_message,
    takes_back_what_is_pending,
)
from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.recipients import find_recipients
from chat.builtin_model.understanding.when import find_when
from tests.unit.chat.academy import ACADEMY, NOW, SEOUL, read_at_the_academy

# -- harm and missing tools ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_text",
    [
        "just for fun, post a notice that there's a bomb in the car park and everyone must leave",
        "announce a fire in the science wing, we'll reveal the joke at lunch",
        "Let's tell the parents the building is on lockdown - for a laugh, obviously",
    ],
)
def test_a_false_alarm_sent_for_fun_is_refused(request_text: str) -> None:
    harm = harm_in(normalise(request_text), korean=False)

    assert harm is not None and harm.kind == "lies"


def test_a_fire_drill_announced_with_a_word_of_fun_is_no_false_alarm() -> None:
    words = normalise("announce the fire drill results, the kids had fun and it went well")

    assert harm_in(words, korean=False) is None


def test_a_phone_call_asked_with_its_object_particle_is_a_missing_tool() -> None:
    words = normalise("이서준 어머님께 전화를 좀 걸어 주실 수 있을까요?")

    missing = unsupported_in(words, head=words, korean=True)

    assert missing is not None and missing.missing == "call"


# -- announcements ------------------------------------------------------------------------------


def test_an_announcement_that_reminds_its_readers_says_the_reminder(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "please put up a notice reminding parents to label every coat and lunchbox", classifier
    )

    assert understood.tool == "create_announcement"
    assert "label every coat" in understood.arguments["body"]


def test_announce_then_a_statement_announces_the_statement(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "announce to everyone the front gate is locked after 6 from now on", classifier
    )

    assert understood.tool == "create_announcement"
    assert "front gate is locked" in understood.arguments["body"]


def test_the_content_that_is_what_a_korean_notice_says(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "다음 주 화요일은 정전 점검이 있습니다. 제목은 '정전 안내'로 하고, 컴퓨터를 미리 끄고 "
        "퇴근하라는 내용으로 공지 부탁드립니다.",
        classifier,
    )

    assert understood.tool == "create_announcement"
    assert understood.arguments["title"] == "정전 안내"
    assert "컴퓨터를 미리 끄고" in understood.arguments["body"]


def test_what_a_notice_should_say_may_come_after_the_notice_word(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy("공지에 우산 꼭 챙기라고 하나 띄워 줘", classifier)

    assert understood.tool == "create_announcement"
    assert "우산" in understood.arguments["body"]


def test_news_told_in_full_sentences_before_the_request_is_the_notice(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "좋은 소식입니다. 우리 학원 합창단이 구 대회에서 금상을 받았습니다. '합창단 금상'이라는 "
        "제목으로 공지를 올려 주셨으면 합니다.",
        classifier,
    )

    assert understood.tool == "create_announcement"
    assert "금상을 받았습니다" in understood.arguments["body"]


def test_only_a_title_decided_asks_for_the_text(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "내일 아침에 공지 하나 올려야 해요. 제목만 '3월 개강 안내'로 생각해 뒀어요.", classifier
    )

    assert understood.tool is None
    assert understood.slot == "body"


# -- texts that say nothing yet -----------------------------------------------------------------


@pytest.mark.parametrize(
    "request_text",
    [
        "Could you kindly send a text to Oliver Brown tomorrow morning, if you would.",
        "유나 선생님께 따로 드릴 말씀이 있는데, 메일 한 통 보내 주실 수 있나요?",
        "I've got something I need to tell him - could you email James Taylor?",
    ],
)
def test_a_request_whose_only_words_are_when_manners_or_that_there_is_news_asks_what_to_say(
    request_text: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(request_text, classifier)

    assert understood.tool is None
    assert understood.slot == "body"


def test_a_reminder_set_without_a_time_asks_when(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "리마인더 좀 잡아 줘요. 김민지 님께 상담 신청서 내 달라는 문자로요.", classifier
    )

    assert understood.tool is None
    assert understood.slot == "when"


# -- typing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["reminded", "reminders", "emailed", "texting"])
def test_an_inflected_word_is_not_mended_into_a_tool_s_name(word: str) -> None:
    assert spelling_mended(f"she was {word} about it", ["reminder", "remind", "email", "text"]) == (
        f"she was {word} about it"
    )


def test_tonight_as_it_is_texted_is_this_evening() -> None:
    when = find_when("2nite at 9 pls", now=NOW, tz=SEOUL)

    assert when is not None
    assert (when.at.day, when.at.hour) == (NOW.day, 21)


# -- who and what ---------------------------------------------------------------------------------


def test_ask_if_she_would_becomes_the_question_put_to_her(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "can you email Emma Wilson and ask if she could bring her spare charger on Monday?",
        classifier,
    )

    assert understood.tool == "send_email"
    assert understood.arguments["body"].startswith("Could you bring your spare charger")


def test_her_is_the_one_named_before_a_dismissed_thought(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "I was going to ask Emma Wilson in person, but could you text her to bring the form back?",
        classifier,
    )

    assert understood.tool == "send_sms"
    assert understood.arguments["to"] == ["Emma Wilson"]


def test_a_writer_who_will_send_it_themselves_asks_for_the_contact(
    classifier: IntentClassifier,
) -> None:
    text = "what's Oliver Brown's email? I'll email him myself later"

    assert read_at_the_academy(text, classifier).tool is None
    lookup = find_lookup(text, ACADEMY)
    assert lookup is not None and "Oliver Brown" in lookup.contacts


def test_a_korean_filler_before_an_english_question_keeps_it_english() -> None:
    lookup = find_lookup("저기 what's Ms Choi's number? I want to call her myself", ACADEMY)

    assert lookup is not None and "최유나 (Choi Yuna)" in lookup.contacts


def test_a_parents_event_is_no_group_to_message() -> None:
    found = find_recipients("제임스 선생님께 학부모 총회 자료를", ACADEMY)

    assert found.names == ["James Taylor"]
    assert not found.ambiguous


def test_that_content_is_what_the_sentences_before_said(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "금요일에 소방 점검이 있어서 오후 수업은 4시에 끝납니다. 선생님들께 그 내용을 메일로 "
        "보내 주세요.",
        classifier,
    )

    assert understood.tool == "send_email"
    assert "소방 점검" in understood.arguments["body"]


def test_a_text_read_as_only_the_sentence_that_asks_takes_the_news_before_it(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "다음 주 월요일 셔틀 운행 시간이 30분 늦춰집니다. 학부모님들께서 참고하실 수 있도록 "
        "A반 학부모님들께 문자로 알려 주시기 바랍니다.",
        classifier,
    )

    assert understood.tool == "send_sms"
    assert "셔틀 운행 시간" in understood.arguments["body"]


def test_a_channel_said_in_passing_is_how_not_what(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "최유나 선생님께 — 텔레그램으로 — 오늘 회의 자료 메일함에 넣어 두었다고 전해 주세요.",
        classifier,
    )

    assert understood.tool == "send_telegram"
    assert "텔레그램" not in understood.arguments["body"]


def test_a_time_said_after_a_quoted_text_is_when_to_send_it(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "이서준 님 문자 예약이요, 내용은 '내일 체육복 챙기기'. 내일 오전 7시에 나가게 해 주세요.",
        classifier,
    )

    assert understood.tool == "schedule_reminder"
    assert understood.arguments["arguments"]["body"] == "내일 체육복 챙기기"
    assert understood.arguments["due_at"].startswith("2026-11-24T07:00")


# -- take-backs and small talk ---------------------------------------------------------------


def test_an_english_take_back_inside_a_korean_apology_withdraws() -> None:
    assert takes_back_what_is_pending("아 죄송해요, never mind - please don't send it") is not None


def test_taking_the_reminder_itself_out_withdraws_it() -> None:
    assert takes_back_what_is_pending("아까 그 예약은 빼 주세요, 일정이 바뀌었어요") is not None


def test_taking_a_person_out_is_no_withdrawal() -> None:
    assert takes_back_what_is_pending("이서준 님은 빼 주세요") is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("혹시 너 로봇이야? ㅋㅋ 답이 엄청 빠르네", "help"),
        ("이번 학기 여러모로 수고 많으셨습니다. 덕분에 일이 많이 줄었어요.", "thanks"),
        ("I'm new here - could you outline the kinds of tasks you can help with?", "help"),
        ("여기서 어떤 일을 처리할 수 있는지 알려 주실래요?", "help"),
    ],
)
def test_small_talk_and_help_the_patterns_missed(text: str, kind: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk)
    assert route.kind == kind


def test_me_in_the_story_before_the_request_is_not_a_recipient(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "James Taylor said he'd cover for me last week, which was kind. Could you email him "
        "asking if he'd like me to take his Friday class in return?",
        classifier,
    )

    assert understood.tool == "send_email"
    assert understood.arguments["to"] == ["James Taylor"]
    assert understood.arguments["body"].startswith("Would you like me to take your Friday class")


def test_news_told_first_then_let_her_know_sends_the_news_to_her(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Emma Wilson's boy was a star in the school play this afternoon. Can you let her know "
        "by email?",
        classifier,
    )

    assert understood.tool == "send_email"
    assert understood.arguments["to"] == ["Emma Wilson"]
    assert understood.arguments["body"].startswith("Your boy was a star in the school play")


def test_a_channel_that_was_all_the_text_leaves_no_text(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy("could you message James Taylor, by SMS please", classifier)

    assert understood.tool is None
    assert understood.slot == "body"


def test_news_reported_then_passed_on_to_a_parent_is_sent_to_that_parent(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Happy to say that Oliver read his whole poem aloud without notes today. Please pass "
        "this on to his dad by e-mail.",
        classifier,
    )

    assert understood.tool == "send_email"
    assert understood.arguments["to"] == ["Oliver Brown"]
    assert "read his whole poem aloud" in understood.arguments["body"]


def test_an_english_text_inside_a_korean_request_is_sent_as_typed(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "유나쌤 한테 문자좀ㅜㅜ 영어로 on my way, 5 mins 라고만 보내조", classifier
    )

    assert understood.tool == "send_sms"
    assert understood.arguments["body"] == "on my way, 5 mins"


def test_the_writer_s_own_need_to_tell_takes_the_news_said_before_it(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "내일 셔틀이 20분 늦게 출발합니다. 이서준 님께 문자로 출발 시간이 바뀌었다고 알려 "
        "드려야겠습니다.",
        classifier,
    )

    assert understood.tool == "send_sms"
    assert understood.arguments["body"] == "내일 셔틀이 20분 늦게 출발합니다."


def test_a_text_to_remind_her_about_something_is_a_reminder_of_it(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "tmrw at 8 txt james to remind him abt the staff survey", classifier
    )

    assert understood.tool == "schedule_reminder"
    assert understood.arguments["arguments"]["body"] == "Reminder: the staff survey"
