"""Knowledge answers are chosen by meaning across languages, or declined (issue 27).

The five demo documents (English, Korean, Spanish) are indexed with the local e5 model and the
built-in model answers through the real graph: a Korean question finds the fact in an English
document and quotes it in the document's words with its citation; a question no document
answers is declined rather than answered with a cited sentence that merely sounds alike.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from chat.agent.offline import NOT_COVERED, OfflineChatModel
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tenants.models import Tenant
from tests.chat.conftest import Turn, TurnRunner

DEMO = Path(settings.BASE_DIR) / "knowledge" / "demo" / "documents"


@pytest.fixture
def every_demo_document(in_tenant_a: Tenant) -> None:
    for path in sorted(DEMO.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        document_create_from_text(title=text.splitlines()[0].lstrip("# "), text=text)
    kb_reindex()


def quote_of(turn: Turn) -> str:
    assert turn.reply is not None
    return re.sub(r"\s?\[\d+\]", "", turn.reply.content).strip()


def cited_titles(turn: Turn) -> list[str]:
    assert turn.reply is not None
    return [citation["title"] for citation in turn.reply.citations]


def test_a_korean_question_is_answered_from_the_english_document_with_its_citation(
    every_demo_document: None, ask: TurnRunner
) -> None:
    turn = ask("올해 못 쓴 연차 내년으로 넘어가나요? 넘어가면 몇 개까지?", model=OfflineChatModel())

    assert "Up to five unused days may be carried over" in quote_of(turn)
    assert cited_titles(turn) == ["Leave policy"]


def test_a_question_no_document_answers_is_declined_not_quoted_from_a_sentence_alike(
    every_demo_document: None, ask: TurnRunner
) -> None:
    # The lab rules name the car park as the assembly point; parking registration is nowhere.
    turn = ask("학원 건물 주차 등록은 어디서 해요?", model=OfflineChatModel())

    assert turn.reply is not None and turn.reply.content == NOT_COVERED
    assert cited_titles(turn) == []
