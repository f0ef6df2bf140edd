"""ChatOpenAI end to end against a local scripted OpenAI-compatible server that streams."""

from __future__ import annotations

import json

from django.test import override_settings

from actions.models import OutboundMessage
from chat.agent.llm import model_label
from chat.agent.runner import CollectingEvents
from chat.models import PendingAction
from chat.pending_actions import pending_action_decide
from chat.services.turns import turn_resume
from tests.chat.conftest import People, TurnRunner
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText, ScriptedToolCall


def test_chat_openai_streams_a_tool_call_then_the_confirmation(
    ask: TurnRunner, people_a: People, parents_group: object
) -> None:
    script: list[ScriptedText | ScriptedToolCall] = [
        ScriptedToolCall("send_sms", {"to": ["Parents"], "body": "Picnic moved to Friday"}),
        ScriptedText("Done: the parents will get the message."),
    ]
    with (
        FakeOpenAIServer(script) as server,
        override_settings(
            LLM_BASE_URL=server.base_url, LLM_MODEL="scripted-gpt", LLM_API_KEY="test-key"
        ),
    ):
        turn = ask("Tell the parents the picnic moved to Friday")
        action = PendingAction.objects.get(conversation=turn.conversation)
        pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")
        events = CollectingEvents()
        reply = turn_resume(action=PendingAction.objects.get(pk=action.id), events=events)
        label = model_label()

    assert action.arguments == {"to": ["Parents"], "body": "Picnic moved to Friday"}
    assert reply is not None and reply.content == "Done: the parents will get the message."
    assert "".join(events.of("token")) == reply.content  # streamed (in as many reads as came)
    # The reply carries the whole turn: the call that proposed the action and the confirmation.
    assert reply.usage["input_tokens"] == 2 * 42 and reply.usage["model"] == "scripted-gpt"
    assert label == "scripted-gpt"
    assert OutboundMessage.objects.count() == 2
    first, second = server.requests
    assert first["authorization"] == "Bearer test-key"
    assert first["body"]["stream"] is True
    assert "send_sms" in {tool["function"]["name"] for tool in first["body"]["tools"]}
    tool_result = [m for m in second["body"]["messages"] if m["role"] == "tool"][-1]
    assert json.loads(tool_result["content"])["status"] == "executed"


def test_a_slowly_streamed_reply_read_in_batches_arrives_whole_and_in_order(
    ask: TurnRunner,
) -> None:
    text = "Term starts on the fourth of September; the first week is half days for year one."
    with (
        FakeOpenAIServer([ScriptedText(text, chunk_chars=3)], token_delay=0.01) as server,
        override_settings(
            LLM_BASE_URL=server.base_url,
            LLM_MODEL="scripted-gpt",
            LLM_API_KEY="test-key",
            CHAT_TOKEN_FLUSH_MS=100,
        ),
    ):
        turn = ask("When does term start?")

    assert turn.reply is not None and turn.reply.content == text
    assert "".join(turn.events.of("token")) == text
    # Each read's chunks came to the sink merged: fewer tokens than the server's 28 chunks.
    assert len(turn.events.of("token")) < len(text) / 3
    # The reader handed its reads over between them: the sink was asked to send each on.
    assert turn.events.of("flush")
