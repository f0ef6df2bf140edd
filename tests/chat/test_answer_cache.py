"""The answer cache: a standalone knowledge question asked again is answered from the cache,
until a document or the prompt changes; nothing else ever is.

These tests commit (``transaction=True``): the knowledge base's version is bumped by a trigger
that fires at commit, as it does in production.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import override_settings
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage

from actions.models import Contact
from chat.agent.runner import CollectingEvents
from chat.evals.cases import CaseSpec
from chat.evals.runner import case_execute
from chat.models import Message, PendingAction
from chat.services.answer_cache import answer_cache_get, answer_cache_offer
from chat.services.prompts import assistant_prompt_publish
from chat.services.turns import turn_run, turn_start
from knowledge.embedder import use_embedder
from knowledge.indexing import kb_reindex
from knowledge.models import Document, KnowledgeSettings
from knowledge.services import document_create_from_text, document_update
from knowledge.state import kb_version
from tenants.models import Tenant
from tests.chat.conftest import TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.knowledge.conftest import FakeEmbedder
from tests.tenants.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "How many days of paid annual leave do staff get?"
LEAVE_POLICY = "# Leave policy\n\nStaff receive 20 days of paid annual leave per year."


@pytest.fixture(autouse=True)
def fake_embeddings() -> Iterator[None]:
    with use_embedder(FakeEmbedder()):
        yield


@pytest.fixture
def leave_policy(in_tenant_a: Tenant) -> Document:
    document = document_create_from_text(title="Leave policy", text=LEAVE_POLICY)
    kb_reindex()
    return document


def knowledge_model(*answers: str) -> ScriptedChatModel:
    """A model that answers each question by searching the knowledge base, then citing [1]."""
    replies: list[AIMessage] = []
    for answer in answers:
        replies += [tool_call("search_knowledge", query="annual leave"), AIMessage(answer)]
    return ScriptedChatModel(replies=replies)


def test_a_repeated_knowledge_question_is_answered_from_the_cache_without_the_model(
    leave_policy: Document, ask: TurnRunner
) -> None:
    model = knowledge_model("Staff get 20 days of paid annual leave [1].")

    first = ask(QUESTION, model=model)
    again = ask("  how many DAYS of paid annual   leave do staff get?", model=model)

    assert first.reply is not None and first.reply.usage["cached"] is False
    assert again.reply is not None and again.reply.usage["cached"] is True
    assert len(model.calls) == 2  # both of the first turn: the second never reached the model
    assert again.reply.content == first.reply.content
    assert again.reply.citations == first.reply.citations != []
    assert "".join(again.events.of("token")) == again.reply.content
    assert len(again.events.of("token")) > 1 and again.events.of("status") == ["thinking"]
    assert again.events.of("done") == [again.reply]
    assert again.reply.usage["input_tokens"] == again.reply.usage["output_tokens"] == 0


def test_a_document_edit_makes_the_next_answer_fresh(
    leave_policy: Document, ask: TurnRunner
) -> None:
    model = knowledge_model(
        "Staff get 20 days of paid annual leave [1].", "Staff get 25 days of paid annual leave [1]."
    )
    ask(QUESTION, model=model)
    version_before = kb_version()

    document_update(document=leave_policy, text=LEAVE_POLICY.replace("20", "25"))
    kb_reindex()
    after_edit = ask(QUESTION, model=model)

    assert kb_version() != version_before
    assert after_edit.reply is not None and after_edit.reply.usage["cached"] is False
    assert after_edit.reply.content == "Staff get 25 days of paid annual leave [1]."
    assert len(model.calls) == 4


def test_a_deleted_document_makes_the_next_answer_fresh(
    leave_policy: Document, ask: TurnRunner
) -> None:
    model = knowledge_model("Staff get 20 days [1].", "The knowledge base does not cover it.")
    ask(QUESTION, model=model)

    Document.objects.filter(pk=leave_policy.pk).delete()
    after_delete = ask(QUESTION, model=model)

    assert after_delete.reply is not None and after_delete.reply.usage["cached"] is False
    assert len(model.calls) == 4


def test_a_new_prompt_version_makes_the_next_answer_fresh(
    leave_policy: Document, ask: TurnRunner
) -> None:
    model = knowledge_model("Staff get 20 days [1].", "Twenty days [1].")
    ask(QUESTION, model=model)

    assistant_prompt_publish(text="You are terse. Cite passages like [1].", user=None)
    after_prompt = ask(QUESTION, model=model)

    assert after_prompt.reply is not None and after_prompt.reply.content == "Twenty days [1]."
    assert after_prompt.reply.usage["cached"] is False


def test_an_action_request_is_never_answered_from_the_cache(
    leave_policy: Document, ask: TurnRunner
) -> None:
    Contact.objects.create(name="Kim Minji", phone="+12025550100")
    send = tool_call("send_sms", to=["Kim Minji"], body="You get 20 days of annual leave.")
    model = ScriptedChatModel(
        replies=[tool_call("search_knowledge", query="annual leave"), send] * 2
    )
    request = "Look up our annual leave and text it to Kim Minji"

    first = ask(request, model=model)
    again = ask(request, model=model)

    assert first.reply is None and again.reply is None  # both paused for approval
    assert len(model.calls) == 4
    assert PendingAction.objects.count() == 2
    assert not Message.objects.filter(usage__cached=True).exists()


def test_an_answer_that_queried_data_is_never_stored(
    leave_policy: Document, ask: TurnRunner
) -> None:
    def answer() -> list[AIMessage]:
        return [
            tool_call("search_knowledge", query="annual leave"),
            tool_call("query_data", sql="SELECT count(*) FROM actions_contact"),
            AIMessage("Staff get 20 days [1], and there are no contacts."),
        ]

    model = ScriptedChatModel(replies=answer() + answer())

    ask(QUESTION, model=model)
    again = ask(QUESTION, model=model)

    assert again.reply is not None and again.reply.usage["cached"] is False
    assert len(model.calls) == 6


def test_a_clarifying_question_is_never_stored(leave_policy: Document, ask: TurnRunner) -> None:
    model = knowledge_model("Do you mean paid leave [1] or sick leave?", "Twenty days [1].")

    ask("leave?", model=model)
    again = ask("leave?", model=model)

    assert again.reply is not None and again.reply.content == "Twenty days [1]."
    assert again.reply.usage["cached"] is False


def test_a_follow_up_question_is_not_answered_from_the_cache(
    leave_policy: Document, ask: TurnRunner
) -> None:
    model = knowledge_model("Staff get 20 days [1].", "Yes, 20 days [1].")
    first = ask(QUESTION, model=model)

    follow_up = ask(QUESTION, model=model, conversation=first.conversation)

    assert follow_up.reply is not None and follow_up.reply.usage["cached"] is False


def test_a_follow_up_after_a_cached_answer_is_answered_knowing_it(
    leave_policy: Document, ask: TurnRunner
) -> None:
    model = knowledge_model("Staff get 20 days [1].", "Yes, all staff [1].")
    ask(QUESTION, model=model)
    cached = ask(QUESTION, model=model)

    ask("Does that apply to part-timers too?", model=model, conversation=cached.conversation)

    shown = [str(message.content) for message in model.calls[-2]]
    assert QUESTION in shown and "Staff get 20 days [1]." in shown


def test_a_tenant_admin_can_switch_the_cache_off(leave_policy: Document, ask: TurnRunner) -> None:
    model = knowledge_model("Staff get 20 days [1].", "Staff get 20 days [1].")
    KnowledgeSettings.objects.create(answer_cache_enabled=False)

    ask(QUESTION, model=model)
    again = ask(QUESTION, model=model)

    assert again.reply is not None and again.reply.usage["cached"] is False
    assert len(model.calls) == 4


@override_settings(ANSWER_CACHE_ENABLED=False)
def test_the_environment_switches_the_cache_off_for_every_tenant(
    leave_policy: Document, ask: TurnRunner
) -> None:
    model = knowledge_model("Staff get 20 days [1].", "Staff get 20 days [1].")

    ask(QUESTION, model=model)
    again = ask(QUESTION, model=model)

    assert again.reply is not None and again.reply.usage["cached"] is False


def test_a_cache_that_is_down_is_a_miss_and_stores_nothing(leave_policy: Document) -> None:
    unreachable = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens
            "KEY_FUNCTION": "django_tenants.cache.make_key",
        }
    }
    turn = [tool_call("search_knowledge", query="leave"), AIMessage("20 days [1].")]
    citation = {"n": 1, "document": leave_policy.pk, "title": "Leave policy", "snippet": "20"}
    with override_settings(CACHES=unreachable):
        stored = answer_cache_offer(
            key="answer:k", turn=turn, content="20 days [1].", citations=[citation], sources=[]
        )
        found = answer_cache_get("answer:k")

    assert stored is False and found is None


def test_tenant_b_never_gets_tenant_a_cached_answer(
    leave_policy: Document, ask: TurnRunner, tenant_b: Tenant
) -> None:
    ask(QUESTION, model=knowledge_model("Alpha staff get 20 days [1]."))
    with tenant_context(tenant_b):
        document_create_from_text(title="Leave policy", text=LEAVE_POLICY)
        kb_reindex()
        model_b = knowledge_model("Beta staff get 20 days [1].")
        user_b = make_user(tenant_b, "sam")
        conversation, message, _ = turn_start(user=user_b, text=QUESTION)
        reply = turn_run(
            conversation=conversation, message=message, events=CollectingEvents(), model=model_b
        )

    assert reply is not None and reply.content == "Beta staff get 20 days [1]."
    assert reply.usage["cached"] is False
    assert len(model_b.calls) == 2


def test_an_evaluation_case_is_answered_by_the_model_never_by_the_cache(
    leave_policy: Document, ask: TurnRunner
) -> None:
    ask(QUESTION, model=knowledge_model("Staff get 20 days of paid annual leave [1]."))
    case = CaseSpec.model_validate(
        {"key": "leave", "message": QUESTION, "expect": {"reply_contains": ["Twenty"]}}
    )

    outcome = case_execute(case=case, model=knowledge_model("Twenty days, says the policy [1]."))
    again = ask(QUESTION, model=knowledge_model("unused"))

    assert outcome.passed, outcome.reply
    assert again.reply is not None and again.reply.usage["cached"] is True
    assert again.reply.content == "Staff get 20 days of paid annual leave [1].", "nor stored"
