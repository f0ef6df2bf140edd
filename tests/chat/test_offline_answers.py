"""The offline model answers knowledge questions right or not at all, at any accepted length."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from langchain_core.messages import AIMessage, BaseMessage

from chat.builtin_model.model import NOT_COVERED, NOT_COVERED_KO, OfflineChatModel
from chat.builtin_model.sentences import is_terminated
from chat.models import Message
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tenants.models import Tenant
from tests.chat.conftest import Turn, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call

DEMO = Path(settings.BASE_DIR) / "knowledge" / "demo" / "documents"
PARENT_EMAIL = (
    "Hello Ms Park,\n\nI hope you are well. Minho had a high fever over the weekend and the "
    "doctor told him to stay home for a few days. He is feeling a little better today but "
    "still coughing, so we would like to keep him home until Thursday. Could you let his "
    "homeroom teacher know, and send any worksheets he should do at home?\n\n"
    "Thank you,\nJiyeon (Minho's mother)\n\n"
)
QUESTION = "\n\nHow many sick days can staff self-certify?"


@pytest.fixture
def demo_knowledge_base(in_tenant_a: Tenant) -> None:
    for name, title in [("leave-policy.md", "Leave policy"), ("it-help.md", "IT help desk")]:
        document_create_from_text(title=title, text=(DEMO / name).read_text())
    kb_reindex()


def quote_of(turn: Turn) -> str:
    """The reply without its citation markers."""
    assert turn.reply is not None
    return re.sub(r"\s?\[\d+\]", "", turn.reply.content).strip()


def message_of_length(length: int) -> str:
    """A pasted parent e-mail followed by a question, exactly ``length`` characters long."""
    if length <= len(QUESTION.strip()):
        return QUESTION.strip()[-length:]
    body = (PARENT_EMAIL * (length // len(PARENT_EMAIL) + 1))[: length - len(QUESTION)]
    return body + QUESTION


def test_it_answers_from_the_passage_about_the_question_not_one_sharing_a_word(
    demo_knowledge_base: None, ask: TurnRunner
) -> None:
    turn = ask("How long is bereavement leave?", model=OfflineChatModel())

    assert quote_of(turn) == (
        "Up to five days of paid leave are granted on the death of a close family member."
    )
    assert turn.reply is not None
    assert [c["title"] for c in turn.reply.citations] == ["Leave policy"]


def test_it_quotes_a_sentence_the_source_wrapped_at_a_line_break_whole(
    demo_knowledge_base: None, ask: TurnRunner
) -> None:
    turn = ask("How do guests get on the Wi-Fi?", model=OfflineChatModel())

    assert 'Guests use "Guest" with the daily code shown at reception.' in quote_of(turn)


def test_it_answers_a_korean_question_from_a_korean_passage(
    in_tenant_a: Tenant, ask: TurnRunner
) -> None:
    document_create_from_text(title="실험실 안전", text=(DEMO / "lab-safety-ko.md").read_text())
    kb_reindex()

    turn = ask("불이 나면 어떻게 해야 하나요?", model=OfflineChatModel())

    assert "가장 가까운 비상구로 대피하십시오." in quote_of(turn)


@pytest.fixture
def every_demo_document(in_tenant_a: Tenant) -> None:
    """The demo's five documents: English, Korean and Spanish side by side."""
    for path in sorted(DEMO.glob("*.md")):
        document_create_from_text(title=path.stem, text=path.read_text())
    kb_reindex()


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("출장 가서 호텔 잡으면 하룻밤에 얼마까지 돼요?", "hotels up to 150 EUR per night"),
        ("회사 노트북 잃어버렸는데 어디에 알려야 해요?", "Report a lost or stolen laptop"),
    ],
)
def test_a_korean_question_is_answered_from_the_english_passage_in_its_own_words(
    every_demo_document: None, ask: TurnRunner, question: str, fact: str
) -> None:
    # Every Korean sentence of the lab rules used to rank above the English answer.
    turn = ask(question, model=OfflineChatModel())

    assert fact in quote_of(turn)
    assert turn.reply is not None
    assert [c["title"] for c in turn.reply.citations] in (["expenses-faq"], ["it-help"])


def test_a_korean_question_no_document_answers_is_declined_in_korean(
    every_demo_document: None, ask: TurnRunner
) -> None:
    turn = ask("학교 식당 이번 주 점심 메뉴 뭐예요?", model=OfflineChatModel())

    assert turn.reply is not None and turn.reply.content == NOT_COVERED_KO
    assert turn.reply.citations == []


def test_it_declines_rather_than_quote_an_unrelated_passage(
    demo_knowledge_base: None, ask: TurnRunner
) -> None:
    turn = ask("What is the capital of Mongolia?", model=OfflineChatModel())

    assert turn.reply is not None and turn.reply.content == NOT_COVERED
    assert turn.reply.citations == []


@pytest.mark.parametrize("length", [1, 499, 501, 2000, 4000])
def test_a_message_of_any_accepted_length_gets_a_complete_reply(
    demo_knowledge_base: None, ask: TurnRunner, length: int
) -> None:
    text = message_of_length(length)
    assert len(text) == length <= settings.CHAT_MAX_MESSAGE_CHARS

    turn = ask(text, model=OfflineChatModel())

    assert turn.events.of("error") == []
    assert turn.reply is not None and turn.reply.status == Message.Status.COMPLETE
    assert is_terminated(quote_of(turn))


def test_a_pasted_email_with_a_question_at_the_end_is_answered_from_the_kb(
    demo_knowledge_base: None, ask: TurnRunner
) -> None:
    turn = ask(message_of_length(2000), model=OfflineChatModel())

    assert "You may self-certify up to three consecutive days." in quote_of(turn)


@pytest.mark.parametrize("query", ["x" * 600, "   "])
def test_an_unusable_search_query_goes_back_to_the_model_instead_of_failing_the_turn(
    in_tenant_a: Tenant, ask: TurnRunner, query: str
) -> None:
    seen: list[dict[str, Any]] = []

    def read_the_error(messages: list[BaseMessage]) -> AIMessage:
        seen.append(json.loads(str(messages[-1].content)))
        return AIMessage("I could not search for that.")

    model = ScriptedChatModel(replies=[tool_call("search_knowledge", query=query), read_the_error])
    turn = ask("Find the leave policy", model=model)

    assert turn.events.of("error") == []
    assert seen[0]["passages"] == [] and seen[0]["error"]
