"""What the blind20 writers (the test half of session 38, read in session 39 when it joined the
dev half) showed the built-in model missing, each kind said here in other words than their
cases: who given as a field of its own after the text ("Recipients: …", "받는 분: …"); a surname
that is also a word of the sentence ("the car park"); the thing sent named after who ("send Emma
a text her …"); a notice named, then at once what it says; a clock time dictated with a space
("6 30 in the evening"); another channel named only as news or as the text's subject; ordinary
Korean words that hold a harm cue ("준비하다" holds "비하"); a kind of group counted with
something other than people ("쌤들 연차 몇 개"); a request that only asks politely, with no words
yet; Korean typed fast ("…늦는다고좀..", "문자 오늘셔틀없어요"); the news named as the object of
the telling verb ("내일 휴강을 안내해 주세요"); "that way" for the channel just named; a remark
that asks nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chat.builtin_model.boundaries import harm_in
from chat.builtin_model.dataqa import plan_data_question
from chat.builtin_model.lookup import find_lookup
from chat.builtin_model.router import (
    CannotDo,
    normalise,
    remark_by_meaning,
    route_message,
)
from chat.builtin_model.understanding import ContactEntry, Directory
from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.understand import understand
from tests.unit.chat.academy import ACADEMY, NOW, SEOUL, read_at_the_academy

# -- who, said apart ------------------------------------------------------------------------------


def test_recipients_given_as_a_field_after_the_quoted_text(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "Please send this text exactly as written: 'The minibus is delayed by twenty minutes "
        "this afternoon.' Recipients: Mr James Taylor and Ms Emma Wilson.",
        classifier,
    )

    assert understood.tool == "send_sms"
    assert understood.arguments["to"] == ["James Taylor", "Emma Wilson"]
    assert understood.arguments["body"].startswith("The minibus is delayed")


def test_a_group_in_brackets_after_a_labelled_name_says_which_one(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Could you forward this via Telegram: 'Please bring a packed lunch on Friday.' The "
        "recipient is Mr Oliver Brown (Class B).",
        classifier,
    )

    assert understood.tool == "send_telegram"
    assert understood.arguments["to"] == ["Oliver Brown"]


def test_a_korean_recipient_field_after_a_labelled_text(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "문자 부탁드려요. 내용: 내일 체육복 챙겨오세요. 받는 분: B반 학부모님", classifier
    )

    assert understood.tool == "send_sms"
    assert understood.arguments["to"] == ["Parents - Class B"]
    assert "체육복" in understood.arguments["body"]


# -- names that are words of the sentence ---------------------------------------------------------

_WITH_PARK = Directory(
    contacts=(
        *ACADEMY.contacts,
        ContactEntry("박지우 (Park Jiwoo)", frozenset({"sms", "telegram"}), frozenset()),
    ),
    groups=ACADEMY.groups,
)


@pytest.mark.parametrize(
    "text",
    [
        "send emma wilson a telegram her umbrella is still in the car park",
        "text Emma Wilson the gates are shut so dont park there",
    ],
)
def test_a_surname_after_an_article_or_a_not_is_a_word_of_the_sentence(
    text: str, classifier: IntentClassifier
) -> None:
    understood = understand(
        text, history=[], directory=_WITH_PARK, now=NOW, tz=SEOUL, classifier=classifier
    )

    assert understood.arguments["to"] == ["Emma Wilson"]
    assert (
        "park there" in understood.arguments["body"] or "car park" in (understood.arguments["body"])
    )


def test_the_thing_sent_named_after_who_is_not_the_text(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "send emma wilson a text her library books are due", classifier
    )

    assert understood.arguments["body"] == "Her library books are due"


# -- notices and times said in a rush --------------------------------------------------------------


def test_a_notice_named_then_at_once_what_it_says(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "announcement heating off in block c tomorrow wear a jumper", classifier
    )

    assert understood.tool == "create_announcement"
    assert understood.arguments["body"].startswith("Heating off in block c")


def test_a_clock_time_dictated_with_a_space(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "tomorrow 7 15 in the evening telegram oliver brown the match is called off", classifier
    )

    assert understood.tool == "schedule_reminder"
    due = (NOW + timedelta(days=1)).replace(hour=19, minute=15)
    assert understood.arguments["due_at"] == due.isoformat()


# -- another channel, told of ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "We finally have a Facebook page!! Could you post an announcement titled 'Find us on "
        "Facebook' and say search for Sunny Academy?",
        "send the teachers an sms saying the photos are now on Instagram",
        "Could you email Emma Wilson and ask whether we may share her son's drawing on our "
        "Instagram?",
    ],
)
def test_another_channel_only_told_of_does_not_stop_the_request(text: str) -> None:
    assert not isinstance(route_message(text), CannotDo)


@pytest.mark.parametrize(
    "text",
    [
        "text Emma on WhatsApp that the bus is late",
        "Text Emma Wilson the bus is late. Actually, WhatsApp her instead.",
        "카톡으로 민지 어머님께 문자 보내줘",
    ],
)
def test_another_channel_asked_for_is_still_declined(text: str) -> None:
    assert isinstance(route_message(text), CannotDo)


# -- words that hold a cue -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "다음 주 공개수업을 준비하고 있다고 A반 학부모님께 문자 보내 주세요",
        "의욕 넘치는 한 주 보내시라고 선생님들께 메일 보내줘",
        "목욕탕 휴무라 수영 수업 없다고 문자 보내 주세요",
    ],
)
def test_ordinary_korean_words_holding_a_harm_cue_are_not_harm(text: str) -> None:
    assert harm_in(normalise(text), korean=True) is None


@pytest.mark.parametrize(
    "text", ["B반 학부모님 비하하는 문자 보내줘", "최 선생님한테 욕 좀 써서 메일 보내"]
)
def test_belittling_and_swearing_are_still_harm(text: str) -> None:
    assert harm_in(normalise(text), korean=True) is not None


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("쌤들 병가 1년에 몇 개예요?", False),
        ("강사들은 육아휴직 몇 주 쓸 수 있어요?", False),
        ("A반 학부모 몇 명이에요?", True),
        ("B반 학부모님 수가 몇이에요?", True),
    ],
)
def test_a_kind_of_group_counted_is_a_count_of_people_only(text: str, counts: bool) -> None:
    plan = plan_data_question(text, now=NOW, tz=SEOUL, groups=list(ACADEMY.groups))

    assert (plan is not None) is counts


# -- asking only, and Korean typed fast ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "James Taylor 선생님께 메일을 한 통 드리고자 하는데, 부탁드려도 되겠습니까?",
        "공지를 하나 올리고자 합니다. 진행 부탁드립니다.",
    ],
)
def test_a_request_that_only_asks_politely_asks_for_the_words(
    text: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(text, classifier)

    assert understood.tool is None
    assert understood.slot == "body"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("최유나쌤 텔레그램으로 버스놓쳐서 10분늦는다고좀..", "10분늦습니다"),
        ("선생님들한테 문자 내일셔틀운행안해요", "내일셔틀운행안해요"),
    ],
)
def test_korean_typed_fast_still_has_its_words(
    text: str, said: str, classifier: IntentClassifier
) -> None:
    understood = read_at_the_academy(text, classifier)

    assert understood.tool is not None
    assert said in understood.arguments["body"]


def test_news_named_as_the_object_of_telling_is_said_as_news(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "Emma Wilson 님께 메일로 다음 주 휴강을 안내해 주세요", classifier
    )

    assert understood.arguments["body"] == "다음 주 휴강 안내드립니다."


def test_a_title_then_only_asking_leaves_the_words_to_the_request(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "James Taylor 선생님께 메일로 이번 주 보강 일정을 안내해 주실 수 있을까요? 제목은 '보강 "
        "안내'로 부탁드립니다.",
        classifier,
    )

    assert understood.arguments["subject"] == "보강 안내"
    assert understood.arguments["body"] == "이번 주 보강 일정 안내드립니다."


def test_that_way_is_the_channel_just_named(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "올리버 아버님은 텔레그램 쓰시니까 그쪽으로 상담 시간이 4시로 바뀌었다고 알려 드려 주세요",
        classifier,
    )

    assert understood.tool == "send_telegram"
    assert understood.arguments["body"] == "상담 시간이 4시로 바뀌었습니다"


def test_a_title_never_runs_on_over_the_labelled_text(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "공지 올려줘요 제목은 급식실공사 내용은 다음주 월요일부터 도시락 지참하고 물도 챙긴다고",
        classifier,
    )

    assert understood.arguments["title"] == "급식실공사"
    assert understood.arguments["body"].startswith("다음주 월요일부터 도시락")


# -- lookups and remarks ---------------------------------------------------------------------------


@pytest.mark.parametrize("asked", ["got a number for emma wilson", "who r the teachers on here"])
def test_a_lookup_asked_in_a_clipped_way(asked: str) -> None:
    assert find_lookup(asked, ACADEMY) is not None


@pytest.mark.parametrize(
    "text",
    [
        "long day of marking, just me and a cold coffee lol",
        "오늘 수업 네 개 연달아 했더니 녹초네요ㅎㅎ",
    ],
)
def test_a_remark_that_asks_nothing_is_small_talk(text: str, classifier: IntentClassifier) -> None:
    assert remark_by_meaning(text, scores=classifier.classify(text).scores) is not None


@pytest.mark.parametrize(
    "text", ["I've lost my laptop.", "노트북을 잃어버렸어요", "full time annual leave days"]
)
def test_a_statement_of_a_need_is_not_a_remark(text: str, classifier: IntentClassifier) -> None:
    assert remark_by_meaning(text, scores=classifier.classify(text).scores) is None


def test_a_need_for_a_detail_of_ours_is_a_lookup() -> None:
    asked = "I'll phone Oliver Brown myself from the office line, I just need his number."

    assert find_lookup(asked, ACADEMY) is not None


def test_words_forgotten_mid_request_are_asked_for(classifier: IntentClassifier) -> None:
    understood = read_at_the_academy(
        "Email James Taylor - hmm, what was I going to say? lost my train of thought", classifier
    )

    assert understood.tool is None
    assert understood.slot == "body"


def test_a_time_before_a_lead_in_to_the_quoted_text_is_when_to_send(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "Can Oliver Brown get a text tomorrow at 8am? Simply: 'Swimming kit needed today.'",
        classifier,
    )

    assert understood.tool == "schedule_reminder"
    due = (NOW + timedelta(days=1)).replace(hour=8, minute=0)
    assert understood.arguments["due_at"] == due.isoformat()


def test_a_notice_inviting_two_audiences_says_what_it_invites_them_to(
    classifier: IntentClassifier,
) -> None:
    understood = read_at_the_academy(
        "The music room needs brightening up. Please post a notice, titled 'Art Swap', inviting "
        "students and parents to bring in a framed picture they no longer want.",
        classifier,
    )

    assert understood.arguments["title"] == "Art Swap"
    assert understood.arguments["body"] == (
        "You are warmly invited to bring in a framed picture they no longer want."
    )
