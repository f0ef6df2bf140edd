"""A turn moves the agent's Prometheus series, and its JSON logs name it without quoting it."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from django.test import Client
from langchain_core.messages import AIMessage

from chat.models import Message, PendingAction
from chat.pending_actions import pending_action_decide
from core.logs import JsonFormatter
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.metrics import Samples, moved, parse

SECRET = "Ask about the xyzzy-plover budget of Kim Minji"
SMS = {"to": ["Parents"], "body": "School closes at 1pm today"}


def _scrape() -> tuple[Samples, str]:
    text = Client(HTTP_HOST="probe.internal").get("/metrics").content.decode()
    return parse(text), text


def test_a_turn_moves_the_agent_series_and_the_scrape_holds_no_message_text(
    ask: TurnRunner,
) -> None:
    model = ScriptedChatModel(
        replies=[
            tool_call("no_such_tool"),
            tool_call("query_data", sql="SELECT nope FROM nowhere"),
            tool_call("search_knowledge", query="leave"),
            AIMessage("I could not find that."),
        ]
    )
    before, _ = _scrape()

    ask(SECRET, model=model)

    after, text = _scrape()
    assert moved(before, after, "chat_turn_duration_seconds_count", outcome="complete") == 1
    assert moved(before, after, "chat_time_to_first_token_seconds_count") >= 1
    assert moved(before, after, "chat_tokens_total", kind="input") == 40
    assert moved(before, after, "chat_tokens_total", kind="output") == 20
    assert moved(before, after, "agent_errors_total", type="unknown_tool") == 1
    assert moved(before, after, "agent_sql_retries_total") == 1
    assert moved(before, after, "kb_retrieval_seconds_count", method="hybrid") == 1
    assert "xyzzy" not in text and "Kim Minji" not in text


def test_a_paused_turn_and_its_edited_approval_are_counted(
    ask: TurnRunner, parents_group: object, people_a: People
) -> None:
    model = ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Sent.")])
    before, _ = _scrape()

    turn = ask("Text the parents that school closes at 1pm", model=model)
    action = PendingAction.objects.get(conversation=turn.conversation)
    pending_action_decide(
        action_id=action.id,
        user=people_a.approver,
        decision="approve",
        arguments={**SMS, "body": "School closes at 2pm today"},
    )

    after, _ = _scrape()
    assert moved(before, after, "chat_turn_duration_seconds_count", outcome="paused") == 1
    assert moved(before, after, "hitl_decisions_total", decision="edited") == 1
    assert moved(before, after, "hitl_decisions_total", decision="approved") == 0


@pytest.fixture
def json_logs() -> Iterator[io.StringIO]:
    """Everything logged at INFO and above, formatted as LOG_FORMAT=json formats it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield stream
    root.removeHandler(handler)
    root.setLevel(level)


def test_json_logs_of_a_turn_carry_its_ids_and_never_the_message_text(
    ask: TurnRunner, people_a: People, json_logs: io.StringIO
) -> None:
    model = ScriptedChatModel(
        replies=[tool_call("search_knowledge", query="xyzzy"), AIMessage("Nothing on xyzzy.")]
    )

    turn = ask(SECRET, model=model)

    output = json_logs.getvalue()
    records = [json.loads(line) for line in output.splitlines()]
    user_message = Message.objects.get(role=Message.Role.USER)
    about_the_turn = [r for r in records if r.get("conversation") == str(turn.conversation.uuid)]
    assert about_the_turn, output
    assert all(r["run"] == str(user_message.uuid) for r in about_the_turn)
    assert all(r["tenant"] == "alpha" for r in about_the_turn)
    assert all(r["user"] == str(people_a.staff.pk) for r in about_the_turn)
    assert "xyzzy" not in output and "Kim Minji" not in output
