"""The router's recognisers: clear small talk, tool requests and cancels route; nothing else."""

from __future__ import annotations

import pytest

from actions.tools.registry import get_tool, write_tools
from actions.tools.words import ToolWords
from chat.builtin_model.router import (
    Cancel,
    SmallTalk,
    ToolRequest,
    cancel_by_meaning,
    disabled_reply,
    help_reply,
    normalise,
    nothing_to_cancel_reply,
    route_message,
    small_talk_by_meaning,
)


@pytest.mark.parametrize(
    "text",
    ["hello", "Hello!", "hi there", "Hey 👋", "Good morning!", "안녕하세요", "안녕!", "하이"],
)
def test_it_routes_greetings(text: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == "greeting"


@pytest.mark.parametrize(
    "text", ["thanks", "Thank you so much!", "cheers", "thanks for that", "고마워", "감사합니다"]
)
def test_it_routes_thanks(text: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == "thanks"


@pytest.mark.parametrize(
    "text", ["Thank you, that's it for now", "thanks, all good", "감사합니다, 다 됐어요"]
)
def test_it_routes_thanks_that_closes_the_conversation(text: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == "thanks"


@pytest.mark.parametrize(
    "text",
    [
        "help",
        "Help!",
        "What can you do?",
        "what else can you do",
        "How do I use this?",
        "뭘 할 수 있어?",
        "무엇을 할 수 있나요?",
        "도움말",
    ],
)
def test_it_routes_questions_about_what_it_can_do_to_help(text: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == "help"


def test_it_answers_korean_in_korean() -> None:
    assert route_message("안녕하세요") == SmallTalk("greeting", korean=True)
    assert route_message("hello") == SmallTalk("greeting", korean=False)


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("cancel that", None),
        ("Never mind.", None),
        ("nevermind", None),
        ("Actually, cancel that SMS", "send_sms"),
        ("don't send it", None),
        ("Do not send that email!", "send_email"),
        ("forget it", None),
        ("cancel the telegram please", "send_telegram"),
        ("취소해줘", None),
        ("그거 취소해 주세요", None),
        ("문자 취소해줘", "send_sms"),
        ("보내지 마", None),
        ("아니 됐어", None),
        ("잠깐 그 메일 보내지 말아줘", "send_email"),
    ],
)
def test_it_routes_cancels_and_notes_the_tool_named(text: str, tool: str | None) -> None:
    route = route_message(text)

    assert isinstance(route, Cancel) and route.tool == tool


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("Send a telegram to Emma saying the bus is late", "send_telegram"),
        ("please send an email to James Taylor about Friday", "send_email"),
        ("Can you text Emma that class moved to 3pm?", "send_sms"),
        ("Could you send an SMS to the parents?", "send_sms"),
        ("remind me tomorrow at 9am to call Emma", "schedule_reminder"),
        ("Post an announcement: sports day is on Friday", "create_announcement"),
        ("엠마에게 버스가 늦는다고 텔레그램 보내줘", "send_telegram"),
        ("학부모에게 문자 보내주세요", "send_sms"),
        ("운동회 공지 올려줘", "create_announcement"),
    ],
)
def test_it_recognises_which_tool_a_request_asks_for(text: str, tool: str) -> None:
    assert route_message(text) == ToolRequest(tool, korean=any("가" <= c <= "힣" for c in text))


@pytest.mark.parametrize(
    "text",
    [
        "Can you help me send an SMS to Emma saying hi",
        "hello, what is our annual leave policy?",
        "How long is bereavement leave?",
        "What can you do about the late bus?",
        "How do I send a telegram?",
        "Cancel the staff meeting and tell everyone",
        "cancel my subscription",
        "stop",
        "thanks, now text Emma that class moved",
        "연차 휴가는 며칠인가요?",
        "안녕하세요, 엠마에게 전화해야 하나요?",
        "공지사항 알려줘",
        "",
        "   ",
        "?!",
    ],
)
def test_it_leaves_everything_else_to_the_agent(text: str) -> None:
    assert route_message(text) is None


def _words(name: str) -> ToolWords:
    words = get_tool(name).words
    assert words is not None
    return words


def test_it_normalises_case_punctuation_and_spaces() -> None:
    assert normalise("  Don\u2019t   SEND it!!  ") == "dont send it"


def test_every_write_tool_the_product_ships_carries_its_own_words() -> None:
    assert [tool.name for tool in write_tools() if tool.words is None] == []


def test_help_lists_only_the_tools_it_is_given_with_examples() -> None:
    reply = help_reply("help", tools=["send_sms", "schedule_reminder"], korean=False)

    assert "SMS messages" in reply and _words("send_sms").example in reply
    assert "Reminders" in reply
    assert "Telegram" not in reply and "E-mails" not in reply


def test_help_in_korean_lists_the_korean_examples() -> None:
    reply = help_reply("greeting", tools=["send_sms"], korean=True)

    assert reply.startswith("안녕하세요!")
    assert _words("send_sms").example_ko in reply


def test_help_with_every_tool_off_says_so() -> None:
    assert "turned off" in help_reply("help", tools=[], korean=False)


def test_a_disabled_tool_is_named_by_its_human_label() -> None:
    assert (
        disabled_reply("send_telegram", korean=False)
        == "Telegram messages are turned off for this organisation."
    )


def test_nothing_to_cancel_names_the_tool_asked_about() -> None:
    assert nothing_to_cancel_reply("send_sms", korean=False) == (
        "There is no pending SMS of yours in this conversation, so nothing to cancel."
    )


@pytest.mark.parametrize(
    "text",
    [
        "cancel " + "that one " * 440,
        "hello " * 800,
        "Never mind. " + "Here is the parent's e-mail I was sent this morning. " * 70,
        "취소해줘 " * 800,
    ],
)
def test_a_message_of_any_accepted_length_is_left_to_the_agent(text: str) -> None:
    assert route_message(text[:4000]) is None


def test_a_long_request_for_a_tool_is_still_recognised() -> None:
    text = "Send a telegram to Emma Wilson saying " + "the trip is still on. " * 150

    assert route_message(text[:4000]) == ToolRequest("send_telegram", korean=False)


@pytest.mark.parametrize(
    ("text", "label", "kind"),
    [
        ("morning all, hope you're well", "smalltalk", "greeting"),
        ("cheers mate, much obliged", "smalltalk", "thanks"),
        ("so what sort of things can you handle?", "help", "help"),
        ("so what kinds of jobs are you actually able to do?", "help", "help"),
    ],
)
def test_short_small_talk_the_patterns_miss_is_routed_by_its_meaning(
    text: str, label: str, kind: str
) -> None:
    route = small_talk_by_meaning(text, label=label, confidence=0.9)

    assert route == SmallTalk(kind, False)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "label", "confidence"),
    [
        ("hello, what is our leave policy?", "smalltalk", 0.16),  # an unsure margin
        ("good morning, how many days of leave do I get this year?", "smalltalk", 0.9),  # long
        ("hi, and is the staff room open over the winter break?", "smalltalk", 0.9),  # long
        ("how long is bereavement leave?", "knowledge", 0.9),
        # "help" and "language" as words about the world: nothing addresses the assistant
        ("which proteins help the liver break down alcohol?", "help", 0.9),
        ("what can a volcano do to the climate?", "help", 0.9),
    ],
)
def test_meaning_routes_only_short_clear_small_talk(
    text: str, label: str, confidence: float
) -> None:
    assert small_talk_by_meaning(text, label=label, confidence=confidence) is None


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("scrap that one please", None),
        ("oops, can you pull that e-mail? I wrote the wrong date", "send_email"),
        ("hold on, don't send the telegram, the bus is on time after all", "send_telegram"),
        ("no no, take it back, I'll ask the principal first", None),
        ("ㄴㄴ 방금 거 철회해 주세요 날짜가 틀렸어요", None),
        ("죄송한데 그 메일 보내지 말아 주세요. 내용이 바뀌었어요", "send_email"),
        ("아까 공지 없던 걸로 할게요", "create_announcement"),
        ("잠깐만요 알림 취소해 주세요 시간이 안 맞아요", "schedule_reminder"),
        ("아 잠깐 취소취소 안 보내도 돼", None),
        ("아니 됐어요, 제가 내일 직접 전화드릴게요", None),
        ("forget it 교무실에서 벌써 연락했대요", None),
        ("실장님이 이미 공지했대요 하지 마세요", None),
        ("nvm, drop it - mum says she'll text him herself", None),
        ("sorry, scrap that, the head will send it out tomorrow", None),
        ("ㄴㄴ 방금 문자 없던걸로 해줘", "send_sms"),
    ],
)
def test_a_cancel_followed_by_its_reason_is_a_cancel(text: str, tool: str | None) -> None:
    route = route_message(text)

    assert isinstance(route, Cancel) and route.tool == tool


@pytest.mark.parametrize(
    "text",
    [
        "cancel the parents evening and tell the teachers",
        "withdraw the trip money from the budget",
        "cancel that and text James instead",
        "취소 규정이 어떻게 되나요?",
        "그거 취소하고 대신 제임스한테 문자 보내줘",
        "never mind that, what is the leave policy?",
        "forget it, what's the leave policy?",
        "Email Oliver that the trip is off. never mind the permission slip",
        "The trip is off, text the parents. cancel the bus too",
    ],
)
def test_a_cancel_of_something_else_or_with_a_new_request_is_not_a_cancel(text: str) -> None:
    assert not isinstance(route_message(text), Cancel)


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("ugh, wrong class. forget it", None),
        ("the date isn't fixed yet, I'll check with Yuna. cancel that", None),
        ("never mind, she already knows. drop the e-mail please", "send_email"),
        ("아 잘못 골랐다. 취소해줘", None),
        ("아니다 됐다 보내지 마세요", None),
        ("미안한데 아까 건 없던 거로 해주세요", None),
    ],
)
def test_a_cancel_after_or_before_its_reason_in_its_own_clause_is_a_cancel(
    text: str, tool: str | None
) -> None:
    route = route_message(text)

    assert isinstance(route, Cancel) and route.tool == tool


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("perfect, thanks a lot, that was quick", "thanks"),
        ("amazing, you're a lifesaver, thank you", "thanks"),
        ("r u a bot or a real person", "help"),
        ("what kinds of questions can I ask you?", "help"),
        ("넌 누구야? 로봇이야?", "help"),
        ("어떻게 사용하는 거야? 예시 좀 보여줘", "help"),
        ("오늘 하루도 수고 많으셨어요", "goodbye"),
    ],
)
def test_small_talk_in_several_pieces_is_small_talk(text: str, kind: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == kind


@pytest.mark.parametrize(
    ("text", "korean"),
    [
        ("ugh, scratch it - the head wants to tell them herself", False),
        ("please don't send that one after all, she already knows", False),
        ("교무실에서 벌써 연락했대요 ㅎㅎ 그냥 없던 걸로 해요", True),
        ("잠깐 그거 보내지 말아봐 다시 확인할게", True),
    ],
)
def test_a_cancel_the_patterns_miss_is_routed_by_its_meaning(text: str, korean: bool) -> None:
    assert cancel_by_meaning(text, label="cancel", confidence=0.8) == Cancel(None, korean)


@pytest.mark.parametrize(
    ("text", "confidence"),
    [
        ("please don't send that one after all", 0.2),  # an unsure margin
        ("cancel the staff meeting on friday", 0.9),  # names no request of ours
        ("never mind that, how long is bereavement leave?", 0.9),  # a new question
        ("scratch that and email the teachers instead", 0.9),  # a new request
        ("내용은 이번 주 보강 취소됐다고", 0.9),  # news of a cancellation
        ("그거 취소하고 최 선생님한테 문자 보내줘", 0.9),
    ],
)
def test_meaning_withdraws_only_a_clear_cancel_of_our_own_request(
    text: str, confidence: float
) -> None:
    assert cancel_by_meaning(text, label="cancel", confidence=confidence) is None


def test_a_korean_message_that_ends_by_withdrawing_is_a_cancel() -> None:
    route = route_message("주소가 바뀌었다고 해서요 아까 그 메일은 캔슬해 주세요")

    assert route == Cancel(None, True)


@pytest.mark.parametrize(
    ("text", "korean"),
    [
        ("ㅎㅎ 감사해요 덕분에 일찍 퇴근하겠네요", True),
        ("perfect, thank you - that's a weight off my mind", False),
        ("cheers, you've saved my afternoon", False),
    ],
)
def test_thanks_followed_by_a_remark_is_thanks(text: str, korean: bool) -> None:
    assert route_message(text) == SmallTalk("thanks", korean)


@pytest.mark.parametrize(
    "text",
    [
        "thanks! and how many days of leave do I have left?",
        "thank you, could you send the same to the teachers",
        "고마워요 그럼 B반에도 보내주세요",
    ],
)
def test_thanks_before_a_question_or_a_request_goes_on(text: str) -> None:
    assert not isinstance(route_message(text), SmallTalk)


@pytest.mark.parametrize(
    ("text", "korean"),
    [
        ("공지도 올릴 수 있는 건가요? 처음이라 사용법을 잘 모르겠어요", True),
        ("sorry, how do I use this thing exactly", False),
    ],
)
def test_asking_how_to_use_the_assistant_is_help(text: str, korean: bool) -> None:
    assert route_message(text) == SmallTalk("help", korean)


@pytest.mark.parametrize("text", ["프린터 사용법 알려줘", "how do I use the projector in room 3?"])
def test_how_to_use_something_else_is_a_question_for_the_documents(text: str) -> None:
    assert route_message(text) is None


@pytest.mark.parametrize("text", ["talk", "take the register to the office", "tables are set up"])
def test_a_word_that_only_begins_like_thanks_is_not_thanks(text: str) -> None:
    assert route_message(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "what language was the treaty of Nanking first written in?",
        "Which languages are spoken in Belgium?",
    ],
)
def test_a_question_about_languages_in_the_world_is_not_help(text: str) -> None:
    assert route_message(text) is None


@pytest.mark.parametrize("text", ["which languages do you understand?", "what language can I use?"])
def test_a_question_about_the_assistants_languages_is_help(text: str) -> None:
    assert route_message(text) == SmallTalk("help", False)


def test_a_help_question_after_a_greeting_and_an_introduction_is_help() -> None:
    text = "Hello. I'm the new tutor - which jobs can you take care of for me?"

    assert small_talk_by_meaning(text, label="help", confidence=0.9) == SmallTalk("help", False)


@pytest.mark.parametrize(
    ("text", "help_"),
    [
        ("처음 왔습니다 이거 어떻게 사용하는 건가요?", True),
        ("빔프로젝터 이거 어떻게 쓰는 건지 알려줘", False),  # the projector, not the assistant
    ],
)
def test_how_to_use_this_is_help_only_about_the_assistant(text: str, help_: bool) -> None:
    assert (route_message(text) == SmallTalk("help", True)) is help_
