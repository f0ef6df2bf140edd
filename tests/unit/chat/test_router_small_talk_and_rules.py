"""Small talk in several pieces, help after a greeting, and questions about the assistant's own
rules are routed; questions about the organisation's rules and requests are not."""

from __future__ import annotations

import pytest

from chat.builtin_model.router import (
    RulesQuestion,
    SmallTalk,
    ToolRule,
    help_reply,
    route_message,
    rules_reply,
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("hey there, good afternoon!", "greeting"),
        ("hi! hope you're doing well", "greeting"),
        ("ㅎㅇㅎㅇ", "greeting"),
        ("안뇽 ㅎㅎ", "greeting"),
        ("thanks so much, have a great weekend", "thanks"),
        ("ㄳ 수고하세요", "thanks"),
        ("감사감사 이제 됐어요", "thanks"),
        ("ok bye, talk later", "goodbye"),
        ("오늘은 여기까지 할게요 수고하셨습니다", "goodbye"),
        ("ㅂㅂ", "goodbye"),
        ("hello! I'm new here. what can you do for me?", "help"),
        ("hi, first time here, where do I start?", "help"),
        ("안녕하세요 처음이에요 어떤 기능이 있어요?", "help"),
        ("처음 써 보는데요 뭘 도와주실 수 있어요?", "help"),
        ("can I ask you in Korean?", "help"),
        ("영어로 질문해도 돼요?", "help"),
        ("처음인데 이거 어떻게 사용하는 건지 좀 설명해 주세요", "help"),
    ],
)
def test_small_talk_in_pieces_is_routed(text: str, kind: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == kind


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("Who signs off on a telegram before it is sent?", "send_telegram"),
        ("Do reminders go out automatically or does someone review them?", "schedule_reminder"),
        ("why can't I send e-mails from here?", "send_email"),
        ("is telegram turned off?", "send_telegram"),
        ("when I ask you to post something, who checks it?", None),
        ("이메일 보내 달라고 하면 누가 확인해요?", "send_email"),
        ("공지 올리면 바로 게시되나요?", "create_announcement"),
        ("텔레그램은 왜 안 돼요?", "send_telegram"),
    ],
)
def test_questions_about_the_assistants_own_rules_are_routed(text: str, tool: str | None) -> None:
    route = route_message(text)

    assert isinstance(route, RulesQuestion) and route.tool == tool


@pytest.mark.parametrize(
    "text",
    [
        "Do expense claims need a manager's approval?",
        "Who approves annual leave?",
        "휴가는 누가 승인하나요?",
        "hi, can you text Emma that the bus is late",
        "thanks, now email James about the meeting",
        "안녕하세요, 연차는 며칠인가요?",
        "Text the teachers: who approves the trip budget?",
    ],
)
def test_the_organisations_rules_and_requests_are_not_small_talk_or_rules(text: str) -> None:
    assert not isinstance(route_message(text), SmallTalk | RulesQuestion)


@pytest.mark.parametrize(
    "text",
    [
        "Do you ever get bored?",
        "long week... are you busy today?",
        "what is your favourite colour?",
        "Who programmed you?",
        "넌 심심할 때 뭐 해?",
        "오늘 비 와서 출근길 힘들었어요. 당신도 힘든 날이 있어요?",
        "너도 커피 마셔? ㅋㅋ",
    ],
)
def test_a_question_about_the_assistant_itself_is_small_talk(text: str) -> None:
    route = route_message(text)

    assert isinstance(route, SmallTalk) and route.kind == "about_me"


@pytest.mark.parametrize(
    "text",
    [
        "do you know when the library closes?",
        "are you able to text the parents?",
        "do you have the expenses form?",
        "Do you get paid extra for covering a class?",  # "you": anyone on the staff
        "are you entitled to carry leave over to next year?",
        "where is the fire exit? are you sure about that?",
        "너 주차 규정 알고 있어?",
        "너 이것 좀 팀장님한테 보내줄래?",
        "넌 연차 며칠인지 알려줄 수 있어?",
    ],
)
def test_asking_the_assistant_what_it_knows_or_to_act_is_not_about_itself(text: str) -> None:
    route = route_message(text)

    assert not (isinstance(route, SmallTalk) and route.kind == "about_me")


def test_the_reply_about_itself_says_what_it_is_and_what_it_can_do_in_the_askers_language() -> None:
    english = help_reply("about_me", tools=["send_sms"], korean=False)
    korean = help_reply("about_me", tools=["send_sms"], korean=True)

    assert "assistant" in english and "documents" in english
    assert "어시스턴트" in korean and "지식 베이스" in korean


RULES = [
    ToolRule("send_sms", True, "Office", self_approval=False, expires_after_hours=24),
    ToolRule("send_telegram", False, None, self_approval=False, expires_after_hours=24),
]


def test_the_rules_answer_reads_the_live_policy_of_the_tool_asked_about() -> None:
    sms = rules_reply(RulesQuestion("send_sms", korean=False), rules=RULES)
    telegram = rules_reply(RulesQuestion("send_telegram", korean=True), rules=RULES)

    assert "Office" in sms and "not the person who asked" in sms and "Telegram" not in sms
    assert "꺼져 있어서" in telegram and "문자" not in telegram


def test_a_rules_question_naming_no_tool_lists_every_tool() -> None:
    reply = rules_reply(RulesQuestion(None, korean=False), rules=RULES)

    assert "SMS messages" in reply and "Telegram messages: turned off" in reply
