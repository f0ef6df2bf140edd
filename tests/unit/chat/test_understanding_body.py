"""Where a request says what to send, and Korean reported speech as the direct message."""

from __future__ import annotations

import pytest

from chat.builtin_model.understanding.body import (
    Split,
    answered_text,
    headline,
    korean_direct,
    split_message,
    subject_of,
    title_of,
)


def test_it_takes_the_body_after_that_and_tidies_it() -> None:
    split = split_message("Can you text Emma that class moved to 3pm?")

    assert (split.head, split.body) == ("Can you text Emma", "Class moved to 3pm")


def test_it_takes_the_body_after_saying() -> None:
    split = split_message("send a text to Emma saying the bus is 10 minutes late")

    assert (split.head, split.body) == ("send a text to Emma", "The bus is 10 minutes late")


def test_it_takes_the_body_after_a_colon_but_not_inside_a_clock_time() -> None:
    split = split_message("SMS the teachers: meeting at 12:30 in room 4")

    assert split.body == "Meeting at 12:30 in room 4"


def test_it_prefers_quoted_words_as_the_body() -> None:
    split = split_message('Text the parents of class A "No school tomorrow" please')

    assert split.body == "No school tomorrow"


def test_it_takes_what_to_be_reminded_of_after_to() -> None:
    split = split_message("remind me tomorrow at 9am to call Emma")

    assert (split.head, split.body) == ("remind me tomorrow at 9am to", "Call Emma")


def test_it_finds_no_body_when_the_request_names_no_text() -> None:
    assert split_message("Send an email to James Taylor about the staff meeting").body is None


def test_it_reads_the_subject_of_an_email_from_about() -> None:
    assert subject_of("Send an email to James Taylor about the staff meeting on Friday") == (
        "The staff meeting on Friday"
    )


def test_it_keeps_a_korean_body_before_the_closing_verb() -> None:
    split = split_message("학부모에게 내일 휴교입니다 문자 보내줘")

    assert (split.head, split.body) == ("학부모에게 문자 보내줘", "내일 휴교입니다")


def test_it_turns_korean_reported_speech_into_the_direct_message() -> None:
    split = split_message("엠마에게 수업이 3시로 옮겨졌다고 전해줘")

    assert (split.head, split.body) == ("엠마에게 전해줘", "수업이 3시로 옮겨졌습니다")


def test_it_finds_the_korean_recipient_after_the_quoted_clause() -> None:
    split = split_message("내일 오전 9시에 엠마한테 전화하라고 나한테 알려줘")

    assert split.body == "엠마한테 전화하세요"
    assert "나한테" in split.head and "내일 오전 9시에" in split.head


@pytest.mark.parametrize(
    ("reported", "direct"),
    [
        ("수업이 취소됐다고", "수업이 취소됐습니다"),
        ("회의가 금요일로 바뀐다고", "회의가 금요일로 바뀝니다"),
        ("점심을 먹는다고", "점심을 먹습니다"),
        ("오늘은 바쁘다고", "오늘은 바쁩니다"),
        ("내일 휴교라고", "내일 휴교입니다"),
        ("준비물 챙기라고", "준비물 챙기세요"),
        ("늦지 말라고", "늦지 마세요"),
        ("숙제 했냐고", "숙제 했나요?"),
        ("내일 휴교입니다라고", "내일 휴교입니다"),
    ],
)
def test_it_makes_each_korean_reported_ending_direct(reported: str, direct: str) -> None:
    assert korean_direct(reported) == direct


def test_a_channel_named_before_the_message_is_not_part_of_it() -> None:
    split = split_message("유나한테 텔레그램으로 회의실 바뀌었다고 보내줘")

    assert split.body == "회의실 바뀌었습니다"


@pytest.mark.parametrize(
    "request_text",
    [
        "민지한테 회의실 바뀌었다고 문자해줘",
        "민지한테 회의실 바뀌었다고 문자 좀",
        "민지한테 회의실 바뀌었다고 문자 보내도록 해줘",
    ],
)
def test_it_reads_the_other_korean_closings_of_a_request(request_text: str) -> None:
    assert split_message(request_text).body == "회의실 바뀌었습니다"


def test_two_channel_nouns_before_the_verb_close_the_message() -> None:
    split = split_message("유나한테 보강 취소됐다고 텔레그램 메시지 보내줘")

    assert split.body == "보강 취소됐습니다"


def test_an_audience_named_with_daesangeuro_is_the_head_not_the_message() -> None:
    split = split_message("전체 직원 대상으로 다음 주 건강검진 있다고 공지 올려줘")

    assert split.head == "전체 직원 대상으로 공지 올려줘"
    assert split.body == "다음 주 건강검진 있습니다"


# -- issue 27: the body is the heart of the message, a title is a real title -----------------


@pytest.mark.parametrize(
    ("request_text", "body"),
    [
        ("telegram to oliver brown: invoice sent to ur email, thx", "Invoice sent to ur email"),
        ("text Emma that the bus is late, thanks!", "The bus is late"),
        ("sms the teachers: staff meeting moved to 4pm. Thank you!", "Staff meeting moved to 4pm."),
        ("email James saying please bring the keys, cheers", "Please bring the keys"),
    ],
)
def test_the_thanks_and_please_meant_for_the_assistant_are_not_sent(
    request_text: str, body: str
) -> None:
    assert split_message(request_text).body == body


def test_thanks_that_are_the_message_itself_are_kept() -> None:
    split = split_message("post for everyone: thanks to all who came to the open day!")

    assert split.body == "Thanks to all who came to the open day!"


def test_a_korean_request_sentence_before_the_message_is_not_sent() -> None:
    split = split_message("문자 좀 보내 주세요. 오늘 회의 30분 미뤄졌다고요")

    assert split.body == "오늘 회의 30분 미뤄졌습니다"


@pytest.mark.parametrize(
    ("head", "title"),
    [
        ("make an announcement titled 'Winter Break'", "Winter Break"),
        ('post a notice called "Lost property"', "Lost property"),
        ("공지 올려줘 제목: 난방 점검", "난방 점검"),
        ("We need an announcement for everyone", None),
        ("공지 하나 올려줘", None),
        ("in 5 days at 9:00 put up an announcement for everyone", None),
        ("post a notice, call it Sports Day", "Sports Day"),
        ("공지 하나 올려줘 제목은 그냥 알아서 해줘", None),  # left to the writer
        ("put up a notice, title: up to you", None),
    ],
)
def test_a_title_is_only_what_the_request_names_as_one(head: str, title: str | None) -> None:
    assert title_of(head) == title


@pytest.mark.parametrize(
    ("body", "title"),
    [
        (
            "The photocopier code has changed, ask Yuna for the new one",
            "The photocopier code has changed",
        ),
        ("Registration for the spring term is open", "Registration for the spring term is open"),
        ("Classes resume on January 6. Bring your books.", "Classes resume on January 6"),
        ("설 연휴 휴무 안내, 1/28~1/30 쉽니다", "설 연휴 휴무 안내"),
    ],
)
def test_a_headline_is_the_first_clause_of_the_message(body: str, title: str) -> None:
    assert headline(body) == title


@pytest.mark.parametrize(
    ("request_text", "body"),
    [
        (
            "아버님께 문자 하나만 넣어 주세요. 하원 차량이 20분 늦어질 것 같다고요.",
            "하원 차량이 20분 늦어질 것 같습니다",
        ),
        ("일단 문자는 보내줘, 다음 달 수업료 인상 안내", "다음 달 수업료 인상 안내"),
    ],
)
def test_a_korean_request_before_the_message_is_the_head(request_text: str, body: str) -> None:
    assert split_message(request_text).body == body


@pytest.mark.parametrize(
    ("reported", "direct"),
    [
        ("도시락에 이름 꼭 써 달라고", "도시락에 이름 꼭 써 주세요"),
        ("서류를 보내달라고", "서류를 보내 주세요"),
        ("회의 자료 미리 읽어 오시라고", "회의 자료 미리 읽어 오세요"),
        ("새 계좌로 입금하시라고", "새 계좌로 입금하세요"),
    ],
)
def test_a_reported_korean_request_becomes_a_polite_one(reported: str, direct: str) -> None:
    assert korean_direct(reported) == direct


def test_a_short_request_then_a_dash_or_a_slash_gives_the_text_after_it() -> None:
    assert split_message(
        "notice for the teachers - the lift is out of order until Friday"
    ) == Split("notice for the teachers", "The lift is out of order until Friday")
    assert split_message("A반 학부모 공지 — 내일 현장학습은 우천으로 취소됩니다").body == (
        "내일 현장학습은 우천으로 취소됩니다"
    )
    assert split_message("공지 부탁 / 금요일 3시 학부모 상담 주간 시작").body == (
        "금요일 3시 학부모 상담 주간 시작"
    )


def test_a_dash_inside_a_name_or_without_a_channel_word_splits_nothing() -> None:
    assert split_message("Jean-Luc - the meeting is at 3").body is None
    assert split_message("Oliver Brown - Emma Wilson - James Taylor").body is None


def test_a_quoted_subject_is_the_subject_and_the_words_after_it_the_body() -> None:
    split = split_message(
        'Email James, subject line "Staff meeting moved". Let him know it is now in room 5.'
    )

    assert (split.heading, split.body) == ("Staff meeting moved", "It is now in room 5.")


def test_a_quoted_korean_title_is_the_heading_and_the_reported_rest_the_body() -> None:
    split = split_message("선생님들한테 메일 보내줘. 제목 '교무회의 안내', 내일 8시까지 오시라고")

    assert (split.heading, split.body) == ("교무회의 안내", "내일 8시까지 오세요")


def test_a_clipped_korean_request_ends_before_the_message() -> None:
    split = split_message("업체 orders@books.example 로 메일 좀. 다음 주 교재 20권 더 필요하다고")

    assert split.body == "다음 주 교재 20권 더 필요합니다"


def test_a_korean_request_after_a_clause_that_explains_it_is_followed_by_the_message() -> None:
    split = split_message(
        "눈이 많이 와서요, 엠마 어머님께 문자 좀 보내 주세요. 오늘 수업은 온라인으로 한다고요."
    )

    assert split.body == "오늘 수업은 온라인으로 합니다"


def test_a_thanks_after_the_request_is_not_the_message() -> None:
    split = split_message("수업이 3시로 바뀌었어요, 엠마한테 전해줘. 감사합니다")

    assert split.body != "감사합니다"


def test_reported_speech_after_a_dash_is_turned_into_the_message() -> None:
    split = split_message("B반 학부모 문자 — 내일 준비물 꼭 챙기라고")

    assert split.body == "내일 준비물 꼭 챙기세요"


def test_a_clipped_request_after_the_channel_word_is_followed_by_the_message() -> None:
    assert split_message("A반 학부모님들 문자 ㄱㄱ 내일 시험 범위 3단원까지").body == (
        "내일 시험 범위 3단원까지"
    )
    assert split_message("민호쌤 텔레좀 오늘 회의 4시반 302호").body == "오늘 회의 4시반 302호"
    assert split_message("공지 올려!! 복도에서 뛰지 않기, 실내화 필수").body == (
        "복도에서 뛰지 않기, 실내화 필수"
    )


def test_a_channel_word_inside_the_message_does_not_end_the_request() -> None:
    split = split_message("민지 어머님께 문자 받으셨는지 꼭 확인해 달라고 전해줘")

    assert split.body == "문자 받으셨는지 꼭 확인해 주세요"


def test_a_message_reported_before_the_request_is_not_replaced_by_what_follows() -> None:
    split = split_message("내일 휴강이라고 전체 공지 올려. 다들 알아야 돼")

    assert split.body != "다들 알아야 돼"


def test_a_labelled_content_and_a_reported_hour_are_the_message() -> None:
    assert split_message(
        "엠마 어머님께 텔레그램 메시지를 보내 주십시오. 내용은 '상담 일정이 확정되었습니다'입니다."
    ).body == ("상담 일정이 확정되었습니다")
    split = split_message(
        "선생님들한테 메일 한 통 부탁해요~ 제목은 '교무 회의'로 해 주시고 "
        "목요일 오후 4시라고 써 주세요"
    )
    assert (split.heading, split.body) == ("교무 회의", "목요일 오후 4시입니다")
    assert korean_direct("목요일 오후 4시라고") == "목요일 오후 4시입니다"
    assert korean_direct("내일 일찍 오시라고") == "내일 일찍 오세요"


def test_a_group_named_before_the_channel_it_goes_by_stays_in_the_head() -> None:
    split = split_message("내일 오후 6시에 teachers 그룹 문자로 출석부 제출 알림 부탁")

    assert "teachers" in split.head and split.body == "출석부 제출"


def test_a_korean_text_in_apostrophes_is_the_message_but_an_english_apostrophe_is_not() -> None:
    assert split_message(
        "민호쌤한테 오늘 밤 9시에 텔레그램 가게 해줘 '내일 1교시 대강 부탁해요'"
    ).body == ("내일 1교시 대강 부탁해요")
    english = split_message("text Emma that the kids' trip isn't on, it's postponed")
    assert english.body == "The kids' trip isn't on, it's postponed"


def test_half_past_the_hour_is_a_time_not_a_class() -> None:
    split = split_message("내일 아침 8시 반에 민지 님께 체육복 챙겨 오라고 문자로 알려 주세요")

    assert "민지" in split.head and split.body == "체육복 챙겨 오세요"


def test_a_scheduled_text_clipped_after_its_verb_and_a_stray_jamo_keeps_the_message() -> None:
    split = split_message(
        "모레 오전 8시에 B반 학부모 문자 예약 해놔 ㅓ 내일 소풍 도시락 챙겨 주세요"
    )

    assert split.body == "내일 소풍 도시락 챙겨 주세요"


def test_a_group_glued_to_the_channel_it_goes_by_stays_in_the_head() -> None:
    split = split_message("A반 부모님들 단체문자로 내일 시험이라 일찍 재우시라고 보내주세요")

    assert "부모님들" in split.head and split.body == "내일 시험이라 일찍 재우세요"


def test_re_names_the_subject_of_an_email() -> None:
    assert subject_of("email james.taylor@academy.example re the lab rota") == "The lab rota"


@pytest.mark.parametrize(
    "request_",
    ["이서준 어머님한테 문자 하나 보내줘", "공지 하나 올려줘", "Emma한테 메일 한 통 써줘"],
)
def test_how_many_messages_is_not_what_they_say(request_: str) -> None:
    assert split_message(request_).body is None


def test_the_topic_named_before_the_channel_and_the_board_is_the_text() -> None:
    split = split_message("금일 정전으로 인한 휴강 공지를 A반 학부모 게시판에 게시하십시오.")

    assert split.body == "금일 정전으로 인한 휴강"
    assert "A반 학부모 게시판에" in split.head


def test_a_heading_labelled_on_its_own_line_is_not_the_body() -> None:
    split = split_message("공지 제목: 주차 안내\n내용: 학원 앞 불법주차 단속 시작됩니다")

    assert (split.heading, split.body) == ("주차 안내", "학원 앞 불법주차 단속 시작됩니다")


def test_an_english_subject_line_is_read_the_same_way() -> None:
    split = split_message("email James\nSubject: Field trip\nThe bus leaves at 8")

    assert (split.heading, split.body) == ("Field trip", "The bus leaves at 8")


def test_a_labelled_text_after_the_request_is_the_body_and_a_labelled_subject_the_heading() -> None:
    split = split_message(
        "민지 어머님께 메일 제목은 상담 일정, 내용은 다음 주 화요일 4시 어떠세요?"
    )

    assert split == Split("민지 어머님께 메일", "다음 주 화요일 4시 어떠세요?", heading="상담 일정")


@pytest.mark.parametrize(
    ("request_", "body"),
    [
        ("김 선생님한테 이메일로 자료 잘 받았다고 해줘", "자료 잘 받았습니다"),
        ("민지 어머님께 내일 휴강이라고 좀 해 주세요", "내일 휴강입니다"),
        ("내일 휴강이라고 민지 어머님께 문자 보내줘", "내일 휴강입니다"),
        (
            "7일 후 오전 11시에 전체 공지로 겨울특강 신청 마감됐다는 거 올라가게 예약해 둬",
            "겨울특강 신청 마감됐습니다",
        ),
    ],
)
def test_korean_reported_messages_in_more_of_the_ways_people_ask(request_: str, body: str) -> None:
    assert split_message(request_).body == body


def test_a_day_before_a_quote_for_someone_else_is_what_the_message_says_not_when() -> None:
    assert (
        split_message("내일 휴강이라고 민지 어머님께 문자 보내줘").head
        == "민지 어머님께 문자 보내줘"
    )
    assert split_message("내일 9시에 회의 있다고 나한테 알려줘").head.startswith("내일 9시에")


@pytest.mark.parametrize(
    ("answer", "ko", "text"),
    [
        ("내용은 이번 주 토요일 보강 취소됐다고", True, "이번 주 토요일 보강 취소됐습니다"),
        ("내일 휴강입니다", True, "내일 휴강입니다"),
        ("say the bus is 10 minutes late", False, "The bus is 10 minutes late"),
        ("it should say: bring a coat", False, "Bring a coat"),
        ("Saying hello costs nothing", False, "Saying hello costs nothing"),
    ],
)
def test_the_answer_to_what_should_it_say_is_the_message_without_its_label(
    answer: str, ko: bool, text: str
) -> None:
    assert answered_text(answer, ko=ko) == text


def test_a_message_after_just_say_is_the_body() -> None:
    split = split_message("Can you text Emma Wilson? Just say the trip is cancelled.")

    assert (split.head, split.body) == ("Can you text Emma Wilson?", "The trip is cancelled.")


def test_a_short_preamble_before_a_colon_is_not_the_recipient_of_what_follows() -> None:
    split = split_message(
        "Next thing: Oliver asked to be reminded. Could you text him? Just say it starts at 7."
    )

    assert split.body == "It starts at 7."
    assert split.head.startswith("Next thing: Oliver asked")


def test_the_korean_message_is_in_the_last_sentence_after_one_that_explains() -> None:
    split = split_message(
        "올리버 아버님이 텔레그램이 편하다고 하셨거든요. 그쪽으로 다음 달부터 수업이 월수로 "
        "바뀐다고 전해 주시면 감사하겠습니다"
    )

    assert split.body == "다음 달부터 수업이 월수로 바뀝니다"
    assert "편하다고 하셨거든요" in split.head


def test_a_question_to_pass_on_becomes_the_direct_question() -> None:
    split = split_message("올리버한테 언제 오시는지 텔레그램으로 여쭤봐")

    assert split.body == "언제 오시나요?"


def test_a_hurried_go_between_who_and_the_message() -> None:
    split = split_message("텔레로 유나쌤 ㄱㄱ 복사실 열쇠 내 책상 서랍에 있다고")

    assert (split.head, split.body) == ("텔레로 유나쌤", "복사실 열쇠 내 책상 서랍에 있습니다")


def test_an_english_message_after_a_korean_request_with_no_stop_between() -> None:
    split = split_message(
        "올리버씨 한테 텔레그램으로 영어로 보내줘요 Tomorrow's class is cancelled"
    )

    assert split.body == "Tomorrow's class is cancelled"


@pytest.mark.parametrize(
    ("text", "body"),
    [
        # a laugh typed after the request is said to the assistant
        (
            "제임스 쌤한테 메일로 출석부 사진 찍어서 보내달라고 해줘 ㅋㅋ",
            "출석부 사진 찍어서 보내 주세요",
        ),
        # the English text, then "send it like this"
        ("yuna telegram: the lab is booked until 5 — 이대로 보내줘", "The lab is booked until 5"),
        # a clause about the sending before the message is the request's
        (
            "두 분께 똑같이 문자 보내야 하는데요, 내일 상담은 3시로 미뤄졌다고 전해 주세요",
            "내일 상담은 3시로 미뤄졌습니다",
        ),
        # the message reported in the request, then more of it
        (
            "서준 어머님께 메일로 교재 도착했다고 보내드려, 내일 오후 2시야",
            "교재 도착했습니다. 내일 오후 2시입니다",
        ),
        # the facts a text must include
        (
            "공지 올려줘 본문엔 주차장이 공사 중이라는 거랑 셔틀은 정상 운행한다는 거 꼭 넣어줘",
            "주차장이 공사 중입니다. 셔틀은 정상 운행합니다",
        ),
    ],
)
def test_korean_requests_around_their_text_leave_it_clean(text: str, body: str) -> None:
    assert split_message(text).body == body


def test_a_labelled_subject_and_text_are_read_as_labelled() -> None:
    split = split_message(
        "제임스 선생님께 메일 좀 써줘 영어로. subject는 Field trip, "
        "내용은 내일 버스가 8시에 출발한다고"
    )

    assert (split.heading, split.body) == ("Field trip", "내일 버스가 8시에 출발합니다")


@pytest.mark.parametrize(
    ("text", "body"),
    [
        (
            "A반 학부모님들께 문자 보내줘 내일 휴강입니다",
            "내일 휴강입니다",
        ),  # two words, a sentence
        (
            "선생님들께 문자 보내줘 회의 취소됐다구",
            "회의 취소됐습니다",
        ),  # "…다구" is "…다고" spoken
    ],
)
def test_short_and_spoken_korean_texts_after_the_request(text: str, body: str) -> None:
    assert split_message(text).body == body


def test_after_a_labelled_title_a_bare_content_label_labels_the_text() -> None:
    split = split_message("공지 하나 올려줘 제목은 급식 변경, 내용 내일부터 점심은 12시 반입니다")

    assert (split.heading, split.body) == ("급식 변경", "내일부터 점심은 12시 반입니다")


def test_a_bracketed_label_is_the_headline() -> None:
    assert headline("[수강료 안내] 이번 달 수강료는 25일까지 입금 부탁드립니다") == "수강료 안내"


# -- session 25: the blind6 sets' kinds, in other words than theirs -----------------------------


@pytest.mark.parametrize(
    ("text", "head", "body"),
    [
        (  # "--" typed for a dash, after an unquoted subject
            "email the office w/ subject Boiler check -- heating is off until noon tomorrow",
            "email the office",
            "Heating is off until noon tomorrow",
        ),
        (  # the question to the recipient is its first sentence; the reason follows it
            "text Dana to ask if she could swap duties with me on Monday? My son is ill.",
            "text Dana",
            "Could you swap duties with me on Monday? My son is ill",
        ),
        (  # asking someone to do something goes out as a question to them
            "email Marco asking him to return his keys to the office",
            "email Marco",
            "Could you return your keys to the office?",
        ),
        (  # a clipped Telegram and a Korean e-mail slang word name the channel, not the text
            "하준쌤한테 텔레로 회의실 바뀌었다고 전해줘",
            "하준쌤한테 텔레로 전해줘",
            "회의실 바뀌었습니다",
        ),
        (  # a polite question to the assistant, then more of the text after it
            "혹시 서윤 어머님께 내일 셔틀 없다고 문자 보내주실 수 있을까요? 기사님이 휴가라고요",
            "혹시 서윤 어머님께 문자 보내주실 수 있을까요",
            "내일 셔틀 없습니다. 기사님이 휴가입니다",
        ),
        (  # an English text in single quotes after a Korean request
            "Mark쌤한테 문자 보내줘 'Don't forget the staff photo at noon' ㅎㅎ",
            "Mark쌤한테 문자 보내줘",
            "Don't forget the staff photo at noon",
        ),
    ],
)
def test_the_text_is_found_however_the_request_is_typed(text: str, head: str, body: str) -> None:
    split = split_message(text)

    assert (split.head, split.body) == (head, body)


def test_an_apostrophe_inside_a_quoted_subject_does_not_close_it() -> None:
    split = split_message("email the staff, subject 'Friday's rota'. The rota is on the board.")

    assert split.heading == "Friday's rota"


def test_a_favour_asked_in_reported_speech_is_asked_politely_without_jom() -> None:
    assert korean_direct("출석부 확인 좀 부탁한다고") == "출석부 확인 부탁드립니다"


@pytest.mark.parametrize(
    ("text", "head", "body"),
    [
        (  # the text first, then a request that points back at it
            "The lift is out of order until Friday - can you text that to the teachers please",
            "can you text that to the teachers please",
            "The lift is out of order until Friday",
        ),
        (
            "Parking is closed all day tomorrow for resurfacing. Please post this as a notice.",
            "Please post this as a notice",
            "Parking is closed all day tomorrow for resurfacing.",
        ),
        (
            "내일 정수기 교체 작업이 있어요. 이거 공지로 올려줘",
            "이거 공지로 올려줘",
            "내일 정수기 교체 작업이 있어요.",
        ),
        (  # explanation first, then a request naming only who and how
            "열쇠는 교무실 첫번째 서랍에 있어요. 박하준 선생님한테 문자로 좀 전해주실 수 있나요",
            "박하준 선생님한테 문자로 좀 전해주실 수 있나요",
            "열쇠는 교무실 첫번째 서랍에 있어요.",
        ),
        (  # title and text, both labelled in English
            "Notice for parents. Title: Flu jabs. Text: the nurse visits on Monday morning.",
            "Notice for parents",
            "The nurse visits on Monday morning.",
        ),
    ],
)
def test_a_text_said_before_its_request_or_labelled_is_the_body(
    text: str, head: str, body: str
) -> None:
    split = split_message(text)

    assert (split.head, split.body) == (head, body)


def test_a_request_written_as_a_form_reads_each_labelled_line() -> None:
    split = split_message(
        "Please send this email:\n* To: the teachers\n* Subject: INSET day\n"
        "* Body: school is closed to pupils on Friday"
    )

    assert split == Split(
        "Please send this email to the teachers",
        "School is closed to pupils on Friday",
        heading="INSET day",
    )


def test_an_unquoted_korean_title_said_last_is_the_heading_not_the_text() -> None:
    split = split_message("유나쌤한테 회의록 올려뒀다고 메일 보내줘. 제목은 회의록 공유로 해주세요")

    assert (split.body, split.heading) == ("회의록 올려뒀습니다", "회의록 공유")
